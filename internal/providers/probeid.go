package providers

import "github.com/sonde-trace/sonde/internal/provider"

// ByID returns the probe whose ID is id (dtrace -i), as sonde -l numbers
// it: one Match has seen, or one of the provider whose range holds id,
// which is asked for all its probes. The probes of providers that live in
// processes (pid, USDT) have IDs only once a description named them; nil
// when no probe has the ID.
func (r *Registry) ByID(id uint32) (*provider.Probe, error) {
	if p := r.probes[id]; p != nil {
		return p, nil
	}
	for _, e := range r.entries {
		if id < e.base || id-e.base >= e.n {
			continue
		}
		if _, family := e.p.(provider.Family); family {
			return nil, nil
		}
		if _, err := r.Match(provider.Desc{Provider: e.p.Name()}); err != nil {
			return nil, err
		}
		return r.probes[id], nil
	}
	return nil, nil
}
