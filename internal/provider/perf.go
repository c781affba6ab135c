package provider

import "github.com/cilium/ebpf/asm"

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
