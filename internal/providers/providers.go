// Package providers is the registry of probe providers. It gives every
// probe a stable ID (BEGIN, END and ERROR are 1, 2 and 3; then each
// provider's probes in a fixed range) and matches probe descriptions for
// the checker and for -l.
package providers

import (
	"cmp"
	"errors"
	"os"
	"sort"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/dtrace"
	"github.com/sonde-trace/sonde/internal/provider/fbt"
	"github.com/sonde-trace/sonde/internal/provider/io"
	"github.com/sonde-trace/sonde/internal/provider/pid"
	"github.com/sonde-trace/sonde/internal/provider/proc"
	"github.com/sonde-trace/sonde/internal/provider/profile"
	"github.com/sonde-trace/sonde/internal/provider/sched"
	"github.com/sonde-trace/sonde/internal/provider/syscall"
	"github.com/sonde-trace/sonde/internal/provider/tracepoint"
	"github.com/sonde-trace/sonde/internal/provider/usdtprov"
)

type entry struct {
	p    provider.Provider
	base uint32
}

// Registry holds the providers of one session.
type Registry struct {
	tp      *tracepoint.Provider
	entries []entry
	probes  map[uint32]*provider.Probe
}

// New returns a registry with every provider.
func New() *Registry {
	r := &Registry{probes: map[uint32]*provider.Probe{}, tp: &tracepoint.Provider{}}
	next := uint32(1)
	add := func(p provider.Provider, n uint32) {
		r.entries = append(r.entries, entry{p, next})
		next += n
	}
	add(dtrace.Provider{}, 3)
	add(syscall.Provider{}, syscall.NumLocal())
	add(sched.Provider{}, sched.NumLocal())
	add(proc.Provider{}, proc.NumLocal())
	add(io.Provider{}, io.NumLocal())
	add(r.tp, tracepoint.MaxProbes)
	add(&profile.Provider{}, 1<<20)
	add(&pid.Provider{}, pid.MaxProbes)
	add(&usdtprov.Provider{}, usdtprov.MaxProbes)
	add(fbt.Provider{}, 0)
	return r
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
		} else if !provider.Glob(d.Provider, e.p.Name()) && !(e.p.Name() == "dtrace" && d.Provider == "") {
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
			out = append(out, r.intern(e, p))
		}
	}
	if len(out) == 0 && denied != nil {
		return nil, denied
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// intern gives p its global ID and returns the one probe of that ID.
func (r *Registry) intern(e entry, p *provider.Probe) *provider.Probe {
	id := e.base + p.ID
	if q, ok := r.probes[id]; ok {
		if q.Args == nil && p.Args != nil {
			q.Args = p.Args
		}
		if q.Record == nil && p.Record != nil {
			q.Record = p.Record
		}
		return q
	}
	q := *p
	q.ID = id
	r.probes[id] = &q
	return &q
}

// Probe returns the probe of an ID seen by Match.
func (r *Registry) Probe(id uint32) *provider.Probe { return r.probes[id] }

// TypeArgs fills in argument types that Match left out for speed.
func (r *Registry) TypeArgs(ps []*provider.Probe) {
	var sc []*provider.Probe
	for _, p := range ps {
		if p.Provider == "syscall" && p.Args == nil {
			sc = append(sc, p)
		}
	}
	syscall.Provider{}.TypeArgs(sc)
	for _, p := range ps {
		if p.Provider == "tracepoint" && p.Record == nil {
			r.tp.Type(p)
		}
	}
}
