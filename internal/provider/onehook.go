package provider

// onehook.go serves the providers whose probes each have a hook of their
// own on a BTF tracepoint (sched, proc, io): several programs may share a
// tracepoint, so that one firing of sched_switch runs the on-cpu and the
// off-cpu clauses each once, with their own probe IDs.

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// HookProbe describes one such probe.
type HookProbe struct {
	Name       string // the probe's name (on-cpu)
	Tracepoint string // the BTF tracepoint it fires from (sched_switch)
	Args       []Arg
	Subject    int // Probe.Subject
}

// HookProbes returns the probes of provider prov described by defs that
// match d; defs[i] has the local ID i.
func HookProbes(owner Provider, defs []HookProbe, d Desc) []*Probe {
	var out []*Probe
	for i, def := range defs {
		p := &Probe{ID: uint32(i), Provider: owner.Name(), Function: def.Tracepoint, Name: def.Name,
			Hook: Hook{Kind: HookBTFTP, Name: def.Tracepoint, Group: def.Name},
			Args: def.Args, Subject: def.Subject}
		if d.Matches(p) {
			out = append(out, p)
		}
	}
	return out
}

// OneProbePerHook implements the ProgramType and Guard of such providers:
// BTF tracepoint programs, and nothing to tell apart in a program.
type OneProbePerHook struct{}

// ProgramType implements Provider.
func (OneProbePerHook) ProgramType(Hook) ebpf.ProgramType { return ebpf.Tracing }

// Guard implements Provider.
func (OneProbePerHook) Guard(Hook, []*Probe, []*Probe, string) asm.Instructions { return nil }

// PrologueStart stores the probe ID, a zero errno and zero arguments (all
// ten, so that a prologue may fill some of them after).
func PrologueStart(id uint32) asm.Instructions {
	insns := asm.Instructions{
		StoreImm64(RegScratch, CtxProbeID, int32(id)),
		StoreImm64(RegScratch, CtxErrno, 0),
	}
	for i := 0; i < 10; i++ {
		insns = append(insns, StoreImm64(RegScratch, int16(CtxArg0+8*i), 0))
	}
	return insns
}

// HookArg32 copies the 32-bit argument i of the BTF tracepoint into the
// probe context at off, sign- or zero-extended to 64 bits.
func HookArg32(i int, off int16, signed bool) asm.Instructions {
	insns := asm.Instructions{asm.LoadMem(asm.R0, RegCtx, int16(8*i), asm.DWord), asm.LSh.Imm(asm.R0, 32)}
	if signed {
		insns = append(insns, asm.ArSh.Imm(asm.R0, 32))
	} else {
		insns = append(insns, asm.RSh.Imm(asm.R0, 32))
	}
	return append(insns, asm.StoreMem(RegScratch, off, asm.R0, asm.DWord))
}
