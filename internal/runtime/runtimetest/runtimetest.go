// Package runtimetest loads one provider's prologue and guard into the
// kernel, with a trivial body that records the probe context it fills,
// for the providers' tests. Programs go through runtime.Load, the path
// sonde itself takes: kernel-dependent constants are patched from BTF,
// the verifier checks them, and they are attached to their real hooks
// (or, with Spec.Run, kept to be run with BPF_PROG_TEST_RUN).
//
// The body keeps the first CtxSize bytes of the scratch area, with the
// firing thread's pid and tid at CtxTemp and its CPU at CtxTemp+8, in a
// ring buffer (only firings
// in Spec.PID when it is set), and counts every firing by probe ID.
package runtimetest

import (
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/runtime"
)

// mapHits counts firings by probe ID.
const mapHits = "t_hits"

// Spec says what to load.
type Spec struct {
	Provider provider.Provider
	Hook     provider.Hook
	Probes   []*provider.Probe // the enabled probes of the hook
	// Want are the probes the one clause enables: a Guard is emitted
	// when they are fewer than Probes; nil means all of Probes.
	Want  []*provider.Probe
	Needs provider.Needs
	PID   int  // record only firings in this process; 0, every firing
	Run   bool // do not attach: keep the program to be run by Loaded.Run
}

// Firing is one probe context the body recorded.
type Firing struct {
	ID       uint64
	Args     [10]uint64
	Errno    int64
	Sel      uint64
	Pid, Tid uint32
	CPU      uint32
	Xlate    []byte // the translated area (CtxXlate, CtxXlateSize bytes)
}

// Loaded is a loaded spec.
type Loaded struct {
	S    *runtime.Session
	rd   *ringbuf.Reader
	name string
}

// Build returns the plan of s: one program, as codegen lays one out.
func Build(s Spec) (*plan.Plan, error) {
	pro, err := s.Provider.Prologue(s.Hook, s.Probes, s.Needs, "exit")
	if err != nil {
		return nil, err
	}
	insns := asm.Instructions{
		asm.Mov.Reg(provider.RegCtx, asm.R1),
		asm.StoreImm(asm.R10, -8, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapScratch),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(provider.RegScratch, asm.R0),
	}
	insns = append(insns, pro...)
	if s.Want != nil && len(s.Want) != len(s.Probes) {
		insns = append(insns, s.Provider.Guard(s.Hook, s.Want, s.Probes, "skip")...)
	}
	insns = append(insns, body(s.PID)...)
	insns = append(insns,
		asm.Mov.Imm(asm.R0, 0).WithSymbol("skip"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return())
	hook := s.Hook
	if s.Run {
		hook = provider.Hook{Kind: provider.HookRun, Name: s.Hook.String()}
	}
	prog := &plan.Program{Name: "t", Hook: hook, Type: s.Provider.ProgramType(s.Hook), Insns: insns, Probes: s.Probes}
	return &plan.Plan{Programs: []*plan.Program{prog}, Maps: maps(), Probes: s.Probes}, nil
}

// body records the probe context and counts the firing.
func body(pid int) asm.Instructions {
	r := provider.RegScratch
	insns := asm.Instructions{
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(r, provider.CtxTemp+8, asm.R0, asm.DWord),
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(r, provider.CtxTemp, asm.R0, asm.DWord),
	}
	if pid != 0 {
		insns = append(insns, asm.RSh.Imm(asm.R0, 32), asm.JNE.Imm(asm.R0, int32(pid), "count"))
	}
	return append(insns,
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapRing),
		asm.Mov.Reg(asm.R2, r),
		asm.Mov.Imm(asm.R3, provider.CtxSize),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
		asm.LoadMem(asm.R1, r, provider.CtxProbeID, asm.DWord).WithSymbol("count"),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapHits),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JNE.Imm(asm.R0, 0, "inc"),
		provider.StoreImm64(asm.R10, -24, 1),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapHits),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Reg(asm.R3, asm.R10),
		asm.Add.Imm(asm.R3, -24),
		asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST
		asm.FnMapUpdateElem.Call(),
		asm.Ja.Label("skip"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("inc"),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
	)
}

func maps() []*ebpf.MapSpec {
	return []*ebpf.MapSpec{
		{Name: plan.MapScratch, Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: provider.CtxSize, MaxEntries: 1},
		{Name: plan.MapRing, Type: ebpf.RingBuf, MaxEntries: 1 << 20},
		{Name: mapHits, Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4096},
	}
}

// Load builds and loads s, failing t if the kernel refuses it; the
// program is detached when t ends.
func Load(t testing.TB, s Spec) *Loaded {
	t.Helper()
	p, err := Build(s)
	if err != nil {
		t.Fatalf("prologue of %s: %v", s.Hook, err)
	}
	sess, err := runtime.Load(p, &runtime.Options{Verbose: true})
	if err != nil {
		t.Fatalf("loading %s: %v", s.Hook, err)
	}
	rd, err := ringbuf.NewReader(sess.Maps[plan.MapRing])
	if err != nil {
		sess.Close()
		t.Fatalf("ring buffer: %v", err)
	}
	t.Cleanup(func() {
		rd.Close()
		sess.Close()
	})
	return &Loaded{S: sess, rd: rd, name: p.Programs[0].Hook.Name}
}

// Run runs a Spec.Run program once with args as its context.
func (l *Loaded) Run(t testing.TB, args ...uint64) {
	t.Helper()
	if err := l.S.Run(l.name, args...); err != nil {
		t.Fatal(err)
	}
}

// Firings returns the firings recorded since the last call.
func (l *Loaded) Firings(t testing.TB) []Firing {
	t.Helper()
	var out []Firing
	l.rd.SetDeadline(time.Now())
	for {
		rec, err := l.rd.Read()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return out
		}
		if err != nil {
			t.Fatalf("reading the ring buffer: %v", err)
		}
		out = append(out, decode(rec.RawSample))
	}
}

func decode(b []byte) Firing {
	u := func(off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }
	f := Firing{ID: u(provider.CtxProbeID), Errno: int64(u(provider.CtxErrno)), Sel: u(provider.CtxSel)}
	for i := range f.Args {
		f.Args[i] = u(provider.CtxArg0 + 8*i)
	}
	pt := u(provider.CtxTemp)
	f.Pid, f.Tid = uint32(pt>>32), uint32(pt)
	f.CPU = uint32(u(provider.CtxTemp + 8))
	f.Xlate = append([]byte(nil), b[provider.CtxXlate:provider.CtxXlate+provider.CtxXlateSize]...)
	return f
}

// Hits returns how many times each probe ID fired (past the guard).
func (l *Loaded) Hits(t testing.TB) map[uint64]uint64 {
	t.Helper()
	out := map[uint64]uint64{}
	var k, v uint64
	it := l.S.Maps[mapHits].Iterate()
	for it.Next(&k, &v) {
		out[k] = v
	}
	if err := it.Err(); err != nil {
		t.Fatalf("reading hits: %v", err)
	}
	return out
}

// ClearHits empties the counts.
func (l *Loaded) ClearHits(t testing.TB) {
	t.Helper()
	for id := range l.Hits(t) {
		if err := l.S.Maps[mapHits].Delete(id); err != nil {
			t.Fatalf("clearing hits: %v", err)
		}
	}
}

// Int reads a member of a translated structure from a firing.
func (f Firing) Int(m *provider.Member) int64 {
	b := f.Xlate[m.Off : m.Off+m.Size]
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if m.Signed && m.Size < 8 {
		sh := 64 - 8*m.Size
		return int64(v<<sh) >> sh
	}
	return int64(v)
}

// String reads a char array member of a translated structure.
func (f Firing) String(m *provider.Member) string {
	b := f.Xlate[m.Off : m.Off+m.Size]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
