// Package providertest holds what the providers' tests share: matching a
// description that must not fail, the one probe of a name, listings.
package providertest

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Probes returns p's probes matching d, failing the test on an error.
func Probes(t *testing.T, p provider.Provider, d provider.Desc) []*provider.Probe {
	t.Helper()
	ps, err := p.Probes(d)
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	return ps
}

// One returns p's one probe called name.
func One(t *testing.T, p provider.Provider, name string) *provider.Probe {
	t.Helper()
	ps := Probes(t, p, provider.Desc{Provider: p.Name(), Name: name})
	if len(ps) != 1 {
		t.Fatalf("%s:::%s: %d probes", p.Name(), name, len(ps))
	}
	return ps[0]
}

// FullNames lists probes as provider:module:function:name, space-separated.
func FullNames(ps []*provider.Probe) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.FullName())
	}
	return strings.Join(out, " ")
}

// Member returns the member name of s, failing the test when it has none.
func Member(t *testing.T, s *provider.Struct, name string) *provider.Member {
	t.Helper()
	m, ok := s.Member(name)
	if !ok {
		t.Fatalf("%s has no %s", s.Name, name)
	}
	return m
}
