package provider

// xlate.go holds the translated structures that several providers give
// their arguments (DTrace's lwpsinfo_t, psinfo_t, bufinfo_t, devinfo_t),
// with the members Linux can fill, and the prologue code that fills them in
// the probe context's translated area from a task_struct or a request.
//
// Members DTrace documents that Linux cannot fill are absent, so that using
// one is a compile-time error naming it, not a silent zero.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/probe"
)

// Offsets in the translated area and the structures, from package probe.
const (
	XlateLwp  = probe.XlateLwp
	XlatePs   = probe.XlatePs
	XlateBuf  = probe.XlateBuf
	XlateDev  = probe.XlateDev
	XlateFile = probe.XlateFile
	XlateInt  = probe.XlateInt
)

// The translated structures of package probe.
var (
	LwpsinfoT    = probe.LwpsinfoT
	PsinfoT      = probe.PsinfoT
	CurPsinfoT   = probe.CurPsinfoT
	CurLwpsinfoT = probe.CurLwpsinfoT
)

// FillTask emits code filling lwpsinfo_t and psinfo_t from the task_struct
// pointer in r (R8 or R9: R0-R5 are clobbered).
func FillTask(r asm.Register) asm.Instructions {
	x := int16(CtxXlate)
	var insns asm.Instructions
	insns = append(insns, ReadTaskField(r, "pid", x+XlateLwp, 4)...)
	insns = append(insns, ReadTaskField(r, "prio", x+XlateLwp+4, 4)...)
	insns = append(insns, ReadTaskField(r, "thread_info.cpu", x+XlateLwp+8, 4)...)
	insns = append(insns, ReadTaskField(r, "tgid", x+XlatePs, 4)...)
	insns = append(insns, ReadTaskField(r, "comm", x+XlatePs+16, 16)...)
	// the parent: real_parent->tgid, through a temporary
	insns = append(insns, ReadTaskField(r, "real_parent", CtxTemp, 8)...)
	insns = append(insns, asm.LoadMem(asm.R4, RegScratch, CtxTemp, asm.DWord))
	insns = append(insns, ReadTaskField(asm.R4, "tgid", x+XlatePs+4, 4)...)
	// credentials: cred->uid, cred->gid
	insns = append(insns, ReadTaskField(r, "cred", CtxTemp, 8)...)
	insns = append(insns, asm.LoadMem(asm.R4, RegScratch, CtxTemp, asm.DWord))
	insns = append(insns, ReadField(asm.R4, "cred", "uid", x+XlatePs+8, 4)...)
	insns = append(insns, asm.LoadMem(asm.R4, RegScratch, CtxTemp, asm.DWord))
	insns = append(insns, ReadField(asm.R4, "cred", "gid", x+XlatePs+12, 4)...)
	return insns
}

// FillTaskArg emits code filling lwpsinfo_t and psinfo_t from the
// task_struct pointer in argument i of the BTF tracepoint.
func FillTaskArg(i int) asm.Instructions {
	insns := asm.Instructions{asm.LoadMem(asm.R8, RegCtx, int16(8*i), asm.DWord)}
	insns = append(insns, Clear(0, XlateBuf)...)
	return append(insns, FillTask(asm.R8)...)
}

// Clear emits code zeroing n bytes of the translated area from off.
func Clear(off, n int) asm.Instructions {
	var insns asm.Instructions
	for i := 0; i < n; i += 8 {
		insns = append(insns, StoreImm64(RegScratch, int16(CtxXlate+off+i), 0))
	}
	return insns
}
