package codegen

// kstack.go compiles stackdepth and caller from the kernel stack that
// stack() records, so that both count and name the frames stack() prints:
// stackdepth is the number of frames, caller the second one (the return
// address into the caller of the function holding the probe), 0 when there
// is none.
//
// The kernel's bpf_get_stack starts the stack in the tracing machinery for
// some hooks: for raw and BTF tracepoints (and BEGIN/END/ERROR, run with
// BPF_PROG_TEST_RUN as raw tracepoints) the first frame is the BPF program
// itself (the helper takes its caller's registers), then bpf_trace_runN,
// the tracepoint class's __bpf_trace_ function and, when more than one
// probe is attached to the tracepoint, its __traceiter_ function. How many
// varies from one firing to the next, so the program skips leading frames
// while they are in those functions: the kframes hash map, built from
// /proc/kallsyms when the program is generated (sym.TracerRanges, the
// functions the consumer leaves out of stack()), holds for each 1 KiB of
// kernel text a bit per 16 bytes that is tracer code. Kernel functions
// start 16-byte aligned, so the test is exact at function boundaries.
// Above the core kernel's text (sym.TextEnd) a frame is tracer code unless
// it is a module's: there the kernel puts the BPF programs (one of them
// is interrupted when a profile probe fires in it) and its trampolines,
// which have no fixed addresses; the map has an entry for every 1 KiB of
// module code.
//
// Perf-event tracepoints and perf events (profile, tick) start at the
// traced code; uprobes (pid, USDT) fire in user context, where there is no
// kernel stack: stackdepth and caller are 0 there.

import (
	"encoding/binary"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
)

// mapKframes is the hash map of tracer code in kernel text.
const mapKframes = "kframes"

// The kframes map's key is an address >> kframeChunk; its value has a bit
// per 1<<kframeBlock bytes of that chunk.
const (
	kframeChunk = 10
	kframeBlock = 4
)

// maxKstackDepth is the deepest kernel stack stackdepth counts: the
// kernel's default perf_event_max_stack.
const maxKstackDepth = 127

// kernelSyms names kernel addresses for kframesMap: the table the
// consumer's stack() uses too.
var kernelSyms = sym.Shared()

// kframesMap is the map of tracer code.
func kframesMap() *ebpf.MapSpec {
	masks := map[uint64]uint64{}
	tracer, modules := kernelSyms.TracerRanges()
	for _, r := range modules {
		for a := r[0] &^ (1<<kframeChunk - 1); a < r[1]; a += 1 << kframeChunk {
			masks[a>>kframeChunk] |= 0 // a module's code: traced code unless marked
		}
	}
	for _, r := range tracer {
		const block = 1 << kframeBlock
		for a := (r[0] + block - 1) &^ (block - 1); a < r[1]; a += block {
			masks[a>>kframeChunk] |= 1 << ((a >> kframeBlock) & 63)
		}
	}
	keys := make([]uint64, 0, len(masks))
	for k := range masks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	spec := &ebpf.MapSpec{Name: mapKframes, Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: uint32(max(len(keys), 1))}
	for _, k := range keys {
		v := make([]byte, 8)
		binary.LittleEndian.PutUint64(v, masks[k])
		spec.Contents = append(spec.Contents, ebpf.MapKV{Key: k, Value: v})
	}
	return spec
}

// ownFrame reports whether the first kernel frame of the current hook's
// stack is the BPF program itself.
func (g *gen) ownFrame() bool {
	switch g.hook.Kind {
	case provider.HookRawTP, provider.HookBTFTP, provider.HookRun:
		return true
	}
	return false
}

// kstack captures the kernel stack of the firing into scratch: the frame
// count at the returned offset, the frames after it. In sched:::on-cpu it
// is the incoming thread's saved stack (as stack() records it there).
func (g *gen) kstack() int {
	buf := g.temp(8 + 8*maxKstackDepth)
	if g.cl != nil && g.cl.Subject != 0 {
		g.subjectTask(asm.R1)
		g.emit(
			asm.Mov.Reg(asm.R2, rS),
			asm.Add.Imm(asm.R2, int32(buf+8)),
			asm.Mov.Imm(asm.R3, 8*maxKstackDepth),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnGetTaskStack.Call(),
		)
	} else {
		g.emit(
			asm.Mov.Reg(asm.R1, provider.RegCtx),
			asm.Mov.Reg(asm.R2, rS),
			asm.Add.Imm(asm.R2, int32(buf+8)),
			asm.Mov.Imm(asm.R3, 8*maxKstackDepth),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnGetStack.Call(),
		)
	}
	ok := g.label("kst")
	g.emit(
		asm.JSGE.Imm(asm.R0, 0, ok),
		asm.Mov.Imm(asm.R0, 0),
		asm.RSh.Imm(asm.R0, 3).WithSymbol(ok),
		asm.StoreMem(rS, int16(buf), asm.R0, asm.DWord),
	)
	return buf
}

// skipTracer emits the count of the leading frames of the stack at buf
// (kstack) that stack() leaves out, into R0: those in tracer code, up to
// the first frame of the traced code, however many (a profile probe that
// interrupted a BPF program deep in BPF-to-BPF calls finds more than ten).
// The loop runs at most maxKstackDepth times; the verifier follows each
// pass with the count known, so it reads the frames at fixed offsets.
func (g *gen) skipTracer(buf int) {
	first := 0
	if g.ownFrame() {
		first = 1
	}
	if g.cl != nil && g.cl.Subject != 0 || kernelSyms.TextEnd() == 0 {
		// a thread's saved stack has no tracer frames; and when
		// /proc/kallsyms hides the addresses (no CAP_SYSLOG) stack()
		// cannot tell them either, and prints them all
		g.emit(asm.Mov.Imm(asm.R0, 0))
		return
	}
	g.usesKframes = true
	g.stack += 24
	key, idx, pc := int16(-g.stack), int16(-g.stack+8), int16(-g.stack+16)
	textEnd := int64(kernelSyms.TextEnd())
	loop, next, found, out := g.label("kloop"), g.label("knext"), g.label("kfnd"), g.label("kout")
	g.emit(
		asm.Mov.Imm(asm.R0, int32(first)),
		asm.StoreMem(asm.R10, idx, asm.R0, asm.DWord),
		// while i < maxKstackDepth && i < n && tracer(frame[i]): i++
		asm.LoadMem(asm.R1, asm.R10, idx, asm.DWord).WithSymbol(loop),
		asm.JGE.Imm(asm.R1, maxKstackDepth, out),
		asm.LoadMem(asm.R2, rS, int16(buf), asm.DWord),
		asm.JLE.Reg(asm.R2, asm.R1, out),
		asm.LSh.Imm(asm.R1, 3),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf+8)),
		asm.Add.Reg(asm.R2, asm.R1),
		asm.LoadMem(asm.R1, asm.R2, 0, asm.DWord),
		asm.StoreMem(asm.R10, pc, asm.R1, asm.DWord),
		asm.RSh.Imm(asm.R1, kframeChunk),
		asm.StoreMem(asm.R10, key, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapKframes),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
		asm.JNE.Imm(asm.R0, 0, found),
		// no entry: tracer code above the kernel's text, traced code below
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord),
		asm.LoadImm(asm.R2, textEnd, asm.DWord),
		asm.JGT.Reg(asm.R1, asm.R2, next),
		asm.Ja.Label(out),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord).WithSymbol(found),
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord),
		asm.RSh.Imm(asm.R1, kframeBlock),
		asm.And.Imm(asm.R1, 63),
		asm.RSh.Reg(asm.R0, asm.R1),
		asm.And.Imm(asm.R0, 1),
		asm.JEq.Imm(asm.R0, 0, out),
		asm.LoadMem(asm.R1, asm.R10, idx, asm.DWord).WithSymbol(next),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R10, idx, asm.R1, asm.DWord),
		asm.Ja.Label(loop),
		asm.LoadMem(asm.R0, asm.R10, idx, asm.DWord).WithSymbol(out),
	)
	g.stack -= 24
}

// stackdepth loads the number of frames stack() prints into R0.
func (g *gen) stackdepth() {
	buf := g.kstack()
	g.skipTracer(buf)
	// the frames after the skipped ones, none if fewer
	none, done := g.label("knone"), g.label("kskd")
	g.emit(
		asm.LoadMem(asm.R1, rS, int16(buf), asm.DWord),
		asm.JLE.Reg(asm.R1, asm.R0, none),
		asm.Sub.Reg(asm.R1, asm.R0),
		asm.Mov.Reg(asm.R0, asm.R1),
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(none),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}

// caller loads the second frame stack() prints into R0, 0 if none.
func (g *gen) caller() {
	buf := g.kstack()
	g.skipTracer(buf)
	none, done := g.label("knone"), g.label("kskd")
	g.emit(
		asm.Add.Imm(asm.R0, 1),
		asm.LoadMem(asm.R1, rS, int16(buf), asm.DWord),
		asm.JLE.Reg(asm.R1, asm.R0, none),
		asm.JGE.Imm(asm.R0, maxKstackDepth, none),
		asm.LSh.Imm(asm.R0, 3),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(buf+8)),
		asm.Add.Reg(asm.R1, asm.R0),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord),
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(none),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}
