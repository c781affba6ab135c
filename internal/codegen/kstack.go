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
// kernel text a bit per 16 bytes that is tracer code, and a bit per byte
// for the blocks tracer code shares with other code (functions start
// 16-byte aligned, their .cold parts and assembly symbols need not), so the
// test is the consumer's (sym.Kernel.IsTracer) at every byte. The skip
// goes on however many frames are tracer code: a profile probe that
// interrupts a BPF program deep in BPF-to-BPF calls finds more than ten.
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
	"math"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
)

// mapKframes is the hash map of tracer code in kernel text.
const mapKframes = "kframes"

// The kframes map's key is an address >> kframeChunk; its value has two
// words with a bit per 1<<kframeBlock bytes of that chunk: the first says
// the block is all tracer code, the second that it is partly (a .cold part
// or an assembly symbol starts or ends inside it). The key of such a block,
// its address >> kframeBlock with kframeBytesKey set, has a bit per byte.
const (
	kframeChunk    = 10
	kframeBlock    = 4
	kframeBytesKey = 1 << 63
)

// maxKstackDepth is the deepest kernel stack stackdepth counts: the
// kernel's default perf_event_max_stack.
const maxKstackDepth = 127

// kernelSyms names kernel addresses for kframesMap: the table the
// consumer's stack() uses too.
var kernelSyms = sym.Shared()

// kframesMap is the map of tracer code.
func kframesMap() *ebpf.MapSpec {
	type chunk struct{ full, mixed uint64 }
	chunks := map[uint64]*chunk{}
	at := func(a uint64) *chunk {
		c := chunks[a>>kframeChunk]
		if c == nil {
			c = new(chunk)
			chunks[a>>kframeChunk] = c
		}
		return c
	}
	bytes := map[uint64]uint64{} // a mixed block's bit per byte of tracer code
	tracer, modules := kernelSyms.TracerRanges()
	for _, r := range modules {
		for a := r[0] &^ (1<<kframeChunk - 1); a < r[1]; a += 1 << kframeChunk {
			at(a) // a module's code: traced code unless marked
		}
	}
	const block = 1 << kframeBlock
	for _, r := range tracer {
		for a := r[0]; a < r[1]; {
			if a&(block-1) == 0 && a+block <= r[1] {
				at(a).full |= 1 << ((a >> kframeBlock) & 63)
				a += block
				continue
			}
			// a block tracer code shares with other code: byte by byte
			bytes[a>>kframeBlock] |= 1 << (a & (block - 1))
			a++
		}
	}
	for b, m := range bytes {
		a := b << kframeBlock
		if m == 1<<block-1 {
			at(a).full |= 1 << (b & 63) // two ranges filled it
			delete(bytes, b)
			continue
		}
		at(a).mixed |= 1 << (b & 63)
	}
	keys := make([]uint64, 0, len(chunks)+len(bytes))
	for k := range chunks {
		keys = append(keys, k)
	}
	for b := range bytes {
		keys = append(keys, b|kframeBytesKey)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	spec := &ebpf.MapSpec{Name: mapKframes, Type: ebpf.Hash, KeySize: 8, ValueSize: 16, MaxEntries: uint32(max(len(keys), 1))}
	for _, k := range keys {
		v := make([]byte, 16)
		if k&kframeBytesKey != 0 {
			binary.LittleEndian.PutUint64(v, bytes[k&^kframeBytesKey])
		} else {
			binary.LittleEndian.PutUint64(v, chunks[k].full)
			binary.LittleEndian.PutUint64(v[8:], chunks[k].mixed)
		}
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
	mixed := g.label("kmix")
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
	)
	g.emit(lookupFP(mapKframes, key)...)
	g.emit(
		asm.JNE.Imm(asm.R0, 0, found),
		// no entry: tracer code above the kernel's text, traced code below
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord),
		asm.LoadImm(asm.R2, textEnd, asm.DWord),
		asm.JGT.Reg(asm.R1, asm.R2, next),
		asm.Ja.Label(out),
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord).WithSymbol(found),
		asm.RSh.Imm(asm.R1, kframeBlock),
		asm.And.Imm(asm.R1, 63),
		asm.LoadMem(asm.R2, asm.R0, 8, asm.DWord),
		asm.RSh.Reg(asm.R2, asm.R1),
		asm.And.Imm(asm.R2, 1),
		asm.JNE.Imm(asm.R2, 0, mixed),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
		asm.RSh.Reg(asm.R0, asm.R1),
		asm.And.Imm(asm.R0, 1),
		asm.JEq.Imm(asm.R0, 0, out),
		asm.Ja.Label(next),
		// a block shared with other code: its bit per byte
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord).WithSymbol(mixed),
		asm.RSh.Imm(asm.R1, kframeBlock),
		asm.LoadImm(asm.R2, math.MinInt64, asm.DWord), // kframeBytesKey
		asm.Or.Reg(asm.R1, asm.R2),
		asm.StoreMem(asm.R10, key, asm.R1, asm.DWord),
	)
	g.emit(lookupFP(mapKframes, key)...)
	g.emit(
		asm.JEq.Imm(asm.R0, 0, out),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
		asm.LoadMem(asm.R1, asm.R10, pc, asm.DWord),
		asm.And.Imm(asm.R1, 1<<kframeBlock-1),
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

// lookupFP looks map m up for the key on the stack at fp+key: the
// value's address (or 0) in R0.
func lookupFP(m string, key int16) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(m),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
	}
}
