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
	"fmt"
	"path"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Arg describes one argument of a probe: its native C type and name, and,
// when the provider translates it, the translated type.
type Arg struct {
	Type  string // native type, e.g. "const char *", "size_t"
	Name  string
	XType string // translated type, "" when the same
	// Native is the index of the native argument a translated one
	// (XType set) is translated from: args[i] is xlate<XType>(arg<Native>).
	Native int
	// Struct, when set, is the structure the argument points to
	// (args[i]->member): the provider's prologue fills its members in the
	// probe context, or they are read from the hook's own record.
	Struct *Struct
}

// Struct is a structure whose members clause code reads in place.
type Struct struct {
	Name    string // C spelling: "bufinfo_t", "struct sched_switch"
	Members []Member
}

// Member returns the member called name.
func (s *Struct) Member(name string) (*Member, bool) {
	for i := range s.Members {
		if s.Members[i].Name == name {
			return &s.Members[i], true
		}
	}
	return nil, false
}

// MemberKind says how a member's value is held.
type MemberKind int

// Member kinds.
const (
	MemberInt     MemberKind = iota // an integer of Size bytes
	MemberString                    // a NUL-terminated char array of Size bytes
	MemberDataLoc                   // a tracepoint __data_loc u32 locating a string
)

// Member is one member of a Struct.
type Member struct {
	Name   string
	Type   string // C spelling, for listings and messages
	Kind   MemberKind
	Off    int // from the start of the hook's record (InHook) or of CtxXlate
	Size   int
	Signed bool
	// InHook: the member is in the hook's context record (a tracepoint's
	// raw record, reached through RegCtx); else in the probe context at
	// CtxXlate+Off, where the prologue put it.
	InHook bool
	// Task, when set, says how the member is read from the task_struct
	// of the clause's subject thread instead (curpsinfo, curlwpsinfo):
	// each step a field of a kernel structure, all but the last a
	// pointer followed to the next.
	Task []FieldStep
	// Dmodel: the member is psinfo_t.pr_dmodel, from Task's unsigned
	// long mm->context.flags: its bit 0 (x86's MM_CONTEXT_UPROBE_IA32)
	// is set for 32-bit processes.
	Dmodel bool
	// Psargs: the member is the command line (psinfo_t.pr_psargs), read
	// from the current process's memory.
	Psargs bool
}

// ErrNoProbes is wrapped by a provider's error when a process it was
// asked about has no probes of its kind at all (no USDT notes): -Z makes
// it a description matching nothing, as a later dlopen may bring some.
var ErrNoProbes = errors.New("no probes")

// FieldStep is a member of a kernel structure, for Member.Task.
type FieldStep struct{ Struct, Field string }

// HookKind says how the runtime attaches a program to the kernel.
type HookKind int

// Hook kinds.
const (
	HookRun    HookKind = iota // no kernel hook: run by the consumer (BEGIN, END, ERROR)
	HookRawTP                  // raw tracepoint Name
	HookPerf                   // perf software event (profile/tick): Period ns, CPU -1 = every CPU
	HookTP                     // perf-event tracepoint Group/Name
	HookUprobe                 // uprobe on Path at Offset (Ret for uretprobe)
	HookBTFTP                  // BTF-typed raw tracepoint (tp_btf) Name
)

// Hook identifies one kernel attachment. Probes with the same Hook share one
// BPF program, whose prologue and guards tell them apart.
type Hook struct {
	Kind   HookKind
	Group  string // tracepoint group
	Name   string // raw tracepoint / tracepoint name / BEGIN, END, ERROR
	Period uint64 // HookPerf: nanoseconds between events
	AllCPU bool   // HookPerf: on every CPU (profile) or one (tick)
	Path   string // HookUprobe
	Offset uint64 // HookUprobe
	Ret    bool   // HookUprobe
	PID    int    // HookUprobe: -1 for all
}

func (h Hook) String() string {
	switch h.Kind {
	case HookRun:
		return "run:" + h.Name
	case HookRawTP:
		return "raw_tp:" + h.Name
	case HookPerf:
		return fmt.Sprintf("perf:%dns:%v", h.Period, h.AllCPU)
	case HookTP:
		return "tp:" + h.Group + ":" + h.Name
	case HookBTFTP:
		return "tp_btf:" + h.Name
	case HookUprobe:
		return fmt.Sprintf("uprobe:%s:%#x:%v:%d", h.Path, h.Offset, h.Ret, h.PID)
	}
	return "?"
}

// Probe is one probe a provider publishes.
type Probe struct {
	ID                               uint32
	Provider, Module, Function, Name string
	Args                             []Arg
	Hook                             Hook
	// Sel is the provider's selector within the hook (the syscall number
	// for syscall probes); guards compare against it.
	Sel int64
	// Provider that owns the probe.
	Owner Provider
	// Record, when set, is the structure args-> reads (tracepoints).
	Record *Struct
	// Subject says whose thread the probe fires for: 0, the current
	// thread; n, the task_struct pointer in argument n-1 of the hook's
	// BTF tracepoint (sched:::on-cpu fires from sched_switch, in the
	// outgoing thread, for the incoming one). pid, tid, execname and
	// self-> then refer to that thread.
	Subject int
	// Sites are where a HookUprobe probe is placed (pid and USDT probes:
	// one program per hook serves many sites, told apart by the cookie).
	// A function's return probe has a site at each of its returns.
	Sites []Site
}

// Site is one uprobe placement.
type Site struct {
	Path   string // the object, as the runtime opens it
	Offset uint64 // file offset of the instruction
	RefCtr uint64 // file offset of a USDT semaphore, 0 if none
	PID    int    // the process it is for, 0 for every process
	// Extra is put in the cookie's high 32 bits (the probe ID is in the
	// low 32): a return site's offset in its function.
	Extra uint32
}

// Family is implemented by providers whose names carry a suffix (pid1234,
// python1234): Serves reports whether a probe description could name
// probes of theirs.
type Family interface {
	Serves(d Desc) bool
}

// FullName is provider:module:function:name.
func (p *Probe) FullName() string {
	return p.Provider + ":" + p.Module + ":" + p.Function + ":" + p.Name
}

// Desc is a probe description split into its four fields. Empty fields
// match anything; fields may hold glob patterns (* ? [...]).
type Desc struct {
	Provider, Module, Function, Name string
}

func (d Desc) String() string {
	return d.Provider + ":" + d.Module + ":" + d.Function + ":" + d.Name
}

// Glob reports whether s matches the DTrace glob pattern (empty matches
// anything).
func Glob(pattern, s string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	if !strings.ContainsAny(pattern, "*?[\\") {
		return pattern == s
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// Matches reports whether the probe matches d.
func (d Desc) Matches(p *Probe) bool {
	return Glob(d.Provider, p.Provider) && Glob(d.Module, p.Module) &&
		Glob(d.Function, p.Function) && Glob(d.Name, p.Name)
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
