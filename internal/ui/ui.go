// Package ui serves sonded's Analytics web UI: a single page (worksheets of
// live charts and heat maps, drill-down, the datasets view, the statistics
// picker) that talks to the analytics API. Its assets are built from ui/ by
// `make build` (npm ci, esbuild) into dist/ and embedded in the binary: the
// agent needs no CDN or internet at run time.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"

	"github.com/sonde-trace/sonde/internal/api"
)

//go:embed dist
var dist embed.FS

// notBuilt is served when the binary was built without the bundle (go
// build without make build).
const notBuilt = `<!doctype html><meta charset="utf-8"><title>sonde</title>
<p>The web UI was not built into this sonded: build it with <code>make build</code>.
The API is at <a href="/api/analytics/v1">/api/analytics/v1</a>.`

// WithAPI serves the API h under api.Prefix and the UI everywhere else,
// behind the API's access rules (h.Guard). The prefix is matched on the
// escaped path, as the API routes it (a dataset's name may hold %2F).
func WithAPI(h *api.Handler) http.Handler {
	page := h.Guard(Handler())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		if p == api.Prefix || strings.HasPrefix(p, api.Prefix+"/") {
			h.ServeHTTP(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// Handler serves the UI: its page at "/", "/ui/" and every path under
// /ui/ that is not an asset (the page routes itself), its assets under
// /ui/assets/.
func Handler() http.Handler {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded: cannot happen
	}
	return handler{files: sub}
}

type handler struct {
	files fs.FS
}

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/ui/assets/"):
		h.asset(w, r, strings.TrimPrefix(p, "/ui/assets/"))
	case p == "/" || p == "/ui" || strings.HasPrefix(p, "/ui/"):
		h.page(w, r)
	default:
		http.NotFound(w, r)
	}
}

// page serves index.html, or a note that the UI was not built.
func (h handler) page(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(h.files, "index.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
	if err != nil {
		_, _ = w.Write([]byte(notBuilt))
		return
	}
	_, _ = w.Write(b)
}

// asset serves one file of the bundle.
func (h handler) asset(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" || name == "README" || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeFileFS(w, r, h.files, name)
}
