// Package dtrace is the dtrace provider: BEGIN, END and ERROR. None needs a
// kernel hook: the consumer runs their programs once (BPF_PROG_TEST_RUN)
// after everything is attached (BEGIN), before detaching (END), and for each
// runtime error a clause reports (ERROR).
package dtrace

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider is the dtrace provider.
type Provider struct{}

var names = []string{"BEGIN", "END", "ERROR"}

// Name implements provider.Provider.
func (Provider) Name() string { return "dtrace" }

// NumLocal is the number of probe IDs the provider uses: BEGIN, END and
// ERROR are 0, 1 and 2.
func NumLocal() uint32 { return uint32(len(names)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	for i, n := range names {
		pr := &provider.Probe{
			ID: uint32(i), Provider: "dtrace", Name: n,
			Hook: provider.Hook{Kind: provider.HookRun, Name: n},
		}
		if n == "ERROR" {
			pr.Args = []provider.Arg{{Type: "uint64_t"}, {Type: "uint64_t", Name: "epid"},
				{Type: "uint64_t", Name: "index"}, {Type: "uint64_t", Name: "offset"},
				{Type: "uint64_t", Name: "fault"}, {Type: "uint64_t", Name: "addr"}}
		}
		if d.Matches(pr) {
			out = append(out, pr)
		}
	}
	return out, nil
}

// ProgramType implements provider.Provider: a raw tracepoint program can be
// run with BPF_PROG_TEST_RUN and a context of up to 12 u64 arguments.
func (Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.RawTracepoint }

// Prologue implements provider.Provider: the consumer passes the probe ID
// and, for ERROR, arg1..arg5 in the run context.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	r := provider.RegScratch
	insns := asm.Instructions{
		asm.LoadImm(asm.R0, int64(probes[0].ID), asm.DWord),
		asm.StoreMem(r, provider.CtxProbeID, asm.R0, asm.DWord),
		provider.StoreImm64(r, provider.CtxErrno, 0),
	}
	for i := 0; i < 6; i++ {
		if h.Name == "ERROR" && n.Args[i] {
			insns = append(insns,
				asm.LoadMem(asm.R0, provider.RegCtx, int16(8*i), asm.DWord),
				asm.StoreMem(r, int16(provider.CtxArg0+8*i), asm.R0, asm.DWord))
		} else if n.Args[i] {
			insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
		}
	}
	return insns, nil
}

// Guard implements provider.Provider: each dtrace probe has its own hook.
func (Provider) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}

// Attributes implements provider.Attributed: illumos's for dtrace.
func (Provider) Attributes() provider.Pattr { return provider.DTraceAttr }
