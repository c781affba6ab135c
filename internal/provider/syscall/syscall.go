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

// NumLocal is how many probe IDs the provider reserves.
func NumLocal() uint32 { return uint32(2 * (syscalls.Native().MaxNr() + 1)) }

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
	for _, c := range syscalls.Native().All() {
		if !provider.Glob(d.Function, c.Name) {
			continue
		}
		for ret, name := range []string{"entry", "return"} {
			if !provider.Glob(d.Name, name) {
				continue
			}
			hook := "sys_enter"
			if ret == 1 {
				hook = "sys_exit"
			}
			out = append(out, &provider.Probe{
				ID: uint32(2*c.Nr + ret), Provider: "syscall", Function: c.Name, Name: name,
				Hook: provider.Hook{Kind: provider.HookRawTP, Name: hook}, Sel: int64(c.Nr),
			})
		}
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
	regsR10    = 56
	regsR9     = 64
	regsR8     = 72
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

// Prologue implements provider.Provider.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	r, ctx := provider.RegScratch, provider.RegCtx
	base := int64(probes[0].ID) - 2*probes[0].Sel // ID of syscall 0's entry
	if probes[0].Name == "return" {
		base--
	}
	var insns asm.Instructions
	if h.Name == "sys_enter" {
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
		base++
	}
	insns = append(insns, asm.StoreMem(r, provider.CtxSel, asm.R1, asm.DWord))
	// Ignore calls no clause enables.
	all := nrs(probes)
	if len(all) < int(syscalls.Native().MaxNr()) {
		insns = append(insns, tree(asm.R1, all, skip, "sc_in")...)
	} else {
		insns = append(insns, asm.JGT.Imm(asm.R1, int32(syscalls.Native().MaxNr()), skip))
	}
	insns = append(insns,
		asm.Mov.Reg(asm.R0, asm.R1),
		asm.LSh.Imm(asm.R0, 1),
		asm.Add.Imm(asm.R0, int32(base)),
		asm.StoreMem(r, provider.CtxProbeID, asm.R0, asm.DWord),
	)
	if h.Name == "sys_enter" {
		insns = append(insns, provider.StoreImm64(r, provider.CtxErrno, 0))
		if n.AnyArg() {
			insns = append(insns,
				asm.LoadMem(asm.R3, ctx, 0, asm.DWord),
				asm.Add.Imm(asm.R3, regsR10),
				asm.Mov.Reg(asm.R1, r),
				asm.Add.Imm(asm.R1, provider.CtxTemp),
				asm.Mov.Imm(asm.R2, 64),
				asm.FnProbeReadKernel.Call(),
			)
			for i, off := range []int16{regsDI, regsSI, regsDX, regsR10, regsR8, regsR9} {
				insns = append(insns,
					asm.LoadMem(asm.R0, r, provider.CtxTemp+off-regsR10, asm.DWord),
					asm.StoreMem(r, int16(provider.CtxArg0+8*i), asm.R0, asm.DWord))
			}
			for i := 6; i < 10; i++ {
				insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
			}
		}
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
