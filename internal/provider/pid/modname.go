package pid

import (
	"strings"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
)

// moduleMatches reports whether the module of a probe description names
// object o: by its base name (libc.so.6), by that name without the
// version that follows ".so" (libc.so) or without ".so" and the version
// (libc), as DTrace scripts name libraries; the main executable also as
// a.out.
func moduleMatches(pattern string, o sym.Object) bool {
	if o.Main && provider.Glob(pattern, "a.out") {
		return true
	}
	for _, name := range moduleNames(o.Mod) {
		if provider.Glob(pattern, name) {
			return true
		}
	}
	return false
}

// moduleNames are the names a module answers to: libc.so.6, libc.so and
// libc; a name without ".so" is only itself.
func moduleNames(mod string) []string {
	i := strings.Index(mod, ".so")
	if i <= 0 || (len(mod) > i+3 && mod[i+3] != '.') {
		return []string{mod}
	}
	if len(mod) == i+3 {
		return []string{mod, mod[:i]}
	}
	return []string{mod, mod[:i+3], mod[:i]}
}
