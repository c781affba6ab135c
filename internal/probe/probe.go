// Package probe is the data that describes probes: what a provider
// publishes (names, argument types, the structures translated arguments
// point to), which kernel hook each fires from, and probe descriptions with
// their globs. It is pure data, shared by the front end, the code
// generator, the plan and the consumer; it imports nothing of BPF.
package probe

import (
	"errors"
	"fmt"
	"path"
	"strings"
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
	// Fd: the member is one of fds[n] (fileinfo_t), read from the struct
	// file of the current process's descriptor n. File is its path from
	// the struct file: each step a pointer followed to the next, except
	// the last step of an integer, read in place; a string member's last
	// step is the char pointer to it. Path, when set, says the member is
	// a path built from the file's dentries instead.
	Fd   bool
	File []FieldStep
	Path FilePath
	// Inet: the member is an IP address written as text where it is
	// used (ipinfo_t.ip_saddr): at Off in the probe context the address
	// (16 bytes, an IPv4 one in the first 4), then its family (u64,
	// AF_INET or AF_INET6).
	Inet bool
}

// FilePath says which path of a file a fileinfo_t member is.
type FilePath int

// File paths.
const (
	PathNone  FilePath = iota
	PathFull           // fi_pathname: the file's path from the process's root
	PathDir            // fi_dirname: the directory's
	PathMount          // fi_mount: the mount point of the file's filesystem
)

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
	HookPerf                   // perf event: the CPU clock every Period ns (profile, tick), or Event every Period events (cpc)
	HookTP                     // perf-event tracepoint Group/Name
	HookUprobe                 // uprobe on Path at Offset (Ret for uretprobe)
	HookBTFTP                  // BTF-typed raw tracepoint (tp_btf) Name
)

// PerfEvent is the event a HookPerf counts (perf_event_open(2)'s type and
// config), and the modes it counts in. Set false is the CPU clock with
// Period in nanoseconds, as profile and tick use it.
type PerfEvent struct {
	Set           bool
	Type          uint32 // PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_HW_CACHE...
	Config        uint64
	ExcludeUser   bool // count only in kernel mode
	ExcludeKernel bool // count only in user mode
}

// Hook identifies one kernel attachment. Probes with the same Hook share one
// BPF program, whose prologue and guards tell them apart.
type Hook struct {
	Kind   HookKind
	Group  string    // tracepoint group
	Name   string    // raw tracepoint / tracepoint name / BEGIN, END, ERROR
	Period uint64    // HookPerf: nanoseconds between events
	AllCPU bool      // HookPerf: on every CPU (profile) or one (tick)
	Event  PerfEvent // HookPerf: the counted event; the zero value is the CPU clock
	Path   string    // HookUprobe
	Offset uint64    // HookUprobe
	Ret    bool      // HookUprobe
	PID    int       // HookUprobe: -1 for all
}

func (h Hook) String() string {
	switch h.Kind {
	case HookRun:
		return "run:" + h.Name
	case HookRawTP:
		return "raw_tp:" + h.Name
	case HookPerf:
		if h.Event.Set {
			e := h.Event
			return fmt.Sprintf("perf:%d:%#x:%d:%v:%v:%v", e.Type, e.Config, h.Period, e.ExcludeUser, e.ExcludeKernel, h.AllCPU)
		}
		return fmt.Sprintf("perf:%dns:%v", h.Period, h.AllCPU)
	case HookTP:
		return "tp:" + h.Group + ":" + h.Name
	case HookBTFTP:
		// Group, when set, is the probe of a provider whose probes each
		// have a program of their own on the tracepoint (onehook.go):
		// proc's create and lwp-create on sched_process_fork need their
		// own prologues
		if h.Group != "" {
			return "tp_btf:" + h.Name + ":" + h.Group
		}
		return "tp_btf:" + h.Name
	case HookUprobe:
		// Name is part of it: the pid provider's entry, return and offset
		// hooks of one process need their own prologues (arguments from
		// the argument registers, or arg1 the return value)
		return fmt.Sprintf("uprobe:%s:%s:%#x:%v:%d", h.Name, h.Path, h.Offset, h.Ret, h.PID)
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
	// Record, when set, is the structure args-> reads (tracepoints).
	Record *Struct
	// Subject says whose thread the probe fires for: 0, the current
	// thread; n, the task_struct pointer in argument n-1 of the hook's
	// BTF tracepoint (sched:::on-cpu fires from sched_switch, in the
	// outgoing thread, for the incoming one). pid, tid, execname and
	// self-> then refer to that thread. SubjectRequest: the thread that
	// made the block request in argument 0 (io:::start), kept from
	// block_io_start in a map keyed by the request.
	Subject int
	// Sites are where a HookUprobe probe is placed (pid and USDT probes:
	// one program per hook serves many sites, told apart by the cookie).
	// A function's return probe has a site at each of its returns.
	Sites []Site
}

// SubjectRequest is the Subject of a probe that fires for the thread that
// made the block request its hook's first argument points to (io:::start
// runs in whichever thread dispatches the queue). The code generator keeps
// each request's maker, from the block_io_start tracepoint, in a map keyed
// by the request; a request it has no maker for (submitted before tracing
// began, or one the block layer makes itself, such as a cache flush) does
// not fire the probe, nor does one the driver requeues, again.
const SubjectRequest = -2

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
