package value

// The output model: what a tracing session hands its sink, in order. The
// consumer decodes records into these and the sinks (DTrace's text, JSON,
// folded stacks, the agent) render or store them; neither side knows the
// other.

// Probe names a probe as output shows it.
type Probe struct {
	ID                               uint32
	Provider, Module, Function, Name string
}

// ItemKind is the kind of one piece of a firing's output.
type ItemKind int

// Item kinds.
const (
	ItemTrace  ItemKind = iota // trace(), stack(), ustack(), tracemem(): Args[0]
	ItemPrintf                 // printf(Format, Args...)
	ItemPrinta                 // printa(Format, Aggs...); Format "" for the default layout
)

// Item is one piece of a firing's output, in the order its clause made it.
type Item struct {
	Kind   ItemKind
	Format string
	Args   []Value
	Aggs   []*Aggregation // printa: the aggregations as they were then
	// Names names the integers that printf's and printa's %a and %A
	// print as addresses; nil prints them as numbers.
	Names Namer
}

// Namer names addresses as DTrace's %a and %A print them
// (dtrace_addr2str, dtrace_uaddr2str): module`symbol+0xoffset.
type Namer interface {
	// KernelAddr names a kernel address.
	KernelAddr(a uint64) string
	// UserAddr names an address of the traced process ($target); false
	// when there is none.
	UserAddr(a uint64) (string, bool)
}

// Firing is the output of one firing of a clause: the probe, the CPU and
// the items its actions produced. A firing that system() or commit()
// interrupts is handed over in parts: More says the next Firing continues
// this one, Cont that this one continues the last (a text sink prints the
// probe's prefix once, before the first part, and its end after the last).
type Firing struct {
	Probe Probe
	EPID  uint32 // the clause's enabled probe ID (one per clause and probe)
	CPU   int
	Items []Item
	More  bool
	Cont  bool
}

// Fault is a runtime error in probe context: DTrace's "error on enabled
// probe ID EPID (ID n: probe): What Where".
type Fault struct {
	EPID  uint32
	Probe Probe
	What  string // "invalid address (0x0)", "divide-by-zero"...
	Where string // "in action #1 at file:1:2", "in predicate at ..."
}

// LossKind says what was lost.
type LossKind int

// Losses, in DTrace's terms.
const (
	DropRecords LossKind = iota // records the buffer had no room for ("drops on CPU n")
	DropAggs                    // aggregation entries that did not fit ("aggregation drops on CPU n")
	DropDynVars                 // dynamic variables that did not fit ("dynamic variable drops")
	ErrorErrors                 // errors in ERROR clauses ("errors in ERROR probe enabling")
	SpecUnavail                 // speculation() with every buffer active ("failed speculations (no speculative buffer available)")
	SpecBusy                    // speculation() with buffers not yet emptied ("failed speculations (available buffer(s) still busy)")
	SpecDrops                   // speculative records past specsize ("speculative drops")
)

// Loss is what was lost since the last report: N of Kind, on CPU (-1 when
// not counted per CPU).
type Loss struct {
	Kind LossKind
	CPU  int
	N    uint64
}

// Sink receives a session's output. Calls come from one goroutine, in the
// order things happened.
type Sink interface {
	// Firing is one record's output.
	Firing(f *Firing)
	// Fault is a runtime error.
	Fault(f *Fault)
	// Loss reports data lost since the last report.
	Loss(l Loss)
	// SetOption is setopt() at run time (quiet, aggsortkey...).
	SetOption(name, value string)
	// Final is the end: the aggregations printa() has not printed, as
	// DTrace prints them when tracing stops.
	Final(aggs []*Aggregation)
}
