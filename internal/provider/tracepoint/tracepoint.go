// Package tracepoint is the tracepoint provider: every kernel trace event in
// tracefs as tracepoint:<subsystem>::<event>, with the event's fields as
// typed members of args (args->prev_comm, args->nr_sector) read from the
// event's raw record, and arg0..arg9 the first ten integer fields.
//
// Each probe attaches its own perf-event tracepoint (the record layout is
// the event's), so nothing in tracefs is out of reach.
package tracepoint

import (
	"fmt"
	"sort"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/tracefs"
)

// MaxProbes is the size of the provider's probe ID range: events are
// numbered from 0 in tracefs's order.
const MaxProbes = 1 << 16

// Provider implements provider.Provider.
type Provider struct {
	once   sync.Once
	fs     *tracefs.FS
	events []tracefs.Event
	err    error
}

// Name implements provider.Provider.
func (*Provider) Name() string { return "tracepoint" }

func (p *Provider) load() error {
	p.once.Do(func() {
		p.fs, p.err = tracefs.Open()
		if p.err != nil {
			return
		}
		p.events, p.err = p.fs.Events()
	})
	return p.err
}

// typedLimit: records are read from the format files only when a
// description matches at most this many events (listing everything need
// not read two thousand files).
const typedLimit = 64

// Probes implements provider.Provider.
func (p *Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	if !provider.Glob(d.Function, "") {
		return nil, nil
	}
	if err := p.load(); err != nil {
		return nil, fmt.Errorf("the tracepoint provider needs tracefs: %w", tracefs.Explain(err))
	}
	var out []*provider.Probe
	for i, ev := range p.events {
		if i >= MaxProbes {
			break
		}
		if !provider.Glob(d.Module, ev.Subsystem) || !provider.Glob(d.Name, ev.Name) {
			continue
		}
		out = append(out, &provider.Probe{
			ID: uint32(i), Provider: "tracepoint", Module: ev.Subsystem, Name: ev.Name,
			Hook: provider.Hook{Kind: provider.HookTP, Group: ev.Subsystem, Name: ev.Name},
		})
	}
	if len(out) <= typedLimit {
		for _, pr := range out {
			if err := p.Type(pr); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// TypeArgs implements provider.ArgTyper: each probe's record and
// arguments from its format file.
func (p *Provider) TypeArgs(ps []*provider.Probe) {
	for _, pr := range ps {
		_ = p.Type(pr) // a probe whose format cannot be read lists untyped
	}
}

// Type fills in a probe's record and arguments from its format file.
func (p *Provider) Type(pr *provider.Probe) error {
	if pr.Record != nil {
		return nil
	}
	f, err := p.fs.Format(pr.Module, pr.Name)
	if err != nil {
		return fmt.Errorf("tracepoint:%s::%s: %w", pr.Module, pr.Name, err)
	}
	rec, args := Record(f)
	pr.Record, pr.Args = rec, args
	return nil
}

// Record turns an event format into the structure args-> reads and the
// integer arguments arg0..arg9 are loaded from.
func Record(f *tracefs.Format) (*provider.Struct, []provider.Arg) {
	s := &provider.Struct{Name: "struct " + f.Subsystem + "_" + f.Event}
	var args []provider.Arg
	for _, list := range [][]tracefs.Field{f.Common, f.Fields} {
		for _, fd := range list {
			m := provider.Member{Name: fd.Name, Type: fd.Decl(), Off: fd.Offset, Size: fd.Size, Signed: fd.Signed, InHook: true}
			switch {
			case fd.IsDataLoc && isChar(fd.Type):
				m.Kind = provider.MemberDataLoc
			case fd.ArrayLen > 0 && isChar(fd.Type):
				m.Kind = provider.MemberString
			case fd.IsArray() || fd.IsDataLoc || fd.IsRelLoc:
				continue // arrays of non-characters: not readable as one value
			case fd.Size == 1 || fd.Size == 2 || fd.Size == 4 || fd.Size == 8:
				m.Kind = provider.MemberInt
			default:
				continue
			}
			s.Members = append(s.Members, m)
			if m.Kind == provider.MemberInt && len(args) < 10 && !isCommon(fd.Name) {
				args = append(args, provider.Arg{Type: fd.Type, Name: fd.Name})
			}
		}
	}
	return s, args
}

func isChar(t string) bool {
	switch t {
	case "char", "const char", "unsigned char", "u8", "signed char":
		return true
	}
	return false
}

func isCommon(name string) bool {
	return len(name) > 7 && name[:7] == "common_"
}

// ProgramType implements provider.Provider.
func (*Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.TracePoint }

// Prologue implements provider.Provider: the probe ID, and arg0..arg9 from
// the record's first integer fields.
func (p *Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	if len(probes) != 1 {
		return nil, fmt.Errorf("tracepoint %s:%s: one probe per hook expected", h.Group, h.Name)
	}
	pr := probes[0]
	r, ctx := provider.RegScratch, provider.RegCtx
	insns := asm.Instructions{
		provider.StoreImm64(r, provider.CtxProbeID, int32(pr.ID)),
		provider.StoreImm64(r, provider.CtxErrno, 0),
	}
	if !n.AnyArg() {
		return insns, nil
	}
	if err := p.Type(pr); err != nil {
		return nil, err
	}
	var ints []provider.Member
	for _, a := range pr.Args {
		if m, ok := pr.Record.Member(a.Name); ok {
			ints = append(ints, *m)
		}
	}
	for i := 0; i < 10; i++ {
		if !n.Args[i] {
			continue
		}
		if i >= len(ints) {
			insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
			continue
		}
		m := ints[i]
		if m.Off%m.Size != 0 {
			insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
			continue
		}
		insns = append(insns, asm.LoadMem(asm.R0, ctx, int16(m.Off), provider.SizeOf(m.Size)))
		if m.Signed && m.Size < 8 {
			sh := int32(64 - 8*m.Size)
			insns = append(insns, asm.LSh.Imm(asm.R0, sh), asm.ArSh.Imm(asm.R0, sh))
		}
		insns = append(insns, asm.StoreMem(r, int16(provider.CtxArg0+8*i), asm.R0, asm.DWord))
	}
	return insns, nil
}

// Guard implements provider.Provider: one probe per hook, nothing to tell
// apart.
func (*Provider) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}

// Subsystems lists the subsystems that have events (for messages).
func (p *Provider) Subsystems() []string {
	if p.load() != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, ev := range p.events {
		if !seen[ev.Subsystem] {
			seen[ev.Subsystem] = true
			out = append(out, ev.Subsystem)
		}
	}
	sort.Strings(out)
	return out
}
