// Package syscall is the syscall provider: syscall::<name>:entry and
// :return for every system call, served by one raw tracepoint pair
// (raw_syscalls:sys_enter and sys_exit) whatever the number of calls
// enabled. The syscall number is matched in BPF by a compare tree built at
// compile time, so unwanted calls cost a few instructions.
package syscall

import (
	"fmt"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/syscalls"
)

// Provider is the syscall provider.
type Provider struct{}

// Name implements provider.Provider.
func (Provider) Name() string { return "syscall" }

// NumLocal is how many probe IDs the provider reserves: an entry and a
// return for each native number, then for each compat-only call.
func NumLocal() uint32 { return uint32(2 * (maxSel() + 1)) }

// compatOnly returns the compat calls that no native call is named after
// (i386's socketcall, mmap2, getuid32, _llseek...), in number order. The
// k-th has the probes of selector MaxNr()+1+k.
func compatOnly() []syscalls.Syscall {
	ct := syscalls.Compat()
	if ct == nil {
		return nil
	}
	var out []syscalls.Syscall
	for _, c := range ct.All() {
		if n, ok := syscalls.Native().Lookup(c.Name); !ok || n.Name != c.Name {
			out = append(out, c)
		}
	}
	return out
}

// maxSel is the highest selector: a native call's number, or past them,
// a compat-only call's place.
func maxSel() int { return syscalls.Native().MaxNr() + len(compatOnly()) }

// typedLimit: argument types are read from tracefs only when a description
// matches this many probes or fewer (args[] of many different calls cannot
// be typed anyway, and reading hundreds of format files costs start-up).
const typedLimit = 32

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	if !provider.Glob(d.Provider, "syscall") || !provider.Glob(d.Module, "") && !provider.Glob(d.Module, "vmlinux") {
		return nil, nil
	}
	var out []*provider.Probe
	add := func(name string, sel int) {
		if !provider.Glob(d.Function, name) {
			return
		}
		for ret, pname := range []string{"entry", "return"} {
			if !provider.Glob(d.Name, pname) {
				continue
			}
			hook := "sys_enter"
			if ret == 1 {
				hook = "sys_exit"
			}
			out = append(out, &provider.Probe{
				ID: uint32(2*sel + ret), Provider: "syscall", Function: name, Name: pname,
				Hook: provider.Hook{Kind: provider.HookRawTP, Name: hook}, Sel: int64(sel),
			})
		}
	}
	for _, c := range syscalls.Native().All() {
		add(c.Name, c.Nr)
	}
	for k, c := range compatOnly() {
		add(c.Name, syscalls.Native().MaxNr()+1+k)
	}
	if len(out) <= typedLimit {
		p.TypeArgs(out)
	}
	return out, nil
}

// TypeArgs implements provider.ArgTyper: argument types from tracefs, for
// the probes that have none yet.
func (Provider) TypeArgs(ps []*provider.Probe) {
	for _, pr := range ps {
		if pr.Args != nil {
			continue
		}
		proto, err := syscalls.LookupProto(pr.Function)
		if err != nil {
			continue
		}
		if pr.Name == "entry" {
			for _, a := range proto.Args {
				pr.Args = append(pr.Args, provider.Arg{Type: a.Type, Name: a.Name})
			}
		} else {
			pr.Args = []provider.Arg{{Type: proto.Ret.Type, Name: "ret"}, {Type: proto.Ret.Type, Name: "ret"}}
		}
	}
}

// ProgramType implements provider.Provider.
func (Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.RawTracepoint }

// x86-64 struct pt_regs offsets.
const (
	regsBP     = 32
	regsBX     = 40
	regsR10    = 56
	regsR9     = 64
	regsR8     = 72
	regsCX     = 88
	regsDX     = 96
	regsSI     = 104
	regsDI     = 112
	regsOrigAX = 120
)

func nrs(ps []*provider.Probe) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, p := range ps {
		if !seen[p.Sel] {
			seen[p.Sel] = true
			out = append(out, p.Sel)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// compatPairs returns, sorted by compat number, the compat number and
// selector of each enabled selector that a compat call has: a 32-bit call
// fires the probes of the native call of the same name, or its own.
func compatPairs(sels []int64) [][2]int64 {
	ct := syscalls.Compat()
	if ct == nil {
		return nil
	}
	only := compatOnly()
	max := int64(syscalls.Native().MaxNr())
	var out [][2]int64
	for _, sel := range sels {
		if sel > max {
			out = append(out, [2]int64{int64(only[sel-max-1].Nr), sel})
			continue
		}
		n, ok := syscalls.Native().ByNumber(int(sel))
		if !ok {
			continue
		}
		if c, ok := ct.Lookup(n.Name); ok && c.Name == n.Name {
			out = append(out, [2]int64{int64(c.Nr), sel})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// natives returns the selectors of sels that are native numbers.
func natives(sels []int64) []int64 {
	var out []int64
	for _, s := range sels {
		if s <= int64(syscalls.Native().MaxNr()) {
			out = append(out, s)
		}
	}
	return out
}

// Prologue implements provider.Provider.
//
// The tracepoints give a call's number in the table of the calling mode: a
// 32-bit call (TS_COMPAT set) has i386's numbers, which name other calls
// in amd64's table (i386's getpid is amd64's writev). Such a call fires
// the probes of the native call of the same name, or, with no native
// namesake (socketcall, mmap2, getuid32...), its own; its arguments are
// read from i386's registers (ebx, ecx, edx, esi, edi, ebp, zero-extended).
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	r, ctx := provider.RegScratch, provider.RegCtx
	base := int64(probes[0].ID) - 2*probes[0].Sel // ID of syscall 0's entry
	if probes[0].Name == "return" {
		base--
	}
	entry := h.Name == "sys_enter"
	if !entry {
		base++
	}
	var insns asm.Instructions
	if entry {
		insns = append(insns, asm.LoadMem(asm.R1, ctx, 8, asm.DWord)) // id
	} else {
		// sys_exit has no id argument: read regs->orig_ax.
		insns = append(insns,
			asm.LoadMem(asm.R3, ctx, 0, asm.DWord),
			asm.Add.Imm(asm.R3, regsOrigAX),
			asm.Mov.Reg(asm.R1, r),
			asm.Add.Imm(asm.R1, provider.CtxSel),
			asm.Mov.Imm(asm.R2, 8),
			asm.FnProbeReadKernel.Call(),
			asm.JNE.Imm(asm.R0, 0, skip),
			asm.LoadMem(asm.R1, r, provider.CtxSel, asm.DWord),
		)
	}
	insns = append(insns, asm.StoreMem(r, provider.CtxSel, asm.R1, asm.DWord))
	// Ignore calls no clause enables. Each path is emitted only if some
	// call can take it: the verifier refuses unreachable code.
	all := nrs(probes)
	nat, pairs := natives(all), compatPairs(all)
	if syscalls.Compat() != nil {
		compat := "sc_compat"
		if len(pairs) == 0 {
			compat = skip
		}
		insns = append(insns, compatCheck(compat)...)
	}
	switch {
	case len(nat) == 0:
		insns = append(insns, asm.Ja.Label(skip))
	case len(nat) < syscalls.Native().MaxNr():
		insns = append(insns, tree(asm.R1, nat, skip, "sc_in")...)
	default:
		insns = append(insns, asm.JGT.Imm(asm.R1, int32(syscalls.Native().MaxNr()), skip))
	}
	if len(nat) > 0 {
		insns = append(insns, probeID(r, base, entry, n, false)...)
	}
	if len(pairs) > 0 {
		if len(nat) > 0 {
			insns = append(insns, asm.Ja.Label("sc_done"))
		}
		insns = append(insns, asm.LoadMem(asm.R1, r, provider.CtxSel, asm.DWord).WithSymbol("sc_compat"))
		insns = append(insns, translate(asm.R1, pairs, skip, "sc_tr")...)
		insns = append(insns, asm.StoreMem(r, provider.CtxSel, asm.R1, asm.DWord))
		insns = append(insns, probeID(r, base, entry, n, true)...)
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("sc_done"))
	if entry {
		return insns, nil
	}
	insns = append(insns,
		asm.LoadMem(asm.R0, ctx, 8, asm.DWord), // ret
		asm.StoreMem(r, provider.CtxArg0, asm.R0, asm.DWord),
		asm.StoreMem(r, provider.CtxArg0+8, asm.R0, asm.DWord),
		provider.StoreImm64(r, provider.CtxErrno, 0),
		asm.JSGE.Imm(asm.R0, 0, "sc_noerr"),
		asm.JSLT.Imm(asm.R0, -4095, "sc_noerr"),
		asm.Neg.Imm(asm.R0, 0),
		asm.StoreMem(r, provider.CtxErrno, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("sc_noerr"),
	)
	for i := 2; i < 10; i++ {
		if n.Args[i] {
			insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
		}
	}
	return insns, nil
}

// compatCheck emits code that jumps to compat when the current thread is
// in a 32-bit system call, and otherwise falls through with R1 holding the
// number stored at CtxSel.
func compatCheck(compat string) asm.Instructions {
	return append(provider.JumpIfCompatSyscall(compat),
		asm.LoadMem(asm.R1, provider.RegScratch, provider.CtxSel, asm.DWord))
}

// probeID emits code that stores the ID of the probe of the native call
// number in R1 and, at entry, clears errno and fills the arguments the
// clauses read from the registers of the call's mode.
func probeID(r asm.Register, base int64, entry bool, n provider.Needs, compat bool) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R0, asm.R1),
		asm.LSh.Imm(asm.R0, 1),
		asm.Add.Imm(asm.R0, int32(base)),
		asm.StoreMem(r, provider.CtxProbeID, asm.R0, asm.DWord),
	}
	if !entry {
		return insns
	}
	insns = append(insns, provider.StoreImm64(r, provider.CtxErrno, 0))
	if !n.AnyArg() {
		return insns
	}
	ctx := provider.RegCtx
	read := func(from, n int32, to int16) asm.Instructions {
		return asm.Instructions{
			asm.LoadMem(asm.R3, ctx, 0, asm.DWord),
			asm.Add.Imm(asm.R3, from),
			asm.Mov.Reg(asm.R1, r),
			asm.Add.Imm(asm.R1, int32(to)),
			asm.Mov.Imm(asm.R2, n),
			asm.FnProbeReadKernel.Call(),
		}
	}
	if compat {
		// bp, bx at 32..48 to CtxTemp; cx, dx, si, di at 88..120 to CtxTemp+16.
		insns = append(insns, read(regsBP, 16, provider.CtxTemp)...)
		insns = append(insns, read(regsCX, 32, provider.CtxTemp+16)...)
		at := map[int16]int16{regsBP: 0, regsBX: 8, regsCX: 16, regsDX: 24, regsSI: 32, regsDI: 40}
		for i, reg := range []int16{regsBX, regsCX, regsDX, regsSI, regsDI, regsBP} {
			insns = append(insns,
				asm.LoadMem(asm.R0, r, provider.CtxTemp+at[reg], asm.Word),
				asm.StoreMem(r, int16(provider.CtxArg0+8*i), asm.R0, asm.DWord))
		}
	} else {
		insns = append(insns, read(regsR10, 64, provider.CtxTemp)...)
		for i, off := range []int16{regsDI, regsSI, regsDX, regsR10, regsR8, regsR9} {
			insns = append(insns,
				asm.LoadMem(asm.R0, r, provider.CtxTemp+off-regsR10, asm.DWord),
				asm.StoreMem(r, int16(provider.CtxArg0+8*i), asm.R0, asm.DWord))
		}
	}
	for i := 6; i < 10; i++ {
		insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
	}
	return insns
}

// translate emits a binary search over pairs (from, to), sorted by from,
// that replaces r's value from by to, and jumps to miss when r holds none.
func translate(r asm.Register, pairs [][2]int64, miss, prefix string) asm.Instructions {
	done := prefix + "_done"
	var insns asm.Instructions
	n := 0
	var emit func(ps [][2]int64)
	emit = func(ps [][2]int64) {
		if len(ps) <= 4 {
			for _, p := range ps {
				next := fmt.Sprintf("%s_%d", prefix, n)
				n++
				insns = append(insns,
					asm.JNE.Imm(r, int32(p[0]), next),
					asm.Mov.Imm(r, int32(p[1])),
					asm.Ja.Label(done),
					asm.Mov.Reg(r, r).WithSymbol(next))
			}
			insns = append(insns, asm.Ja.Label(miss))
			return
		}
		mid := len(ps) / 2
		right := fmt.Sprintf("%s_%d", prefix, n)
		n++
		insns = append(insns, asm.JGE.Imm(r, int32(ps[mid][0]), right))
		emit(ps[:mid])
		insns = append(insns, asm.Mov.Reg(r, r).WithSymbol(right))
		emit(ps[mid:])
	}
	emit(pairs)
	return append(insns, asm.Mov.Reg(r, r).WithSymbol(done))
}

// Guard implements provider.Provider.
func (Provider) Guard(h provider.Hook, want, all []*provider.Probe, skip string) asm.Instructions {
	insns := asm.Instructions{asm.LoadMem(asm.R1, provider.RegScratch, provider.CtxSel, asm.DWord)}
	return append(insns, tree(asm.R1, nrs(want), skip, fmt.Sprintf("g%s_%d", skip, len(want)))...)
}

// tree emits a binary decision tree that falls through when r holds one of
// the sorted values vs and jumps to miss otherwise. Runs of consecutive
// values are tested as ranges.
func tree(r asm.Register, vs []int64, miss, prefix string) asm.Instructions {
	type run struct{ lo, hi int64 }
	var runs []run
	for _, v := range vs {
		if len(runs) > 0 && runs[len(runs)-1].hi+1 == v {
			runs[len(runs)-1].hi = v
			continue
		}
		runs = append(runs, run{v, v})
	}
	hit := prefix + "_hit"
	var insns asm.Instructions
	n := 0
	var emit func(rs []run)
	emit = func(rs []run) {
		if len(rs) <= 3 {
			for _, x := range rs {
				if x.lo == x.hi {
					insns = append(insns, asm.JEq.Imm(r, int32(x.lo), hit))
					continue
				}
				next := fmt.Sprintf("%s_%d", prefix, n)
				n++
				insns = append(insns,
					asm.JLT.Imm(r, int32(x.lo), next),
					asm.JLE.Imm(r, int32(x.hi), hit),
					asm.Mov.Reg(r, r).WithSymbol(next))
			}
			insns = append(insns, asm.Ja.Label(miss))
			return
		}
		mid := len(rs) / 2
		right := fmt.Sprintf("%s_%d", prefix, n)
		n++
		insns = append(insns, asm.JGE.Imm(r, int32(rs[mid].lo), right))
		emit(rs[:mid])
		insns = append(insns, asm.Mov.Reg(r, r).WithSymbol(right))
		emit(rs[mid:])
	}
	emit(runs)
	return append(insns, asm.Mov.Reg(r, r).WithSymbol(hit))
}

// Attributes implements provider.Attributed: illumos's for syscall.
func (Provider) Attributes() provider.Pattr { return provider.SyscallAttr }
