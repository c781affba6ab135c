package check

import (
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/value"
)

// BuiltinVarID names a built-in variable for the code generator.
type BuiltinVarID int

// Built-in variables.
const (
	BArg0 BuiltinVarID = iota // arg0..arg9 are BArg0+N
	BArg1
	BArg2
	BArg3
	BArg4
	BArg5
	BArg6
	BArg7
	BArg8
	BArg9
	BArgs // args[] (the Ident of an args[N] expression)
	BExecname
	BPid
	BPpid
	BTid
	BUid
	BGid
	BCpu
	BTimestamp
	BVtimestamp
	BWalltimestamp
	BProbeprov
	BProbemod
	BProbefunc
	BProbename
	BErrno
	BCurthread
	BID
	BEpid
	BStackdepth
	BUstackdepth
	BCaller
	BUcaller
	BUregs
	BCurpsinfo
	BCurlwpsinfo
	BCurcpu
)

// BuiltinVar is a built-in variable.
type BuiltinVar struct {
	Name string
	ID   BuiltinVarID
	Type *Type
}

var builtinVars = map[string]*BuiltinVar{}

func init() {
	add := func(name string, id BuiltinVarID, t *Type) {
		builtinVars[name] = &BuiltinVar{Name: name, ID: id, Type: t}
	}
	for i := 0; i < 10; i++ {
		add("arg"+string(rune('0'+i)), BArg0+BuiltinVarID(i), TLong)
	}
	add("args", BArgs, TLong)
	add("execname", BExecname, StringType(16))
	add("pid", BPid, &Type{Kind: Int, Size: 4, Signed: true, Name: "pid_t"})
	add("ppid", BPpid, &Type{Kind: Int, Size: 4, Signed: true, Name: "pid_t"})
	add("tid", BTid, &Type{Kind: Int, Size: 4, Signed: true, Name: "id_t"})
	add("uid", BUid, &Type{Kind: Int, Size: 4, Name: "uid_t"})
	add("gid", BGid, &Type{Kind: Int, Size: 4, Name: "gid_t"})
	add("cpu", BCpu, &Type{Kind: Int, Size: 4, Signed: true, Name: "processorid_t"})
	add("timestamp", BTimestamp, TUlong)
	add("vtimestamp", BVtimestamp, TUlong)
	add("walltimestamp", BWalltimestamp, TLong)
	add("probeprov", BProbeprov, &Type{Kind: String, Size: 64, Name: "string", Repr: StrProbeProv})
	add("probemod", BProbemod, &Type{Kind: String, Size: 64, Name: "string", Repr: StrProbeMod})
	add("probefunc", BProbefunc, &Type{Kind: String, Size: 128, Name: "string", Repr: StrProbeFunc})
	add("probename", BProbename, &Type{Kind: String, Size: 64, Name: "string", Repr: StrProbeName})
	add("errno", BErrno, TInt)
	add("curthread", BCurthread, &Type{Kind: Pointer, Size: 8, Elem: TVoid, Name: "struct task_struct *"})
	add("curpsinfo", BCurpsinfo, structPtr(probe.CurPsinfoT))
	add("curlwpsinfo", BCurlwpsinfo, structPtr(probe.CurLwpsinfoT))
	add("id", BID, TUint)
	add("epid", BEpid, TUint)
	add("stackdepth", BStackdepth, TUint)
	add("ustackdepth", BUstackdepth, TUint)
	add("caller", BCaller, TUlong)
	add("ucaller", BUcaller, TUlong)
	add("uregs", BUregs, TUlong)
	add("curcpu", BCurcpu, &Type{Kind: Pointer, Size: 8, Elem: CpuinfoT, Name: "cpuinfo_t *"})
}

// CpuinfoT is curcpu's type, cpuinfo_t as Oracle's Linux DTrace defines
// it (the guide's sched provider, less illumos's processor_info_t
// cpu_info, which Linux has no counterpart for).
var CpuinfoT = &Type{Kind: Struct, Name: "cpuinfo_t", Size: 16, Align: 4, Fields: []*Field{
	{Name: "cpu_id", Type: &Type{Kind: Int, Size: 4, Signed: true, Name: "processorid_t"}, Offset: 0},
	{Name: "cpu_pset", Type: &Type{Kind: Int, Size: 4, Signed: true, Name: "psetid_t"}, Offset: 4},
	{Name: "cpu_chip", Type: &Type{Kind: Int, Size: 4, Signed: true, Name: "chipid_t"}, Offset: 8},
	{Name: "cpu_lgrp", Type: &Type{Kind: Int, Size: 4, Signed: true, Name: "lgrp_id_t"}, Offset: 12},
}}

// LookupBuiltinVar returns the built-in variable name, or nil.
func LookupBuiltinVar(name string) *BuiltinVar { return builtinVars[name] }

// BuiltinKind classifies built-in functions.
type BuiltinKind int

// Built-in function kinds.
const (
	Action  BuiltinKind = iota // statement only; records data or acts
	Subr                       // subroutine with a value
	AggFunc                    // aggregating function (right side of @a = ...)
)

// Builtin is a built-in function.
type Builtin struct {
	Name        string
	Kind        BuiltinKind
	Min, Max    int // argument counts; Max -1 means variadic
	Destructive bool
	Agg         value.AggFunc
}

var builtins = map[string]*Builtin{}

func init() {
	add := func(name string, k BuiltinKind, min, max int) *Builtin {
		b := &Builtin{Name: name, Kind: k, Min: min, Max: max}
		builtins[name] = b
		return b
	}
	// Actions.
	add("printf", Action, 1, -1)
	add("printa", Action, 0, -1) // these check their own arguments (dt_action_*)
	add("trace", Action, 1, 1)
	add("tracemem", Action, 2, 3)
	add("exit", Action, 1, 1)
	add("clear", Action, 0, -1)
	add("trunc", Action, 0, -1)
	add("normalize", Action, 0, -1)
	add("denormalize", Action, 0, -1)
	add("setopt", Action, 1, 2)
	add("speculate", Action, 1, 1)
	add("commit", Action, 1, 1)
	add("discard", Action, 1, 1)
	add("system", Action, 1, -1).Destructive = true
	add("raise", Action, 1, 1).Destructive = true
	add("stop", Action, 0, 0).Destructive = true
	add("chill", Action, 1, 1).Destructive = true
	add("freopen", Action, 1, -1).Destructive = true
	add("copyout", Subr, 3, 3).Destructive = true
	add("copyoutstr", Subr, 3, 3).Destructive = true
	add("ftruncate", Action, 0, 0)
	// Subroutines.
	add("copyin", Subr, 2, 2)
	add("copyinstr", Subr, 1, 2)
	add("stringof", Subr, 1, 1)
	add("strlen", Subr, 1, 1)
	add("strjoin", Subr, 2, 2)
	add("strchr", Subr, 2, 2)
	add("strrchr", Subr, 2, 2)
	add("strstr", Subr, 2, 2)
	add("strtok", Subr, 2, 2)
	add("cleanpath", Subr, 1, 1)
	add("substr", Subr, 2, 3)
	add("index", Subr, 2, 3)
	add("rindex", Subr, 2, 3)
	add("basename", Subr, 1, 1)
	add("dirname", Subr, 1, 1)
	add("lltostr", Subr, 1, 2)
	add("strtoll", Subr, 1, 2)
	add("toupper", Subr, 1, 1)
	add("tolower", Subr, 1, 1)
	add("htons", Subr, 1, 1)
	add("htonl", Subr, 1, 1)
	add("htonll", Subr, 1, 1)
	add("ntohs", Subr, 1, 1)
	add("ntohl", Subr, 1, 1)
	add("ntohll", Subr, 1, 1)
	add("inet_ntoa", Subr, 1, 1)
	add("inet_ntop", Subr, 2, 2)
	add("inet_ntoa6", Subr, 1, 1)
	add("copyinto", Subr, 3, 3)
	add("bcopy", Subr, 3, 3)
	add("alloca", Subr, 1, 1)
	add("rand", Subr, 0, 0)
	add("progenyof", Subr, 1, 1)
	add("speculation", Subr, 0, 0)
	// Oracle's prototypes, stack([uint32_t]): too many arguments are
	// D_PROTO_LEN (illumos's stack(...) has D_STACK_PROTO say it)
	add("stack", Subr, 0, 1)
	add("ustack", Subr, 0, 2)
	add("jstack", Subr, 0, 2)
	add("sym", Subr, 1, 1)
	add("func", Subr, 1, 1)
	add("usym", Subr, 1, 1)
	add("ufunc", Subr, 1, 1)
	add("mod", Subr, 1, 1)
	add("umod", Subr, 1, 1)
	add("uaddr", Subr, 1, 1)
	add("getmajor", Subr, 1, 1)
	add("getminor", Subr, 1, 1)
	// Aggregating functions.
	for _, a := range []struct {
		name     string
		f        value.AggFunc
		min, max int
	}{
		{"count", value.Count, 0, 0}, {"sum", value.Sum, 1, 1}, {"avg", value.Avg, 1, 1},
		{"min", value.Min, 1, 1}, {"max", value.Max, 1, 1}, {"stddev", value.Stddev, 1, 1},
		{"quantize", value.Quantize, 1, 2}, {"lquantize", value.Lquantize, 3, 5},
		{"llquantize", value.Llquantize, 5, 6},
	} {
		add(a.name, AggFunc, a.min, a.max).Agg = a.f
	}
}

// LookupBuiltin returns the built-in function name, or nil.
func LookupBuiltin(name string) *Builtin { return builtins[name] }
