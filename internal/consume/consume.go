// Package consume reads what the BPF programs produce: records from the
// ring buffer, decoded by their descriptors into values, and aggregation
// maps, snapshotted and merged across CPUs. It acts on records (printf,
// printa, exit, clear, trunc, speculation) and counts drops and errors.
// Text layout is package format's; consume only decides what to print.
package consume

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/sym"
	"github.com/sonde-trace/sonde/internal/value"
)

// Options configure a consumer.
type Options struct {
	// Sink receives the output: firings, faults, losses, the final
	// aggregations.
	Sink value.Sink
	// SystemOut is where system() commands write (standard output and
	// error); nil discards.
	SystemOut io.Writer
	// Symbols name addresses; zero fields take the shared tables.
	Symbols Symbols
	// BufPolicy is the bufpolicy option: "fill" stops tracing once
	// BufSize bytes of records have been read (END's still print),
	// "ring" keeps only the last BufSize bytes of records and prints them
	// when tracing ends; "" or "switch" prints records as they come.
	BufPolicy string
	BufSize   int
	// SpecSize bounds the bytes of records each speculation keeps (the
	// specsize option); a record past it is dropped and counted
	// ("speculative drops"). 0: no bound.
	SpecSize int
}

// Consumer turns records into output.
type Consumer struct {
	p      *plan.Plan
	s      *runtime.Session
	opts   Options
	rd     *ringbuf.Reader
	printf map[string]*format.Printf
	// probes are the plan's probes by ID, to name those records come from
	probes []*probe.Probe
	syms   Symbols
	// Exited is set once an exit() record has been consumed.
	Exited   bool
	ExitCode int
	normal   map[int]int64
	// cleared are the aggregations without keys that clear() zeroed
	// while they held data: DTrace keeps their entry, which prints as
	// zeros (a quantize as its buckets around 0), until trunc().
	cleared map[int]bool
	// base holds, per aggregation and raw key, what clear() took away
	// from an aggregation whose values subtract (all but min and max):
	// the kernel's entries are never zeroed under the running probes,
	// which lost the events that landed between printa()'s read and the
	// zeroing; a snapshot is the kernel's value minus this.
	base map[int]map[string]value.AggValue
	// truncd holds, per aggregation and raw key, the kernel's value when
	// trunc() last removed the key (truncCarry): the kernel keeps an
	// entry trunc() removed while its probes still update it, and the key
	// is not shown until something fires for it again.
	truncd map[int]map[string]value.AggValue
	// snaps are the raw values the last Snapshot of each aggregation read,
	// and the probe firing (nfiring) it read them for: clear() after
	// printa() in one firing takes away exactly what printa() printed, and
	// what fired since is left for the next one, as with DTrace's buffer
	// switch. A firing's records are consecutive ones of one probe on one
	// CPU, each clause's EPID once (firingKey, firingEPIDs).
	snaps       map[int]aggSnap
	nfiring     uint64
	firingKey   uint64
	firingEPIDs []uint32
	spec        map[int64][]*value.Firing
	// specBytes are the bytes each speculation keeps; specDrops the
	// records dropped past SpecSize, and lastSpecDrops those reported.
	specBytes                map[int64]int
	specDrops, lastSpecDrops uint64
	// filled counts the bytes read under bufpolicy=fill; full is set once
	// they reach BufSize. ring holds the firings kept under
	// bufpolicy=ring, ringBytes their bytes.
	filled, ringBytes int
	full              bool
	ring              []ringFiring
	// lastStat are the stats map's counters, per CPU, last reported
	lastStat [plan.NumStats][]uint64
	// dblErrors counts errors in ERROR clauses (DTrace's dblerrors)
	dblErrors, lastDblErrors uint64
	// inError is set while runtimeError drains ERROR's records
	inError bool
	// watched are the pids WatchProcesses has snapshotted.
	watched   map[int]bool
	lastWatch time.Time
	targets   []int
	errs      int
	printed   map[int]bool
}

// New returns a consumer of session s.
func New(s *runtime.Session, opts Options) (*Consumer, error) {
	rd, err := ringbuf.NewReader(s.Maps[plan.MapRing])
	if err != nil {
		return nil, fmt.Errorf("opening ring buffer: %w", err)
	}
	if opts.SystemOut == nil {
		opts.SystemOut = io.Discard
	}
	if opts.Symbols.Kernel == nil {
		opts.Symbols.Kernel = shared.Kernel
	}
	if opts.Symbols.Users == nil {
		opts.Symbols.Users = shared.Users
	}
	c := &Consumer{p: s.Plan, s: s, opts: opts, rd: rd, syms: opts.Symbols, printf: map[string]*format.Printf{},
		normal: map[int]int64{}, spec: map[int64][]*value.Firing{}, specBytes: map[int64]int{},
		printed: map[int]bool{}, watched: map[int]bool{}}
	c.AddProbes(s.Plan.Probes)
	return c, nil
}

// Close releases the reader.
func (c *Consumer) Close() { c.rd.Close() }

// Poll consumes records for one pass: it waits up to wait for the first,
// then reads what the buffer holds, and returns once it is empty, once an
// exit() record has been consumed or exit() called, or once the pass has
// read one buffer's worth or lasted wait. Probes that keep refilling the
// buffer (sonde tracing its own writes) therefore never keep the caller
// from a signal, the end of -c's command or the drop counts.
func (c *Consumer) Poll(wait time.Duration) error {
	start := time.Now()
	c.rd.SetDeadline(start.Add(wait))
	err := c.pass(c.rd.BufferSize(), start.Add(wait))
	if !c.Exited {
		c.kernelExit()
	}
	return err
}

// Wake makes a Poll in progress return now.
func (c *Consumer) Wake() { _ = c.rd.Flush() }

// Drain consumes the records already in the buffer, without waiting, and
// at most one buffer's worth: probes still firing cannot keep it going.
func (c *Consumer) Drain() error {
	c.rd.SetDeadline(time.Now())
	return c.pass(c.rd.BufferSize(), time.Time{})
}

// pass reads records until the buffer is empty, budget bytes have been
// read, the deadline (if any) has passed or an exit() record has been
// consumed (a first one: once exiting, the buffer is drained).
func (c *Consumer) pass(budget int, deadline time.Time) error {
	var rec ringbuf.Record
	exited := c.Exited
	for budget > 0 && (exited || !c.Exited) {
		if err := c.rd.ReadInto(&rec); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, ringbuf.ErrFlushed) ||
				errors.Is(err, ringbuf.ErrClosed) {
				return nil
			}
			return err
		}
		c.handle(rec.RawSample)
		budget -= 8 + len(rec.RawSample) // a record's header is 8 bytes
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil
		}
		// after the first record, read without waiting
		c.rd.SetDeadline(time.Now())
	}
	return nil
}

// kernelExit notices exit() from the globals map: its record may be among
// the drops of a full buffer.
func (c *Consumer) kernelExit() {
	exiting, status, err := c.s.Exiting()
	if err != nil || !exiting {
		return
	}
	c.Exited, c.ExitCode = true, status
}

func u32(b []byte, off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
func u64(b []byte, off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }

func (c *Consumer) handle(b []byte) {
	if len(b) < plan.HdrSize {
		return
	}
	epid := u32(b, plan.HdrEPID)
	if epid == plan.ErrorEPID {
		c.runtimeError(b)
		return
	}
	if epid == 0 || int(epid) > len(c.p.Records) {
		return
	}
	r := c.p.Records[epid-1]
	if len(b) < r.Size {
		return
	}
	c.record(r, b)
}

// AddProbes names the probes of a plan's records: the session's, and
// those of plans compiled again later (libraries a process loads).
func (c *Consumer) AddProbes(ps []*probe.Probe) {
	c.probes = append(c.probes, ps...)
	sort.SliceStable(c.probes, func(i, j int) bool { return c.probes[i].ID < c.probes[j].ID })
	// A plan compiled again holds the probes of the last one too.
	c.probes = slices.CompactFunc(c.probes, func(a, b *probe.Probe) bool { return a.ID == b.ID })
}

func (c *Consumer) probeOf(id uint32) value.Probe {
	i := sort.Search(len(c.probes), func(i int) bool { return c.probes[i].ID >= id })
	if i < len(c.probes) && c.probes[i].ID == id {
		p := c.probes[i]
		return value.Probe{ID: p.ID, Provider: p.Provider, Module: p.Module, Function: p.Function, Name: p.Name}
	}
	return value.Probe{ID: id}
}

// record decodes one record into a firing for the sink and acts on it.
// ringFiring is a firing kept under bufpolicy=ring, with its bytes.
type ringFiring struct {
	f    *value.Firing
	size int
}

// emit hands f (of size bytes of records) to the sink, or keeps it under
// bufpolicy=ring, the oldest going once more than BufSize are kept.
func (c *Consumer) emit(f *value.Firing, size int) {
	if c.opts.BufPolicy != "ring" || c.opts.BufSize <= 0 {
		c.opts.Sink.Firing(f)
		return
	}
	c.ring = append(c.ring, ringFiring{f, size})
	c.ringBytes += size
	for len(c.ring) > 1 && c.ringBytes > c.opts.BufSize {
		c.ringBytes -= c.ring[0].size
		c.ring = c.ring[1:]
	}
}

// fill applies bufpolicy=fill to a record of size bytes from probe p: it
// reports whether the record is kept. Once BufSize bytes have been read,
// tracing stops (as when the principal buffer fills in DTrace) and only
// END's records are kept.
func (c *Consumer) fill(p value.Probe, size int) bool {
	if c.opts.BufPolicy != "fill" || c.opts.BufSize <= 0 {
		return true
	}
	if p.Provider == "dtrace" && p.Name == "END" {
		return true
	}
	if c.full {
		return false
	}
	c.filled += size
	if c.filled > c.opts.BufSize {
		c.full = true
		_ = c.s.Stop()
		c.Exited = true
		return false
	}
	return true
}

func (c *Consumer) record(r *plan.Record, b []byte) {
	c.firingOf(b)
	f := &value.Firing{Probe: c.probeOf(u32(b, plan.HdrProbe)), EPID: u32(b, plan.HdrEPID), CPU: int(u32(b, plan.HdrCPU))}
	if !c.fill(f.Probe, 8+len(b)) {
		return
	}
	mask := u64(b, plan.HdrMask)
	spec := int64(0)
	for _, a := range r.Actions {
		if a.Cond && mask&(1<<a.Bit) == 0 {
			continue
		}
		if a.Kind == plan.ActSpeculate {
			spec = c.fields(&a, b)[0].Int
			continue
		}
		c.action(f, &a, b, spec != 0)
		if a.Kind == plan.ActExit {
			break // the rest of the clause that called exit()
		}
	}
	if spec != 0 {
		// speculative: kept until commit() or discard() of its ID, as
		// much as specsize allows
		if c.opts.SpecSize > 0 && c.specBytes[spec]+len(b) > c.opts.SpecSize {
			c.specDrops++
			return
		}
		if c.specBytes == nil {
			c.specBytes = map[int64]int{}
		}
		c.specBytes[spec] += len(b)
		c.spec[spec] = append(c.spec[spec], f)
		return
	}
	c.emit(f, 8+len(b))
}

// interrupt hands the sink the part of f made so far and makes f the part
// that follows (system() output and committed speculations come between).
func (c *Consumer) interrupt(f *value.Firing) {
	part := *f
	part.More = true
	c.emit(&part, 0)
	*f = value.Firing{Probe: f.Probe, EPID: f.EPID, CPU: f.CPU, Cont: true}
}

func (c *Consumer) fields(a *plan.Action, b []byte) []value.Value {
	vals := make([]value.Value, 0, len(a.Fields))
	for _, f := range a.Fields {
		vals = append(vals, c.decode(f, b, f.Offset))
	}
	return vals
}

func (c *Consumer) action(f *value.Firing, a *plan.Action, b []byte, speculative bool) {
	vals := c.fields(a, b)
	switch a.Kind {
	case plan.ActDefault:
	case plan.ActTrace, plan.ActStack, plan.ActTracemem:
		if a.Kind == plan.ActTrace {
			for i := range vals {
				vals[i].Datum = vals[i].Kind == value.Bytes // trace() of a struct
			}
		}
		f.Items = append(f.Items, value.Item{Kind: value.ItemTrace, Args: vals})
	case plan.ActPrintf:
		f.Items = append(f.Items, value.Item{Kind: value.ItemPrintf, Format: a.Format, Args: vals, Names: c})
	case plan.ActPrinta:
		f.Items = append(f.Items, value.Item{Kind: value.ItemPrinta, Format: a.Format, Aggs: c.printa(a), Names: c})
	case plan.ActExit:
		c.Exited = true
		c.ExitCode = int(vals[0].Int)
	case plan.ActClear:
		c.clearAgg(a.Aggs[0], false, 0)
	case plan.ActTrunc:
		n := int64(0)
		if len(vals) > 0 {
			n = vals[0].Int
		}
		c.clearAgg(a.Aggs[0], true, n)
	case plan.ActNormalize:
		c.normal[a.Aggs[0]] = vals[0].Int
	case plan.ActDenormalize:
		delete(c.normal, a.Aggs[0])
	case plan.ActSystem:
		pf := c.parsed(a.Format)
		if pf == nil || speculative {
			return
		}
		var cmd bytes.Buffer
		pf.FormatNamed(&cmd, vals, c)
		c.interrupt(f)
		runSystem(c.opts.SystemOut, cmd.String())
	case plan.ActFreopen:
		pf := c.parsed(a.Format)
		if pf == nil || speculative {
			return
		}
		var path bytes.Buffer
		pf.FormatNamed(&path, vals, c)
		c.interrupt(f) // what came before goes to the old file
		c.opts.Sink.SetOption("freopen", path.String())
	case plan.ActRaise, plan.ActStop:
		// Done in the kernel by the probe's program (bpf_send_signal).
	case plan.ActCommit:
		id := vals[0].Int
		if len(c.spec[id]) > 0 {
			c.interrupt(f)
			for _, t := range c.spec[id] {
				c.emit(t, 0)
			}
		}
		delete(c.spec, id)
		delete(c.specBytes, id)
		c.freeSpec(id)
	case plan.ActDiscard:
		delete(c.spec, vals[0].Int)
		delete(c.specBytes, vals[0].Int)
		c.freeSpec(vals[0].Int)
	case plan.ActSetopt:
		if len(a.Str) > 0 {
			val := ""
			if len(a.Str) > 1 {
				val = a.Str[1]
			}
			c.opts.Sink.SetOption(a.Str[0], val)
		}
	}
}

func (c *Consumer) parsed(f string) *format.Printf {
	if p, ok := c.printf[f]; ok {
		return p
	}
	p, _ := format.ParsePrintf(f) // the compiler has checked it
	c.printf[f] = p
	return p
}

// decode reads field f at off of a record or key.
func (c *Consumer) decode(f plan.Field, b []byte, off int) value.Value {
	switch f.Kind {
	case plan.FInt:
		var v int64
		switch f.Size {
		case 1:
			v = int64(b[off])
			if f.Signed {
				v = int64(int8(b[off]))
			}
		case 2:
			x := binary.LittleEndian.Uint16(b[off:])
			v = int64(x)
			if f.Signed {
				v = int64(int16(x))
			}
		case 4:
			x := u32(b, off)
			v = int64(x)
			if f.Signed {
				v = int64(int32(x))
			}
		default:
			v = int64(u64(b, off))
		}
		return value.Value{Kind: value.Int, Int: v, Size: f.Size, Signed: f.Signed}
	case plan.FString:
		s := b[off : off+f.Size]
		if i := bytes.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return value.StringValue(string(s))
	case plan.FProbeProv, plan.FProbeMod, plan.FProbeFunc, plan.FProbeName:
		p := c.probeOf(u32(b, off))
		s := map[plan.FieldKind]string{plan.FProbeProv: p.Provider, plan.FProbeMod: p.Module,
			plan.FProbeFunc: p.Function, plan.FProbeName: p.Name}[f.Kind]
		return value.StringValue(s)
	case plan.FKStack:
		n := int(u64(b, off))
		var frames []string
		var pcs []uint64
		for i := 0; i < n && 8+8*i < f.Size && len(pcs) < f.Depth; i++ {
			pc := u64(b, off+8+8*i)
			if len(pcs) == 0 && c.tracerFrame(pc) {
				continue // the BPF program and the tracepoint glue
			}
			pcs = append(pcs, pc)
			frames = append(frames, c.syms.Kernel.Format(pc))
		}
		return value.Value{Kind: value.Stack, Frames: frames, PCs: pcs}
	case plan.FUStack:
		pid := int(u64(b, off))
		n := int(u64(b, off+8))
		var frames []string
		for i := 0; i < n && i < f.Depth; i++ {
			pc := u64(b, off+16+8*i)
			if pc == 0 {
				break // the end of the frame-pointer chain
			}
			frames = append(frames, c.userSym(pid, pc))
		}
		return value.Value{Kind: value.UStack, Frames: frames}
	case plan.FSym:
		a := u64(b, off)
		str := c.syms.Kernel.Func(a)
		if f.SymKind == value.Mod {
			str = c.syms.Kernel.Module(a)
		}
		return value.Value{Kind: f.SymKind, Addr: a, Str: str}
	case plan.FUSym:
		a := u64(b, off+8)
		return value.Value{Kind: f.SymKind, Addr: a, Str: c.userSymKind(f.SymKind, int(u64(b, off)), a)}
	case plan.FBytes:
		return value.Value{Kind: value.Bytes, Raw: append([]byte(nil), b[off:off+f.Size]...), Size: f.Size}
	}
	return value.Value{}
}

// Symbols are the symbol tables a consumer names addresses with. Sessions
// may share one (it is safe for concurrent use, and its caches then serve
// them all); nil fields take the process's shared tables.
type Symbols struct {
	Kernel *sym.Kernel
	// Users symbolises user addresses per process. Its Snapshot keeps a
	// process's mappings (and the objects they map) so that stacks of a
	// process that has exited since can still be read.
	Users *sym.Users
}

// shared are the tables consumers use unless told otherwise.
var shared = Symbols{Kernel: sym.Shared(), Users: new(sym.Users)}

// tracerFrame reports whether pc is in the tracing machinery that runs the
// BPF program rather than in the traced code.
func (c *Consumer) tracerFrame(pc uint64) bool {
	return c.syms.Kernel.IsTracer(pc)
}

func (c *Consumer) userSym(pid int, a uint64) string {
	c.syms.Users.Snapshot(pid)
	return c.syms.Users.FormatFrame(pid, a)
}

// KernelAddr implements value.Namer: %a of an integer.
func (c *Consumer) KernelAddr(a uint64) string { return c.syms.Kernel.Format(a) }

// UserAddr implements value.Namer: %A of an integer names an address of
// $target, the first process -c or -p gave.
func (c *Consumer) UserAddr(a uint64) (string, bool) {
	if len(c.targets) == 0 {
		return "", false
	}
	return c.userSymKind(value.UAddr, c.targets[0], a), true
}

// userSymKind renders usym(), ufunc(), umod() and uaddr() values.
func (c *Consumer) userSymKind(k value.Kind, pid int, a uint64) string {
	u := c.syms.Users
	u.Snapshot(pid)
	switch k {
	case value.UMod:
		return u.Mod(pid, a)
	case value.UAddr:
		return u.Addr(pid, a)
	}
	return u.Sym(pid, a)
}

// LastLook reads the address space of a process that is exiting (held at
// its exit by its tracer, mappings intact), so that its user addresses can
// be named once it is gone. It is safe to call from another goroutine.
func (c *Consumer) LastLook(pid int) {
	c.syms.Users.Refresh(pid)
}

// Watch adds a process ($target) whose address space WatchProcesses keeps
// reading while it lives.
func (c *Consumer) Watch(pid int) { c.targets = append(c.targets, pid) }

// WatchProcesses snapshots the address spaces of the processes whose user
// addresses the aggregations hold, while they live, so that printing them
// at the end still names their functions. The driver calls it as it polls;
// it does the work at most ten times a second.
func (c *Consumer) WatchProcesses() {
	if time.Since(c.lastWatch) < 100*time.Millisecond {
		return
	}
	c.lastWatch = time.Now()
	for _, pid := range c.targets {
		// the target maps libraries as it runs: read its maps afresh
		if syscall.Kill(pid, 0) == nil {
			c.syms.Users.Refresh(pid)
		}
	}
	for _, a := range c.p.Aggs {
		var offs []int
		for _, f := range a.Keys {
			if f.Kind == plan.FUStack || f.Kind == plan.FUSym {
				offs = append(offs, f.Offset)
			}
		}
		m := c.s.Maps[a.Map]
		if len(offs) == 0 || m == nil {
			continue
		}
		key := make([]byte, a.KeySize)
		var next []byte
		var prev any
		for m.NextKey(prev, &next) == nil {
			copy(key, next)
			for _, off := range offs {
				if pid := int(u64(key, off)); pid > 0 && !c.watched[pid] {
					c.watched[pid] = true
					c.syms.Users.Snapshot(pid)
				}
			}
			prev = key
		}
	}
}

// DTrace's fault codes (DTRACEFLT_*, which D programs compare the ERROR
// probe's arg4 with).
const (
	dtraceFltUnknown   = 0
	dtraceFltBadAddr   = 1
	dtraceFltIllOp     = 3
	dtraceFltDivZero   = 4
	dtraceFltNoScratch = 5
)

// dtraceFault is DTrace's code for a fault of sonde's plan: the faults
// DTrace has no code for (an index out of bounds, which only Oracle's
// DTrace numbers) are DTRACEFLT_UNKNOWN.
func dtraceFault(f uint32) uint64 {
	switch f {
	case plan.FaultBadAddr:
		return dtraceFltBadAddr
	case plan.FaultDivZero:
		return dtraceFltDivZero
	case plan.FaultIllOp:
		return dtraceFltIllOp
	case plan.FaultNoScratch:
		return dtraceFltNoScratch
	}
	return dtraceFltUnknown
}

// runtimeError reports a fault the DTrace way and keeps going.
func (c *Consumer) runtimeError(b []byte) {
	if len(b) < plan.ErrRecSize {
		return
	}
	probe := c.probeOf(u32(b, plan.HdrProbe))
	if probe.Provider == "dtrace" && probe.Name == "ERROR" {
		// As DTrace does, an error in an ERROR clause is counted
		// ("N errors in ERROR probe enabling"), not reported, and does
		// not fire ERROR again.
		c.dblErrors++
		return
	}
	epid := u32(b, plan.ErrClause)
	fault := u32(b, plan.ErrFault)
	site := int(u32(b, plan.ErrSite))
	addr := u64(b, plan.ErrAddr)
	var what string
	switch fault {
	case plan.FaultBadAddr:
		what = fmt.Sprintf("invalid address (0x%x)", addr)
	case plan.FaultDivZero:
		what = "divide-by-zero"
	case plan.FaultBadIndex:
		what = fmt.Sprintf("index out of bounds (%d)", int64(addr))
	case plan.FaultNoScratch:
		what = "out of scratch space"
	default:
		what = "illegal operation"
	}
	where := ""
	if site < len(c.p.Sites) {
		st := c.p.Sites[site]
		if st.Action == 0 {
			where = "in predicate"
		} else {
			where = fmt.Sprintf("in action #%d", st.Action)
		}
		where += " at " + st.Pos.String()
	}
	c.errs++
	c.opts.Sink.Fault(&value.Fault{EPID: epid, Probe: probe, What: what, Where: where})
	if c.s.HasRun("ERROR") {
		// ERROR's arguments as DTrace gives them: the EPID, the action
		// (0: the predicate), -1 for the DIF offset BPF code has not,
		// the DTRACEFLT_* code and the address or value
		action := 0
		if site < len(c.p.Sites) {
			action = c.p.Sites[site].Action
		}
		_ = c.s.Run("ERROR", 0, uint64(epid), uint64(action), ^uint64(0), dtraceFault(fault), addr)
		if !c.inError {
			// ERROR's records follow at once; the errors among
			// them run ERROR in turn but do not nest further.
			c.inError = true
			_ = c.Drain()
			c.inError = false
		}
	}
}

// freeSpec makes speculative buffer id free again, now that its records
// are committed or discarded: its slot in the globals map, which commit()
// or discard() left done so that no speculation() could hand it out while
// its records were still on their way, goes back to 0.
func (c *Consumer) freeSpec(id int64) {
	if id < 1 || id > int64(c.p.NSpec) {
		return
	}
	m := c.s.Maps[plan.MapGlobals]
	if m == nil {
		return
	}
	mem, err := m.Memory()
	if err != nil {
		return
	}
	var zero [8]byte
	_, _ = mem.WriteAt(zero[:], int64(c.p.SpecSlots)+8*(id-1))
}

// Stats reports what has been lost since the last call, in DTrace's words
// (dt_handle_cpudrop, dt_handle_status): records and aggregation entries
// per CPU ("N drops on CPU n", "N aggregation drops on CPU n"), then
// dynamic variables ("N dynamic variable drops") and errors in ERROR
// clauses ("N errors in ERROR probe enabling"). The driver calls it at the
// statusrate and at the end.
func (c *Consumer) Stats() {
	if m := c.s.Maps[plan.MapStats]; m != nil {
		c.cpuDrops(m, plan.StatDrops, value.DropRecords)
		c.cpuDrops(m, plan.StatAggDrops, value.DropAggs)
		for _, st := range []struct {
			stat int
			kind value.LossKind
		}{{plan.StatDynDrops, value.DropDynVars}, {plan.StatSpecUnavail, value.SpecUnavail}, {plan.StatSpecBusy, value.SpecBusy}} {
			if d := c.newCounts(m, st.stat); d != nil {
				if n := sum(d); n > 0 {
					c.opts.Sink.Loss(value.Loss{Kind: st.kind, CPU: -1, N: n})
				}
			}
		}
	}
	if n := c.specDrops - c.lastSpecDrops; n > 0 {
		c.lastSpecDrops = c.specDrops
		c.opts.Sink.Loss(value.Loss{Kind: value.SpecDrops, CPU: -1, N: n})
	}
	if n := c.dblErrors - c.lastDblErrors; n > 0 {
		c.lastDblErrors = c.dblErrors
		c.opts.Sink.Loss(value.Loss{Kind: value.ErrorErrors, CPU: -1, N: n})
	}
}

// cpuDrops reports counter i's new counts, CPU by CPU.
func (c *Consumer) cpuDrops(m *ebpf.Map, i int, kind value.LossKind) {
	for cpu, n := range c.newCounts(m, i) {
		if n > 0 {
			c.opts.Sink.Loss(value.Loss{Kind: kind, CPU: cpu, N: n})
		}
	}
}

// newCounts returns how much counter i of the stats map has grown on each
// CPU since the last call.
func (c *Consumer) newCounts(m *ebpf.Map, i int) []uint64 {
	var per []uint64
	if err := m.Lookup(uint32(i), &per); err != nil {
		return nil
	}
	last := c.lastStat[i]
	if len(last) < len(per) {
		last = append(last, make([]uint64, len(per)-len(last))...)
	}
	d := make([]uint64, len(per))
	for cpu, v := range per {
		d[cpu] = v - last[cpu]
		last[cpu] = v
	}
	c.lastStat[i] = last
	return d
}

func sum(xs []uint64) uint64 {
	var n uint64
	for _, x := range xs {
		n += x
	}
	return n
}

// ---------------------------------------------------------------------------
// Aggregations

// Snapshot reads aggregation id, merged over CPUs.
func (c *Consumer) Snapshot(id int) *value.Aggregation {
	a := c.p.Aggs[id]
	out := &value.Aggregation{Name: a.Name, ID: a.ID, Func: a.Func, Params: a.Params, Normal: c.normal[id]}
	m := c.s.Maps[a.Map]
	if m == nil {
		return out
	}
	raw := map[string]value.AggValue{}
	defer func() {
		if c.snaps == nil {
			c.snaps = map[int]aggSnap{}
		}
		c.snaps[id] = aggSnap{firing: c.nfiring, vals: raw}
	}()
	if len(a.Keys) == 0 {
		var per [][]byte
		if err := m.Lookup(uint32(0), &per); err == nil {
			v, ok := merge(a, per)
			if ok {
				raw[""] = v
			}
			if b, has := c.base[id][""]; has {
				v = minus(v, b)
				ok = ok && !isZero(v)
			}
			if ok || c.cleared[id] {
				out.Rows = append(out.Rows, value.AggRow{Val: v})
			}
		}
		return out
	}
	it := m.Iterate()
	key := make([]byte, a.KeySize)
	var per [][]byte
	for it.Next(&key, &per) {
		v, ok := merge(a, per)
		if !ok {
			continue
		}
		raw[string(key)] = v
		if b, has := c.base[id][string(key)]; has {
			v = minus(v, b)
		}
		if _, gone := c.truncd[id][string(key)]; gone && isZero(v) {
			continue // trunc() removed it, and nothing fired for it since
		}
		var keys []value.Value
		for _, f := range a.Keys {
			keys = append(keys, c.decode(f, key, f.Offset))
		}
		out.Rows = append(out.Rows, value.AggRow{Keys: keys, Val: v})
	}
	// Keys trunc() removed from the kernel with events still to show
	// (truncCarry), and keys clear() zeroed since, which the kernel has
	// not seen again: what the base holds for them.
	for k, b := range c.base[id] {
		if _, seen := raw[k]; seen {
			continue
		}
		raw[k] = zeroLike(b)
		if _, gone := c.truncd[id][k]; gone && isZero(b) {
			continue
		}
		var keys []value.Value
		for _, f := range a.Keys {
			keys = append(keys, c.decode(f, []byte(k), f.Offset))
		}
		out.Rows = append(out.Rows, value.AggRow{Keys: keys, Val: minus(zeroLike(b), b)})
	}
	if hasSymKey(a) {
		out.Rows = mergeRows(a, out.Rows)
	}
	return out
}

func hasSymKey(a *plan.Agg) bool {
	for _, f := range a.Keys {
		switch f.Kind {
		case plan.FSym, plan.FUSym, plan.FProbeProv, plan.FProbeMod, plan.FProbeFunc, plan.FProbeName:
			// several probes share a provider, a module...
			return true
		}
	}
	return false
}

// mergeRows merges entries whose keys print the same: symbol keys are
// aggregated by function (or module), as DTrace does for sym()/func(), and
// probeprov/probemod/probefunc/probename keys, held as probe IDs, by the
// strings they stand for.
func mergeRows(a *plan.Agg, rows []value.AggRow) []value.AggRow {
	index := map[string]int{}
	var out []value.AggRow
	for _, r := range rows {
		k := keyString(r.Keys)
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			out = append(out, r)
			continue
		}
		out[i].Val = out[i].Val.Merge(a.Func, r.Val)
	}
	return out
}

func keyString(ks []value.Value) string {
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "%d|%d|%s|%s|", k.Kind, k.Int, k.Str, strings.Join(k.Frames, ","))
	}
	return b.String()
}

// merge sums the per-CPU values of one entry, word by word of the
// value's layout (plan.Agg.Layout); ok is false for an entry that was
// never updated (an aggregation without keys that did not fire, or one
// cleared).
func merge(a *plan.Agg, per [][]byte) (value.AggValue, bool) {
	var v value.AggValue
	if a.Buckets > 0 {
		v.Buckets = make([]int64, a.Buckets)
	}
	any := false
	for _, b := range per {
		if len(b) < a.ValSize {
			continue
		}
		any = mergeCPU(a, &v, b) || any
	}
	if a.Func == value.Sum {
		v.Count = 0
	}
	return v, any || len(a.Keys) > 0
}

// mergeCPU adds one CPU's value b into v; it reports whether b held
// anything.
func mergeCPU(a *plan.Agg, v *value.AggValue, b []byte) bool {
	word := func(w plan.AggWord) int64 { return int64(u64(b, a.Off(w))) }
	if a.Buckets > 0 {
		base, any := a.Off(plan.WordBuckets), false
		for i := range v.Buckets {
			x := int64(u64(b, base+8*i))
			v.Buckets[i] += x
			any = any || x != 0
		}
		return any
	}
	n := word(plan.WordCount)
	if n == 0 {
		return false
	}
	switch a.Func {
	case value.Min, value.Max:
		x := int64(uint64(word(plan.WordExtreme)) ^ plan.ExtremeMask(a.Func))
		if v.Count == 0 || (a.Func == value.Min && x < v.Min) || (a.Func == value.Max && x > v.Max) {
			v.Min, v.Max = x, x
		}
	case value.Sum, value.Avg:
		v.Sum += word(plan.WordSum)
	case value.Stddev:
		v.Sum += word(plan.WordSum)
		lo := uint64(word(plan.WordSumSqLo))
		nlo := v.SumSqLo + lo
		if nlo < lo {
			v.SumSqHi++
		}
		v.SumSqLo = nlo
		v.SumSqHi += uint64(word(plan.WordSumSqHi))
	}
	v.Count += n
	return true
}

// firingOf counts a new probe firing unless record b continues the
// current one: the same probe on the same CPU, a clause not seen yet.
func (c *Consumer) firingOf(b []byte) {
	key := uint64(u32(b, plan.HdrProbe))<<32 | uint64(u32(b, plan.HdrCPU))
	epid := u32(b, plan.HdrEPID)
	if key == c.firingKey && !slices.Contains(c.firingEPIDs, epid) {
		c.firingEPIDs = append(c.firingEPIDs, epid)
		return
	}
	c.nfiring++
	c.firingKey, c.firingEPIDs = key, append(c.firingEPIDs[:0], epid)
}

// aggSnap is what one Snapshot read: merged values by raw key ("" for an
// aggregation without keys).
type aggSnap struct {
	firing uint64
	vals   map[string]value.AggValue
}

// subtracts reports whether an aggregation's values subtract: what
// clear() takes away can be kept aside instead of zeroed in the kernel.
func subtracts(fn value.AggFunc) bool { return fn != value.Min && fn != value.Max }

// minus is v less b, word by word (the sums of squares with a borrow).
func minus(v, b value.AggValue) value.AggValue {
	v.Count -= b.Count
	v.Sum -= b.Sum
	if v.SumSqLo < b.SumSqLo {
		v.SumSqHi--
	}
	v.SumSqLo -= b.SumSqLo
	v.SumSqHi -= b.SumSqHi
	if len(v.Buckets) > 0 || len(b.Buckets) > 0 {
		d := make([]int64, max(len(v.Buckets), len(b.Buckets)))
		copy(d, v.Buckets)
		for i, x := range b.Buckets {
			d[i] -= x
		}
		v.Buckets = d
	}
	return v
}

func isZero(v value.AggValue) bool {
	if v.Count != 0 || v.Sum != 0 || v.SumSqLo != 0 || v.SumSqHi != 0 {
		return false
	}
	for _, x := range v.Buckets {
		if x != 0 {
			return false
		}
	}
	return true
}

// clearBase is clear() of an aggregation whose values subtract: the values
// printa() read in this firing (or, without one, read now) become what is
// taken away; the kernel's entries are left alone.
func (c *Consumer) clearBase(id int) {
	sn, ok := c.snaps[id]
	if !ok || sn.firing != c.nfiring {
		c.Snapshot(id)
		sn = c.snaps[id]
	}
	if c.base == nil {
		c.base = map[int]map[string]value.AggValue{}
	}
	c.base[id] = sn.vals
	if len(c.p.Aggs[id].Keys) == 0 {
		if c.cleared == nil {
			c.cleared = map[int]bool{}
		}
		if _, had := sn.vals[""]; had {
			c.cleared[id] = true
		}
	}
}

// truncCarry removes entries of an aggregation whose values subtract
// (trunc(): all of them, or all but the keep largest or smallest) without
// losing what fires meanwhile. Deleting a kernel entry loses the events
// that land between printa()'s read of it and its deletion (0.2% of them
// at a trunc() every 100 ms), and a deletion loses an update a running
// probe has looked the entry up for. So an entry trunc() removes is kept
// in the kernel, less what printa() printed (as clear() does), and not
// shown until something fires for it again; an entry nothing fired for
// since the last trunc() is deleted then, read at once
// (BPF_MAP_LOOKUP_AND_DELETE_ELEM) so that what landed meanwhile is
// carried into the next interval (the base then holds it), and the
// kernel's map does not fill with keys that are gone. An aggregation
// without keys keeps its one entry, less what was printed, as clear()
// does, but shows it only once it is not zero.
func (c *Consumer) truncCarry(id int, keep int64) {
	a := c.p.Aggs[id]
	m := c.s.Maps[a.Map]
	sn, ok := c.snaps[id]
	if !ok || sn.firing != c.nfiring {
		c.Snapshot(id)
		sn = c.snaps[id]
	}
	if len(a.Keys) == 0 {
		c.clearBase(id)
		c.cleared[id] = false
		return
	}
	drop := map[string]bool{}
	if keep != 0 {
		rows := c.rawRows(id, sn)
		sort.SliceStable(rows, func(i, j int) bool { return scalar(rows[i].val) < scalar(rows[j].val) })
		// keep the top |keep| entries (DTrace keeps the largest for n > 0)
		var out []rawRow
		if keep > 0 && int(keep) < len(rows) {
			out = rows[:len(rows)-int(keep)]
		} else if keep < 0 && int(-keep) < len(rows) {
			out = rows[-keep:]
		}
		for _, r := range out {
			for _, k := range r.raw {
				drop[k] = true
			}
		}
	} else {
		for k := range sn.vals {
			drop[k] = true
		}
	}
	if c.base == nil {
		c.base = map[int]map[string]value.AggValue{}
	}
	if c.base[id] == nil {
		c.base[id] = map[string]value.AggValue{}
	}
	if c.truncd == nil {
		c.truncd = map[int]map[string]value.AggValue{}
	}
	if c.truncd[id] == nil {
		c.truncd[id] = map[string]value.AggValue{}
	}
	for k := range drop {
		printed := sn.vals[k]
		if prev, was := c.truncd[id][k]; !was || !same(prev, printed) {
			// fired for since it was last removed (or never removed):
			// kept in the kernel, less what was printed
			c.base[id][k] = printed
			c.truncd[id][k] = printed
			continue
		}
		// idle for an interval: deleted, what landed meanwhile carried
		var per [][]byte
		now := zeroLike(printed)
		if err := m.LookupAndDelete([]byte(k), &per); err == nil {
			now, _ = merge(a, per)
		} else if !errors.Is(err, ebpf.ErrKeyNotExist) {
			_ = m.Delete([]byte(k)) // no lookup-and-delete for this map: as before
		}
		delete(c.truncd[id], k)
		if rest := minus(now, printed); isZero(rest) {
			delete(c.base[id], k)
		} else {
			c.base[id][k] = minus(zeroLike(rest), rest)
		}
	}
}

// same says whether two raw values are equal.
func same(a, b value.AggValue) bool {
	return isZero(minus(a, b))
}

// rawRow is an entry of a snapshot by its printed keys: the raw keys
// that print alike (mergeRows) and their summed shown value.
type rawRow struct {
	raw []string
	val value.AggValue
}

// rawRows gives the entries of snapshot sn of aggregation id as they
// print (shown values: raw less base), with the raw keys of each.
func (c *Consumer) rawRows(id int, sn aggSnap) []rawRow {
	a := c.p.Aggs[id]
	index := map[string]int{}
	var rows []rawRow
	for k, v := range sn.vals {
		if b, has := c.base[id][k]; has {
			v = minus(v, b)
		}
		if _, gone := c.truncd[id][k]; gone && isZero(v) {
			continue // not shown (Snapshot)
		}
		var keys []value.Value
		for _, f := range a.Keys {
			keys = append(keys, c.decode(f, []byte(k), f.Offset))
		}
		name := fmt.Sprint(keys)
		if i, ok := index[name]; ok {
			rows[i].raw = append(rows[i].raw, k)
			rows[i].val = plus(rows[i].val, v)
			continue
		}
		index[name] = len(rows)
		rows = append(rows, rawRow{raw: []string{k}, val: v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].raw[0] < rows[j].raw[0] })
	return rows
}

// zeroLike is a zero value with v's number of buckets.
func zeroLike(v value.AggValue) value.AggValue {
	z := value.AggValue{}
	if len(v.Buckets) > 0 {
		z.Buckets = make([]int64, len(v.Buckets))
	}
	return z
}

// plus is v and b added, word by word (the sums of squares with a carry).
func plus(v, b value.AggValue) value.AggValue {
	return minus(v, minus(zeroLike(b), b))
}

// clearAgg zeroes (clear) or removes (trunc) entries of an aggregation.
func (c *Consumer) clearAgg(id int, trunc bool, keep int64) {
	a := c.p.Aggs[id]
	m := c.s.Maps[a.Map]
	if m == nil {
		return
	}
	if !trunc && subtracts(a.Func) {
		c.clearBase(id)
		return
	}
	if trunc && subtracts(a.Func) {
		c.truncCarry(id, keep)
		return
	}
	if trunc && keep == 0 {
		delete(c.base, id) // the kernel's entries go: they restart at zero
	}
	if len(a.Keys) == 0 {
		if c.cleared == nil {
			c.cleared = map[int]bool{}
		}
		var per [][]byte
		if err := m.Lookup(uint32(0), &per); err == nil {
			if _, ok := merge(a, per); ok {
				c.cleared[id] = !trunc
			}
		}
		if trunc {
			c.cleared[id] = false
		}
		zero := make([][]byte, len(mustCPUs()))
		for i := range zero {
			zero[i] = make([]byte, a.ValSize)
		}
		_ = m.Update(uint32(0), zero, ebpf.UpdateAny)
		return
	}
	if trunc && keep != 0 {
		snap := c.Snapshot(id)
		rows := snap.Rows
		sort.SliceStable(rows, func(i, j int) bool { return scalar(rows[i].Val) < scalar(rows[j].Val) })
		// keep the top |keep| entries (DTrace keeps the largest for n > 0)
		var drop []value.AggRow
		if keep > 0 && int(keep) < len(rows) {
			drop = rows[:len(rows)-int(keep)]
		} else if keep < 0 && int(-keep) < len(rows) {
			drop = rows[-keep:]
		}
		dropSet := map[string]bool{}
		for _, r := range drop {
			dropSet[fmt.Sprint(r.Keys)] = true
		}
		c.eachKey(a, m, func(k []byte) {
			var keys []value.Value
			for _, f := range a.Keys {
				keys = append(keys, c.decode(f, k, f.Offset))
			}
			if dropSet[fmt.Sprint(keys)] {
				_ = m.Delete(k)
				delete(c.base[id], string(k))
			}
		})
		return
	}
	zero := make([][]byte, len(mustCPUs()))
	for i := range zero {
		zero[i] = make([]byte, a.ValSize)
	}
	c.eachKey(a, m, func(k []byte) {
		if trunc {
			_ = m.Delete(k)
		} else {
			_ = m.Update(k, zero, ebpf.UpdateExist)
		}
	})
}

func (c *Consumer) eachKey(a *plan.Agg, m *ebpf.Map, f func([]byte)) {
	var keys [][]byte
	it := m.Iterate()
	key := make([]byte, a.KeySize)
	var per [][]byte
	for it.Next(&key, &per) {
		keys = append(keys, append([]byte(nil), key...))
	}
	for _, k := range keys {
		f(k)
	}
}

func mustCPUs() []int {
	n, err := ebpf.PossibleCPU()
	if err != nil || n < 1 {
		n = 1
	}
	return make([]int, n)
}

// printa snapshots the aggregations a printa() prints.
func (c *Consumer) printa(a *plan.Action) []*value.Aggregation {
	var aggs []*value.Aggregation
	for _, id := range a.Aggs {
		aggs = append(aggs, c.Snapshot(id))
		c.printed[id] = true
	}
	return aggs
}

// Final hands the sink every aggregation with data that printa() has not
// printed, as DTrace prints them when tracing stops.
func (c *Consumer) Final() {
	for _, r := range c.ring { // bufpolicy=ring: what the ring kept
		c.opts.Sink.Firing(r.f)
	}
	c.ring, c.ringBytes = nil, 0
	var aggs []*value.Aggregation
	for i := range c.p.Aggs {
		if !c.printed[i] {
			if a := c.Snapshot(i); len(a.Rows) > 0 {
				aggs = append(aggs, a)
			}
		}
	}
	c.opts.Sink.Final(aggs)
}

// Errors returns the number of runtime errors reported.
func (c *Consumer) Errors() int { return c.errs }

// scalar is the value trunc() ranks entries by.
func scalar(v value.AggValue) int64 {
	var n int64
	for _, b := range v.Buckets {
		n += b
	}
	return v.Count + v.Sum + n
}
