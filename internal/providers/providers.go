// Package providers is the registry of probe providers. It gives every
// probe a stable ID (BEGIN, END and ERROR are 1, 2 and 3; then each
// provider's probes in a fixed range) and matches probe descriptions for
// the checker and for -l.
//
// A provider numbers its probes from 0 (local IDs); the registry gives it
// a range of n global IDs, base to base+n-1, right after the previous
// provider's, and a probe's ID is base plus its local ID. A local ID of n
// or more is refused with an error, so that no two providers' probes can
// share an ID.
package providers

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/cpc"
	"github.com/sonde-trace/sonde/internal/provider/dtrace"
	"github.com/sonde-trace/sonde/internal/provider/fbt"
	"github.com/sonde-trace/sonde/internal/provider/io"
	"github.com/sonde-trace/sonde/internal/provider/ip"
	"github.com/sonde-trace/sonde/internal/provider/pid"
	"github.com/sonde-trace/sonde/internal/provider/proc"
	"github.com/sonde-trace/sonde/internal/provider/profile"
	"github.com/sonde-trace/sonde/internal/provider/sched"
	"github.com/sonde-trace/sonde/internal/provider/syscall"
	"github.com/sonde-trace/sonde/internal/provider/tcp"
	"github.com/sonde-trace/sonde/internal/provider/tracepoint"
	"github.com/sonde-trace/sonde/internal/provider/udp"
	"github.com/sonde-trace/sonde/internal/provider/usdtprov"
)

// entry is a provider and the range of global IDs it is given: base + n
// for its local ID n.
type entry struct {
	p    provider.Provider
	base uint32
	n    uint32 // the size of the range
}

// Registry holds the providers of one session.
type Registry struct {
	entries []entry
	next    uint32 // the base of the next provider's range
	probes  map[uint32]*provider.Probe
}

// New returns a registry with every provider.
func New() *Registry {
	r := empty()
	r.add(dtrace.Provider{}, dtrace.NumLocal())
	r.add(syscall.Provider{}, syscall.NumLocal())
	r.add(sched.Provider{}, sched.NumLocal())
	r.add(proc.Provider{}, proc.NumLocal())
	r.add(io.Provider{}, io.NumLocal())
	r.add(&tracepoint.Provider{}, tracepoint.MaxProbes)
	r.add(&profile.Provider{}, profile.MaxProbes)
	r.add(&pid.Provider{}, pid.MaxProbes)
	r.add(&usdtprov.Provider{}, usdtprov.MaxProbes)
	r.add(fbt.Provider{}, 0)
	r.add(&cpc.Provider{}, cpc.MaxProbes)
	r.add(tcp.Provider{}, tcp.NumLocal())
	r.add(ip.Provider{}, ip.NumLocal())
	r.add(udp.Provider{}, udp.NumLocal())
	return r
}

// empty returns a registry without providers.
func empty() *Registry {
	return &Registry{next: 1, probes: map[uint32]*provider.Probe{}}
}

// add gives p the next n global IDs.
func (r *Registry) add(p provider.Provider, n uint32) {
	r.entries = append(r.entries, entry{p, r.next, n})
	r.next += n
}

// Match implements check.Resolver: the probes matching d, by ID.
//
// A provider that d does not name exactly (BEGIN, tick-1s: any provider
// may answer) and that sonde may not read (tracefs without the privilege
// to read it) is passed over when another provider answers: its error is
// returned only when no probe matched.
func (r *Registry) Match(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	var denied error
	for _, e := range r.entries {
		if f, ok := e.p.(provider.Family); ok {
			if !f.Serves(d) {
				continue
			}
		} else if !provider.Glob(d.Provider, e.p.Name()) {
			continue
		}
		ps, err := e.p.Probes(d)
		if err != nil && d.Provider != e.p.Name() && errors.Is(err, os.ErrPermission) {
			denied = cmp.Or(denied, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			q, err := r.intern(e, p)
			if err != nil {
				return nil, err
			}
			out = append(out, q)
		}
	}
	if len(out) == 0 && denied != nil {
		return nil, denied
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// intern gives p its global ID and returns the one probe of that ID.
func (r *Registry) intern(e entry, p *provider.Probe) (*provider.Probe, error) {
	if p.ID >= e.n {
		return nil, fmt.Errorf("%s: too many probes: the %s provider has room for %d", p.FullName(), e.p.Name(), e.n)
	}
	id := e.base + p.ID
	if q, ok := r.probes[id]; ok {
		if q.Args == nil && p.Args != nil {
			q.Args = p.Args
		}
		if q.Record == nil && p.Record != nil {
			q.Record = p.Record
		}
		return q, nil
	}
	q := *p
	q.ID = id
	r.probes[id] = &q
	return &q, nil
}

// Owner implements provider.Owners: the provider of a probe Match gave.
func (r *Registry) Owner(p *provider.Probe) provider.Provider {
	if _, ok := r.probes[p.ID]; !ok {
		return nil
	}
	for _, e := range r.entries {
		if p.ID >= e.base && p.ID-e.base < e.n {
			return e.p
		}
	}
	return nil
}

// Attributes are a probe's Probe Description Attributes and Argument
// Attributes (dtrace -lv), for the providers that declare DTrace's
// stability attributes (provider.Attributed); ok is false for the others.
func (r *Registry) Attributes(p *provider.Probe) (desc, args provider.Attr, ok bool) {
	a, ok := r.Owner(p).(provider.Attributed)
	if !ok {
		return desc, args, false
	}
	desc, args = provider.ProbeAttrs(a.Attributes(), p)
	return desc, args, true
}

// Probe returns the probe of an ID seen by Match.
func (r *Registry) Probe(id uint32) *provider.Probe { return r.probes[id] }

// TypeArgs fills in argument types that Match left out for speed, by the
// providers that do (provider.ArgTyper).
func (r *Registry) TypeArgs(ps []*provider.Probe) {
	byOwner := map[provider.ArgTyper][]*provider.Probe{}
	var order []provider.ArgTyper
	for _, p := range ps {
		t, ok := r.Owner(p).(provider.ArgTyper)
		if !ok {
			continue
		}
		if _, seen := byOwner[t]; !seen {
			order = append(order, t)
		}
		byOwner[t] = append(byOwner[t], p)
	}
	for _, t := range order {
		t.TypeArgs(byOwner[t])
	}
}

// LoadsLate reports whether d can name probes of a provider whose probes
// live in a process's objects (pid, USDT: provider.LateLoader).
func (r *Registry) LoadsLate(d provider.Desc) bool {
	for _, e := range r.entries {
		if l, ok := e.p.(provider.LateLoader); ok && l.Serves(d) {
			return true
		}
	}
	return false
}
