// Package plan is the deterministic description of a compiled D program:
// one BPF program per kernel hook (with symbolic labels and map references),
// the map specs, and the record and aggregation descriptors that are the
// only contract between the code generator and the consumer. Nothing here
// touches the kernel.
package plan

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/value"
)

// Map names used by generated code.
const (
	MapScratch = "scratch" // per-CPU array, 1 entry: probe context, this-> vars, temporaries, records
	MapRing    = "ring"    // ring buffer of records
	MapGlobals = "globals" // array, 1 entry: global scalars
	MapSelf    = "self"    // task storage: self-> variables
	MapStats   = "stats"   // per-CPU array of counters (Stat*)
	// MapGenerations: array, 1 entry, u32: which generation of the
	// aggregations is current (0 or 1: the slot of their outer maps), with
	// codegen.Options.AggGenerations (runtime.Session.Flip)
	MapGenerations = "gens"
)

// GenerationSlot is the name by which code with aggregation generations
// references generation i (0 or 1) of the aggregation map named agg: the
// map the runtime puts in slot i of agg's outer map.
func GenerationSlot(agg string, i int) string { return fmt.Sprintf("%s.%d", agg, i) }

// Counters in the stats map (u64 each, summed over CPUs).
const (
	StatDrops       = iota // records the ring buffer had no room for
	StatAggDrops           // aggregation entries that did not fit, and min()/max() updates that other programs kept from applying
	StatDynDrops           // dynamic variables (self->, assoc) that did not fit
	StatErrors             // runtime errors
	StatSpecUnavail        // speculation() found every speculative buffer active
	StatSpecBusy           // speculation() found buffers committed or discarded, not yet emptied
	NumStats
)

// The globals map's first words, before the D program's global variables.
const (
	GlobWallClock = 0  // i64: realtime minus boot time, set by the runtime
	GlobSpecID    = 8  // u64: the last speculation ID handed out
	GlobActivity  = 16 // u64: Act*, DTrace's dts_activity
	GlobExit      = 24 // i64: the status exit() was called with
	GlobReserved  = 32 // the D program's globals start here
)

// DTrace's activity states (dtrace_state_t.dts_activity) in the globals
// map: until BEGIN has run, only BEGIN fires; once exit() is called or the
// consumer stops tracing, only END and ERROR do.
const (
	ActWarmup   = 0 // BEGIN has not run (or is running)
	ActActive   = 1
	ActDraining = 2 // exit() was called, or tracing was stopped
)

// Record header: every record begins with these fields.
const (
	HdrEPID    = 0  // u32: clause EPID (1-based); ErrorEPID for error records
	HdrProbe   = 4  // u32: probe ID that fired
	HdrCPU     = 8  // u32: CPU
	HdrMask    = 16 // u64: which conditional actions ran (bit per action with Cond set)
	HdrSize    = 24 // first action data
	ErrorEPID  = 0xffffffff
	ErrClause  = 12 // u32: EPID of the failing clause (error records)
	ErrFault   = 16 // u32: Fault*
	ErrSite    = 20 // u32: index into Plan.Sites
	ErrAddr    = 24 // u64: faulting address or value
	ErrRecSize = 32
)

// States of a speculative buffer's slot (Plan.SpecSlots).
const (
	SpecActive = 1
	SpecDone   = 2
)

// Faults reported by error records, with DTrace's names.
const (
	FaultBadAddr   = 1 // invalid address
	FaultDivZero   = 2 // divide-by-zero
	FaultBadSize   = 3
	FaultSpec      = 4 // speculation
	FaultIllOp     = 5 // illegal operation (a bad strtoll() base or inet_ntop() family)
	FaultBadIndex  = 6 // index out of bounds (of an array variable; the value is the index)
	FaultNoScratch = 7 // out of scratch space (a run-time size beyond the room kept; the value is the size)
)

// Plan is a compiled program.
type Plan struct {
	Programs []*Program
	Maps     []*ebpf.MapSpec
	Records  []*Record // by EPID-1
	Aggs     []*Agg    // by aggregation ID
	Probes   []*provider.Probe
	Sites    []Site // error sites: where a runtime error can happen
	// Globals: offsets of the consumer-set constants in the globals map.
	GlobalWallOffset int
	// SpecSlots is the offset in the globals map of NSpec u64 slots, one
	// per speculative buffer: 0 free, SpecActive once speculation() hands
	// out its ID, SpecDone once committed or discarded, until the consumer
	// has emptied it and writes 0. NSpec is 0 when the program makes no
	// speculations.
	SpecSlots, NSpec int
	Options          map[string]string
	NeedsSelf        bool
	// OnlyCPU: the programs record on CPU alone (DTrace's cpu option), and
	// perf events (profile, tick) are opened on it alone.
	OnlyCPU bool
	CPU     int
}

// Site is a place in the D source where a runtime error can be raised.
type Site struct {
	Pos    token.Pos
	Action int // 1-based action number in the clause; 0 for the predicate
}

// Program is a BPF program for one hook (a hook whose clauses are too
// large for one program has several, run in order).
type Program struct {
	Name   string
	Hook   provider.Hook
	Type   ebpf.ProgramType
	Insns  asm.Instructions
	Probes []*provider.Probe
	// For says what a program of no clause is for (a companion program
	// some probes need), for messages.
	For string
	// Spans say which clause each part of Insns is the code of, so that a
	// rejection by the verifier at an instruction can name the clause.
	Spans []Span
}

// Span is where the code of a clause (an index into the plan's records),
// or code of no clause (-1: prologue, epilogue), begins in a program, in
// raw instruction offsets (a 64-bit immediate load counts two).
type Span struct {
	Off    int
	Clause int
}

// ClauseAt returns the index of the clause whose code holds the raw
// instruction offset off, or -1.
func (p *Program) ClauseAt(off int) int {
	c := -1
	for _, s := range p.Spans {
		if s.Off > off {
			break
		}
		c = s.Clause
	}
	return c
}

// Action kinds.
type ActionKind int

// Actions that produce record data.
const (
	ActDefault     ActionKind = iota // empty clause: just the probe line
	ActTrace                         // trace(x): Fields[0]
	ActPrintf                        // printf(Format, Fields...)
	ActPrinta                        // printa([Format,] Aggs...)
	ActExit                          // exit(Fields[0])
	ActClear                         // clear(Aggs[0])
	ActTrunc                         // trunc(Aggs[0], Fields[0] if any)
	ActNormalize                     // normalize(Aggs[0], Fields[0])
	ActDenormalize                   // denormalize(Aggs[0])
	ActStack                         // stack()/ustack() as a statement
	ActTracemem                      // tracemem(addr, Fields[0]=bytes)
	ActSetopt                        // setopt(Str, Str2)
	ActSystem                        // system(Format, Fields...)
	ActRaise                         // raise(Fields[0]): the program sends the signal; the record numbers the action
	ActStop                          // stop(): the program sends SIGSTOP; the record numbers the action
	ActSpeculate                     // speculate(Fields[0]): the rest of the record is speculative
	ActCommit                        // commit(Fields[0])
	ActDiscard                       // discard(Fields[0])
	ActFreopen                       // freopen(Format, Fields...): the output goes to that file ("": back to standard output)
)

// FieldKind says how to decode a field.
type FieldKind int

// Field kinds.
const (
	FInt       FieldKind = iota // Size bytes, Signed
	FString                     // NUL-terminated within Size bytes
	FProbeProv                  // u32 probe ID -> its provider
	FProbeMod
	FProbeFunc
	FProbeName
	FKStack // u64 count + Depth u64 addresses (kernel)
	FUStack // u64 pid + u64 count + Depth u64 addresses (user)
	FSym    // u64 address; SymKind says how to show it
	FUSym   // u64 pid, u64 address
	FBytes  // raw bytes
)

// Field is one datum in a record or a key.
type Field struct {
	Kind    FieldKind
	Offset  int
	Size    int
	Signed  bool
	Depth   int // stacks
	SymKind value.Kind
}

// Action is one data-recording action of a clause.
type Action struct {
	Kind   ActionKind
	Fields []Field
	Format string // printf/printa/system format ("" for printa without one)
	Aggs   []int  // printa/clear/trunc/normalize: aggregation IDs
	Cond   bool   // inside if/else: present only when its mask bit is set
	Bit    int
	Str    []string // setopt: constant arguments
	Pos    token.Pos
}

// Record describes the records one clause emits.
type Record struct {
	EPID    uint32
	Clause  int
	Size    int
	Actions []Action
	Pos     token.Pos
	Probes  []*provider.Probe
}

// Agg describes one aggregation variable.
type Agg struct {
	ID      int
	Name    string
	Func    value.AggFunc
	Params  value.AggParams
	Keys    []Field
	KeySize int
	ValSize int
	Buckets int
	Map     string
	// Layout lists the words of the per-CPU value (SizeValue sets it).
	Layout []AggWord
}

// AggWord names one u64 of an aggregation's per-CPU value. Agg.Layout
// lists them in order: the one statement of the in-map layout, by which
// the code generator updates entries and the consumer merges them.
type AggWord int

// The words of aggregation values.
const (
	WordCount   AggWord = iota // events (count() adds its weight; the others count updates)
	WordSum                    // sum of the values (sum, avg, stddev)
	WordExtreme                // the min or max value, as ExtremeMask says, valid while WordCount > 0
	WordSumSqLo                // stddev's 128-bit sum of squares, low word
	WordSumSqHi                // and high word
	WordBuckets                // the quantizations' buckets, from here to the end
)

// ExtremeMask is what min() and max() XOR their value with in
// WordExtreme: the word zeroed then stands for the empty one (min's
// MaxInt64, max's MinInt64), and a more extreme value is a larger word,
// compared unsigned. One compare-and-exchange of that word updates it,
// whatever programs interrupt each other on a CPU; it does not depend on
// WordCount, a word of its own.
func ExtremeMask(f value.AggFunc) uint64 {
	if f == value.Min {
		return 1<<63 - 1
	}
	return 1 << 63
}

// SizeValue sets the layout and size of the aggregation's per-CPU value:
// [count] for count; [count, sum] for sum and avg; [count, extreme] for
// min and max; [count, sum, sumsq lo, sumsq hi] for stddev; the buckets
// for the quantizations (value.AggBuckets says how many).
func (a *Agg) SizeValue(buckets int) {
	a.Buckets = buckets
	switch {
	case buckets > 0:
		a.Layout = []AggWord{WordBuckets}
	case a.Func == value.Count:
		a.Layout = []AggWord{WordCount}
	case a.Func == value.Stddev:
		a.Layout = []AggWord{WordCount, WordSum, WordSumSqLo, WordSumSqHi}
	case a.Func == value.Min || a.Func == value.Max:
		a.Layout = []AggWord{WordCount, WordExtreme}
	default:
		a.Layout = []AggWord{WordCount, WordSum}
	}
	a.ValSize = 8 * len(a.Layout)
	if buckets > 0 {
		a.ValSize = 8 * buckets
	}
}

// Off is the byte offset of word w in the value, -1 when the value has
// none.
func (a *Agg) Off(w AggWord) int {
	for i, x := range a.Layout {
		if x == w {
			return 8 * i
		}
	}
	return -1
}

// FieldOffset marks a 64-bit constant load whose value must be the offset
// of Struct.Field in the running kernel (resolved from its BTF at load).
// Providers' prologues use the same marks (package provider defines them).
type FieldOffset = provider.FieldOffset

// WithFieldOffset marks ins as a FieldOffset constant.
func WithFieldOffset(ins asm.Instruction, structName, field string) asm.Instruction {
	return provider.WithFieldOffset(ins, structName, field)
}

// FieldOffsetOf returns the FieldOffset mark of ins, if any.
func FieldOffsetOf(ins asm.Instruction) (FieldOffset, bool) {
	return provider.FieldOffsetOf(ins)
}
