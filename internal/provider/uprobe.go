package provider

// uprobe.go serves the providers on uprobes (pid, USDT): every site of a
// hook (all the entry probes of one process, say) shares one program, and
// the kernel hands the program the site's cookie, which holds the probe ID
// in its low 32 bits and the probe's Site.Extra in its high 32.

import (
	"fmt"
	"runtime"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Offsets of the registers in the x86-64 struct pt_regs that a uprobe
// program's context is.
const (
	RegsBP = 32
	RegsAX = 80
	RegsCX = 88
	RegsDX = 96
	RegsSI = 104
	RegsDI = 112
	RegsR8 = 72
	RegsR9 = 64
	RegsIP = 128
	RegsSP = 152
)

// argRegs are the registers of the x86-64 SysV integer arguments.
var argRegs = []int16{RegsDI, RegsSI, RegsDX, RegsCX, RegsR8, RegsR9}

// UprobeArch reports an error unless the machine's calling convention
// is known to the uprobe prologues.
func UprobeArch() error {
	if runtime.GOARCH != "amd64" {
		return fmt.Errorf("user-level probes are not supported on %s yet", runtime.GOARCH)
	}
	return nil
}

// UprobeProgramType implements Provider.ProgramType for uprobe hooks.
func UprobeProgramType(Hook) ebpf.ProgramType { return ebpf.Kprobe }

// UprobeStart emits the common start of a uprobe prologue: the probe ID
// from the cookie into CtxProbeID and CtxSel, errno zeroed; R9 keeps the
// whole cookie.
func UprobeStart() asm.Instructions {
	r := RegScratch
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, RegCtx),
		asm.FnGetAttachCookie.Call(),
		asm.Mov.Reg(asm.R9, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.LSh.Imm(asm.R1, 32),
		asm.RSh.Imm(asm.R1, 32),
		asm.StoreMem(r, CtxProbeID, asm.R1, asm.DWord),
		asm.StoreMem(r, CtxSel, asm.R1, asm.DWord),
		StoreImm64(r, CtxErrno, 0),
	}
}

// FunctionArgs emits the loads of the integer arguments a function was
// called with, at its entry (or anywhere the registers still hold them):
// arg0-arg5 from their registers, arg6-arg9 from the caller's stack.
func FunctionArgs(n Needs) asm.Instructions {
	var insns asm.Instructions
	for i := 0; i < 10; i++ {
		off := int16(CtxArg0 + 8*i)
		if !n.Args[i] {
			insns = append(insns, StoreImm64(RegScratch, off, 0))
			continue
		}
		if i < len(argRegs) {
			insns = append(insns,
				asm.LoadMem(asm.R0, RegCtx, argRegs[i], asm.DWord),
				asm.StoreMem(RegScratch, off, asm.R0, asm.DWord))
			continue
		}
		// [sp] is the return address; the seventh argument is above it.
		insns = append(insns, StoreImm64(RegScratch, off, 0),
			asm.LoadMem(asm.R3, RegCtx, RegsSP, asm.DWord),
			asm.Add.Imm(asm.R3, int32(8*(i-len(argRegs)+1))),
			asm.Mov.Reg(asm.R1, RegScratch),
			asm.Add.Imm(asm.R1, int32(off)),
			asm.Mov.Imm(asm.R2, 8),
			asm.FnProbeReadUser.Call())
	}
	return insns
}

// ReturnArgs emits DTrace's return-probe arguments: arg0 the offset of the
// return site in its function (the cookie's high half), arg1 the return
// value.
func ReturnArgs() asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R0, asm.R9),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(RegScratch, CtxArg0, asm.R0, asm.DWord),
		asm.LoadMem(asm.R0, RegCtx, RegsAX, asm.DWord),
		asm.StoreMem(RegScratch, CtxArg0+8, asm.R0, asm.DWord),
	}
	for i := 2; i < 10; i++ {
		insns = append(insns, StoreImm64(RegScratch, int16(CtxArg0+8*i), 0))
	}
	return insns
}

// UprobeGuard implements Provider.Guard for uprobe hooks: the probe ID is
// compared with each wanted one (nothing when every probe is wanted).
func UprobeGuard(_ Hook, want, all []*Probe, skip string) asm.Instructions {
	if len(want) == len(all) {
		return nil
	}
	ids := make([]int, len(want))
	for i, p := range want {
		ids[i] = int(p.ID)
	}
	sort.Ints(ids)
	ok := fmt.Sprintf("%s_g%d", skip, ids[0])
	var insns asm.Instructions
	insns = append(insns, asm.LoadMem(asm.R1, RegScratch, CtxProbeID, asm.DWord))
	if len(ids) > 16 && ids[len(ids)-1]-ids[0] == len(ids)-1 {
		// a contiguous range
		return append(insns,
			asm.JLT.Imm(asm.R1, int32(ids[0]), skip),
			asm.JGT.Imm(asm.R1, int32(ids[len(ids)-1]), skip))
	}
	for _, id := range ids {
		insns = append(insns, asm.JEq.Imm(asm.R1, int32(id), ok))
	}
	return append(insns, asm.Ja.Label(skip), asm.Mov.Reg(asm.R1, asm.R1).WithSymbol(ok))
}
