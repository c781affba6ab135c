// Package api is sonded's HTTP API: the appliance's (Fishworks')
// analytics REST service, /api/analytics/v1, in JSON, over an
// analytics.Backend (the agent). Datasets are listed, created, suspended,
// resumed and destroyed, and their per-second values read, as the
// appliance's integrations expect; the statistics catalogue, worksheets
// and the agent's events are served beside them. docs/api/openapi.yaml
// documents it all and is served at /api/analytics/v1/openapi.yaml.
//
// Errors have the appliance's shape, {"fault": {"code": 400, "name":
// "ERR_INVALID_ARG", "message": "ERR_INVALID_ARG", "details": "..."}}.
//
// Access: through a loopback listener no credentials are needed; through
// any other, a request needs a bearer token, HTTP basic auth or the
// appliance's X-Auth-User/X-Auth-Key, each mapped to a role: read-only
// (GET only) or admin. Serve (or ConnContext on one's own http.Server)
// tells the handler which listener a request came through.
//
// The API passes specs and D to the backend as they are and no option with
// them: nothing here can enable destructive actions.
package api

import (
	"log"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Prefix is where the analytics service lives.
const Prefix = "/api/analytics/v1"

// Default limits.
const (
	DefaultMaxBody      = 1 << 20
	DefaultMaxIntervals = 7 * 24 * 3600
)

// Options configure the API; nil or zero fields take the defaults.
type Options struct {
	// Tokens maps bearer tokens to roles (LoadTokens reads a file).
	Tokens map[string]Role
	// Users maps user names to their password hash and role, for basic
	// auth and X-Auth-User/X-Auth-Key (LoadUsers reads a file).
	Users map[string]User
	// MaxBody limits a request's body (default 1 MiB): past it, 413.
	MaxBody int64
	// MaxIntervals limits the intervals one data request may ask for
	// (default a week of seconds).
	MaxIntervals int
	// Now is the clock (tests inject one); nil is time.Now.
	Now func() time.Time
	// Logf logs what the agent should know (a handler's panic); nil
	// is log.Printf.
	Logf func(format string, args ...any)
}

// Handler serves the API.
type Handler struct {
	b    analytics.Backend
	opts Options
	// verified remembers credentials whose password checked.
	verified sync.Map
}

// New returns the API over b.
func New(b analytics.Backend, opts *Options) *Handler {
	h := &Handler{b: b}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBody <= 0 {
		h.opts.MaxBody = DefaultMaxBody
	}
	if h.opts.MaxIntervals <= 0 {
		h.opts.MaxIntervals = DefaultMaxIntervals
	}
	if h.opts.Now == nil {
		h.opts.Now = time.Now
	}
	if h.opts.Logf == nil {
		h.opts.Logf = log.Printf
	}
	return h
}

// ServeHTTP authenticates r and routes it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.Guard(http.HandlerFunc(h.route)).ServeHTTP(w, r)
}

// Guard applies the API's access rules and limits to next: the web UI,
// /metrics and the alert service can share them. Requests without the
// credentials their method needs get 401 or 403; bodies are limited; a
// panic is answered with 500 and logged, never taking the agent down.
func (h *Handler) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.opts.Logf("api: %s %s: panic: %v", r.Method, r.URL.Path, v)
				writeFault(w, errorf(http.StatusInternalServerError, "internal error"))
			}
		}()
		w.Header().Set("X-Zfssa-Analytics-Api", "1.0")
		role, err := h.authenticate(r)
		if err != nil {
			writeFault(w, err)
			return
		}
		if !allowed(role, r.Method) {
			writeFault(w, errorf(http.StatusForbidden, "the %s role may not %s", role, r.Method))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// methods maps HTTP methods to the handlers of one resource.
type methods map[string]func(w http.ResponseWriter, r *http.Request)

// serve calls the handler of r's method, or answers 405.
func (m methods) serve(w http.ResponseWriter, r *http.Request) {
	if f, ok := m[r.Method]; ok {
		f(w, r)
		return
	}
	if r.Method == http.MethodHead {
		if f, ok := m[http.MethodGet]; ok {
			f(w, r)
			return
		}
	}
	var allow []string
	for _, v := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		if _, ok := m[v]; ok {
			allow = append(allow, v)
		}
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeFault(w, errorf(http.StatusMethodNotAllowed, "%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", ")))
}

// route finds the resource r addresses, from its escaped path: a
// dataset's name, escaped, may hold any character ("[", "]", "=", quotes,
// spaces, "/" as %2F).
func (h *Handler) route(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), Prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		writeFault(w, errorf(http.StatusNotFound, "no such resource: %s", r.URL.Path))
		return
	}
	rest = strings.TrimPrefix(rest, "/")
	coll, item, _ := strings.Cut(rest, "/")
	switch coll {
	case "":
		methods{http.MethodGet: h.index}.serve(w, r)
	case "openapi.yaml":
		h.routeLeaf(w, r, item, methods{http.MethodGet: h.openapi})
	case "statistics":
		h.routeStatistics(w, r, item)
	case "datasets":
		h.routeDatasets(w, r, item)
	case "worksheets":
		h.routeWorksheets(w, r, item)
	case "events":
		h.routeLeaf(w, r, item, methods{http.MethodGet: h.events})
	default:
		writeFault(w, errorf(http.StatusNotFound, "no such resource: %s", r.URL.Path))
	}
}

// routeLeaf serves a resource that has no items.
func (h *Handler) routeLeaf(w http.ResponseWriter, r *http.Request, item string, m methods) {
	if item != "" {
		writeFault(w, errorf(http.StatusNotFound, "no such resource: %s", r.URL.Path))
		return
	}
	m.serve(w, r)
}
