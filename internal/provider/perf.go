package provider

import (
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Offsets in struct bpf_perf_event_data, the context of a perf event
// program (x86-64 pt_regs first).
const (
	perfRegsIP = 128
	perfRegsCS = 136
)

// PerfPCs emits the prologue part of a perf event probe (profile, cpc)
// that fills arg0 with the kernel PC the event interrupted (0 in user
// mode) and arg1 with the user PC (0 in kernel mode), as DTrace gives
// them, when clause code reads them; arg2..arg9 are 0.
func PerfPCs(n Needs) asm.Instructions {
	r := RegScratch
	var insns asm.Instructions
	if n.Args[0] || n.Args[1] {
		// user mode when the low two bits of CS are set
		insns = append(insns,
			asm.LoadMem(asm.R1, RegCtx, perfRegsIP, asm.DWord),
			asm.LoadMem(asm.R2, RegCtx, perfRegsCS, asm.DWord),
			asm.And.Imm(asm.R2, 3),
			StoreImm64(r, CtxArg0, 0),
			StoreImm64(r, CtxArg0+8, 0),
			asm.JEq.Imm(asm.R2, 0, "perf_kernel_pc"),
			asm.StoreMem(r, CtxArg0+8, asm.R1, asm.DWord),
			asm.Ja.Label("perf_pc_done"),
			asm.StoreMem(r, CtxArg0, asm.R1, asm.DWord).WithSymbol("perf_kernel_pc"),
			asm.Mov.Imm(asm.R0, 0).WithSymbol("perf_pc_done"),
		)
	}
	for i := 2; i < 10; i++ {
		if n.Args[i] {
			insns = append(insns, StoreImm64(r, int16(CtxArg0+8*i), 0))
		}
	}
	return insns
}

// PerfPrologue is the prologue of a probe on a perf event of its own
// (profile, tick, cpc): its ID, no errno, and the PCs the clauses read.
func PerfPrologue(p *Probe, n Needs) asm.Instructions {
	insns := asm.Instructions{
		asm.LoadImm(asm.R0, int64(p.ID), asm.DWord),
		asm.StoreMem(RegScratch, CtxProbeID, asm.R0, asm.DWord),
		StoreImm64(RegScratch, CtxErrno, 0),
	}
	return append(insns, PerfPCs(n)...)
}

// PerfProbes are the probes of a provider whose every probe is a perf
// event of its own, made when a description first names it (profile,
// tick, cpc): numbered in the order they are made, found again by name,
// and listed by the globs that come after. Embedded in such a provider,
// it is also its ProgramType, Prologue and Guard. Its user serialises
// the calls.
type PerfProbes struct{ made []*Probe }

// Named returns the probe of provider prov called name, making it on the
// hook hook gives the first time; its arguments are arg0 and arg1, the
// kernel and the user PC.
func (ps *PerfProbes) Named(prov, name string, hook func() (Hook, error)) (*Probe, error) {
	for _, q := range ps.made {
		if q.Name == name {
			return q, nil
		}
	}
	h, err := hook()
	if err != nil {
		return nil, err
	}
	q := &Probe{ID: uint32(len(ps.made)), Provider: prov, Name: name,
		Args: []Arg{{Type: "uintptr_t", Name: "pc"}, {Type: "uintptr_t", Name: "upc"}}, Hook: h}
	ps.made = append(ps.made, q)
	return q, nil
}

// Made reports whether any probe was made yet.
func (ps *PerfProbes) Made() bool { return len(ps.made) > 0 }

// Matching lists the probes made so far that d matches.
func (ps *PerfProbes) Matching(d Desc) []*Probe {
	var out []*Probe
	for _, q := range ps.made {
		if d.Matches(q) {
			out = append(out, q)
		}
	}
	return out
}

// IsGlob reports whether a probe description's field holds a pattern.
func IsGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// ProgramType implements Provider: perf event programs.
func (*PerfProbes) ProgramType(Hook) ebpf.ProgramType { return ebpf.PerfEvent }

// Prologue implements Provider: PerfPrologue.
func (*PerfProbes) Prologue(h Hook, probes []*Probe, n Needs, skip string) (asm.Instructions, error) {
	return PerfPrologue(probes[0], n), nil
}

// Guard implements Provider: each probe has its own hook.
func (*PerfProbes) Guard(Hook, []*Probe, []*Probe, string) asm.Instructions { return nil }
