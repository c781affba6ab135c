// Package provider defines what every probe provider offers the compiler and
// the runtime: the probes it publishes (matched against probe descriptions),
// the types of their arguments, which kernel hook each probe fires from, and
// the BPF prologue that fills the probe context clause code reads.
//
// Providers never load or attach anything: the runtime does that from the
// Hook a probe names. Adding a provider touches its own folder and one line
// in the registry of package providers.
package provider

import (
	"errors"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/probe"
)

// The data types of probes live in package probe; these names keep the
// providers' code short.
type (
	Arg        = probe.Arg
	Struct     = probe.Struct
	MemberKind = probe.MemberKind
	Member     = probe.Member
	FieldStep  = probe.FieldStep
	HookKind   = probe.HookKind
	Hook       = probe.Hook
	PerfEvent  = probe.PerfEvent
	Probe      = probe.Probe
	Site       = probe.Site
	Desc       = probe.Desc
)

// Member kinds and hook kinds, from package probe.
const (
	SubjectRequest = probe.SubjectRequest
	MemberInt      = probe.MemberInt
	MemberString   = probe.MemberString
	MemberDataLoc  = probe.MemberDataLoc
	HookRun        = probe.HookRun
	HookRawTP      = probe.HookRawTP
	HookPerf       = probe.HookPerf
	HookTP         = probe.HookTP
	HookUprobe     = probe.HookUprobe
	HookBTFTP      = probe.HookBTFTP
)

// ErrNoProbes is probe.ErrNoProbes.
var ErrNoProbes = probe.ErrNoProbes

// Glob is probe.Glob.
func Glob(pattern, s string) bool { return probe.Glob(pattern, s) }

// ErrNotSupported is matched (errors.Is) by every error that says the
// running kernel lacks what a provider or feature needs.
var ErrNotSupported = errors.New("not supported by this kernel")

// NotSupportedError names what the kernel lacks and what would serve.
type NotSupportedError struct {
	What string // "the fbt provider"
	Need string // "kprobes (or fentry/fexit)"
	Why  string // how it was found missing ("CONFIG_KPROBES is not set")
	Hint string // what to use instead, "" for nothing
}

func (e *NotSupportedError) Error() string {
	s := e.What + " needs " + e.Need + ", which this kernel lacks"
	if e.Why != "" {
		s += " (" + e.Why + ")"
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Is makes errors.Is(err, ErrNotSupported) true.
func (e *NotSupportedError) Is(target error) bool { return target == ErrNotSupported }

// ArgTyper is implemented by providers that leave argument types out of
// a large match for speed (syscall, tracepoint): TypeArgs fills them in
// for the probes listed with -lv.
type ArgTyper interface {
	TypeArgs(ps []*Probe)
}

// LateLoader is implemented by providers whose probes live in a process's
// objects (pid, USDT): a library the process loads later can bring more
// sites and probes, so a program with such probes is compiled again then.
type LateLoader interface {
	Family
	LoadsLate()
}

// Owners says which provider publishes a probe (the registry of package
// providers): nil for a probe it did not give out.
type Owners interface {
	Owner(p *Probe) Provider
}

// Family is implemented by providers whose names carry a suffix (pid1234,
// python1234): Serves reports whether a probe description could name
// probes of theirs.
type Family interface {
	Serves(d Desc) bool
}

// Context layout: the probe context that every prologue fills at the start
// of the per-CPU scratch area (register R7 holds its address). Clause code
// reads only this, never the hook's own context.
const (
	CtxProbeID   = 0  // u64: the probe ID that fired
	CtxArg0      = 8  // u64 x 10: arg0..arg9
	CtxErrno     = 88 // s64: errno (syscall return), else 0
	CtxTimestamp = 96 // u64: timestamp, cached once per firing
	CtxSel       = 104
	CtxTemp      = 112 // 64 bytes a prologue may use freely
	CtxXlate     = 176 // CtxXlateSize bytes: translated argument structures
	CtxXlateSize = 256
	CtxSize      = CtxXlate + CtxXlateSize
)

// Registers fixed for generated code.
const (
	RegCtx     = asm.R6 // the hook's context (R1 at entry)
	RegScratch = asm.R7 // per-CPU scratch area; the probe context is at its start
)

// Needs tells a prologue what clause code reads, so it can skip the rest.
type Needs struct {
	Args  [10]bool
	Errno bool
}

// Any reports whether any argument is needed.
func (n Needs) AnyArg() bool {
	for _, a := range n.Args {
		if a {
			return true
		}
	}
	return false
}

// Provider is the table of operations every provider implements.
type Provider interface {
	// Name is the provider's name as written in probe descriptions. A
	// provider that serves a family (pid1234, python*) returns its stem.
	Name() string
	// Probes returns the probes matching d, in listing order. An error
	// means the provider cannot serve d (missing kernel feature, bad
	// argument); no match is not an error.
	Probes(d Desc) ([]*Probe, error)
	// ProgramType is the BPF program type for a hook.
	ProgramType(h Hook) ebpf.ProgramType
	// Prologue emits code that fills the probe context for a firing of hook
	// h. On entry RegCtx holds the hook's context and RegScratch the
	// scratch area; the code may jump to label skip to ignore the event.
	// probes are every probe of this hook that some clause enables.
	Prologue(h Hook, probes []*Probe, n Needs, skip string) (asm.Instructions, error)
	// Guard emits code that jumps to label skip unless the probe that
	// fired is one of want (a subset of all, the enabled probes of the hook).
	Guard(h Hook, want, all []*Probe, skip string) asm.Instructions
}

// StoreImm64 emits *(u64 *)(dst + off) = imm (sign-extended 32-bit
// immediate), which cilium/ebpf's asm.StoreImm does not offer for DWord.
func StoreImm64(dst asm.Register, off int16, imm int32) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off, Constant: int64(imm)}
}

// FieldOffset marks a 64-bit constant load whose value must be the offset
// of Struct.Field (a dotted path) in the running kernel: the runtime
// resolves it from the kernel's BTF at load time.
type FieldOffset struct{ Struct, Field string }

type fieldOffsetKey struct{}

// WithFieldOffset marks ins as a FieldOffset constant.
func WithFieldOffset(ins asm.Instruction, structName, field string) asm.Instruction {
	ins.Metadata.Set(fieldOffsetKey{}, FieldOffset{structName, field})
	return ins
}

// FieldOffsetOf returns the FieldOffset mark of ins, if any.
func FieldOffsetOf(ins asm.Instruction) (FieldOffset, bool) {
	fo, ok := ins.Metadata.Get(fieldOffsetKey{}).(FieldOffset)
	return fo, ok
}

type kfuncKey struct{}

// KfuncCall returns a call of the kernel function name (a kfunc such as
// bpf_task_acquire), its BTF ID resolved from the kernel's BTF when the
// program is loaded.
func KfuncCall(name string) asm.Instruction {
	ins := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: -1}
	ins.Metadata.Set(kfuncKey{}, name)
	return ins
}

// KfuncOf returns the name of the kfunc ins calls, if it is a KfuncCall.
func KfuncOf(ins asm.Instruction) (string, bool) {
	name, ok := ins.Metadata.Get(kfuncKey{}).(string)
	return name, ok
}

// ReadTaskField emits code that reads the size-byte field path of the
// task_struct whose address is in r (not R1-R3) into dst+off in the
// scratch area, with bpf_probe_read_kernel; the offset comes from BTF.
func ReadTaskField(r asm.Register, path string, off int16, size int32) asm.Instructions {
	return ReadField(r, "task_struct", path, off, size)
}

// ReadField is ReadTaskField for any kernel structure.
func ReadField(r asm.Register, structName, path string, off int16, size int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R3, r),
		WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), structName, path),
		asm.Add.Reg(asm.R3, asm.R1),
		asm.Mov.Reg(asm.R1, RegScratch),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, size),
		asm.FnProbeReadKernel.Call(),
	}
}

// SizeOf is the load/store size of an n-byte integer (1, 2, 4, else 8).
func SizeOf(n int) asm.Size {
	switch n {
	case 1:
		return asm.Byte
	case 2:
		return asm.Half
	case 4:
		return asm.Word
	}
	return asm.DWord
}
