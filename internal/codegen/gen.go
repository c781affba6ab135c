// Package codegen turns a checked D program into a plan: BPF instructions
// (cilium/ebpf asm with symbolic labels), map specs and record descriptors.
//
// Code shape, per hook:
//
//	R6 = ctx; R7 = scratch (per-CPU); provider prologue fills the probe
//	context; then each clause enabled on the hook, in program order:
//	guard, [R8 = self storage], predicate, statements, record output.
//
// Temporaries live on the BPF stack (8-byte slots below R10) or in scratch;
// R8 holds the self-> storage and R9 is free for the expression evaluator.
// Generation is deterministic and runs twice: the first pass measures
// each clause's temporary and record space, the second lays them out.
package codegen

import (
	"errors"
	"fmt"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// Options tune code generation.
type Options struct {
	StrSize     int
	AggEntries  int // max entries of keyed aggregations
	DynEntries  int // max entries of associative arrays
	RingSize    int // bytes, power of two
	Destructive bool
	NSpec       int // the nspec option: speculative buffers (spec.go)
	// FullScratch sizes the scratch map for the largest program there can
	// be, not for this one: a plan generated again later (a traced process
	// loaded a library, and clauses that had no probes now have some) can
	// then run with the maps of this one.
	FullScratch bool
	// AggGenerations keeps each aggregation in two generations, the
	// current one chosen by a branch on a one-word index at each update,
	// for a reader that swaps them (generation.go); sonde itself reads
	// aggregations in place. The code is otherwise sonde's.
	AggGenerations bool
	// Providers says which provider publishes each probe: its prologue
	// and guards are emitted for the probe's hook.
	Providers provider.Owners
	// OnlyCPU: probes record only when they fire on CPU (DTrace's cpu
	// option); BEGIN, END and ERROR run regardless.
	OnlyCPU bool
	CPU     int
}

const (
	regSelf    = asm.R8
	regTmp     = asm.R9
	maxScratch = 32 * 1024
)

// Error is a code generation error with a position.
type Error struct {
	Pos token.Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

type varLoc struct {
	off  int
	size int
}

type gen struct {
	info *check.Info
	opts Options
	p    *plan.Plan

	usesCurcpu  bool          // the cpuinfo map is needed (cpuinfo.go)
	usesKframes bool          // the kframes map is needed (kstack.go)
	hook        provider.Hook // the hook of the program being generated
	nspec       int           // speculative buffers (spec.go)
	specOff     int           // their slots in the globals map
	strtok      *strtokState  // strtok's region of scratch (strtok.go)

	globals  map[*check.Var]varLoc
	globSize int
	selfs    map[*check.Var]varLoc
	selfSize int
	// deferStack holds, in each thread's self-> storage, the user stack
	// it had when it last went off CPU, for ustack() in clauses that fire
	// for another thread (sched:::on-cpu); deferDepth is its depth, 0 when
	// no such clause uses ustack().
	deferStack varLoc
	deferDepth int
	thiss      map[*check.Var]varLoc
	thisEnd    int
	assoc      map[*check.Var]*assocMap
	aggs       map[*check.Var]*plan.Agg

	// layout measured in pass 1
	tempBase int
	recBase  int
	zeroBase int
	maxTemp  int
	maxRec   int
	maxZero  int
	subprogs map[string]bool
	subs     asm.Instructions      // bpf_loop callbacks of the program, emitted after it
	sizes    map[*check.Clause]int // instructions of each clause's code in the program

	// per program
	insns  asm.Instructions
	labels int
	prog   string
	// slot is the program's entry of the scratch map, and slots how many
	// programs have one: each program has its own, because programs
	// interrupt each other on a CPU (a profile probe's in a syscall
	// probe's, a tracepoint's in an interrupt in another's), and a shared
	// entry had one overwrite the other's probe context mid-clause.
	slot, slots int

	// per clause
	cl      *check.Clause
	rec     *plan.Record
	recOff  int
	tempOff int
	stack   int // bytes of stack slots in use
	cond    int // depth of if statements
	abort   string
	useSelf bool
	needs   provider.Needs
	needTS  bool
	errs    []error
	action  int
	strBack map[ast.Expr]bool // strings strInto has asked strExpr to place
	xl      xlState           // translator parameters bound (xlate.go)
	// stackBase is stack at a clause's start: fp-8 holds the scratch key;
	// in a program with a request subject, fp-16 the request's maker and
	// fp-24 its entry (reqsubj.go)
	stackBase int
	reqSubj   bool // some probe has a request subject (reqsubj.go)
	// reqKStack and reqUStack are the sizes of the stacks kept for
	// clauses with a request subject (reqsubj.go)
	reqKStack, reqUStack int
}

type assocMap struct {
	self    bool // self->: the key begins with the thread ID
	name    string
	keys    []plan.Field
	keySize int
	valSize int
}

// Generate builds the plan for a checked program.
func Generate(info *check.Info, opts Options) (*plan.Plan, error) {
	if opts.Providers == nil {
		return nil, errors.New("codegen: Options.Providers is required")
	}
	if opts.StrSize <= 0 {
		opts.StrSize = 256
	}
	if opts.AggEntries <= 0 {
		opts.AggEntries = 65536
	}
	if opts.DynEntries <= 0 {
		opts.DynEntries = 65536
	}
	if opts.RingSize <= 0 {
		opts.RingSize = 4 << 20
	}
	g := &gen{info: info, opts: opts}
	g.layoutVars()
	// Pass 1 measures, pass 2 emits with the final layout.
	g.tempBase = roundUp(g.thisEnd, 8)
	g.recBase = g.tempBase
	g.zeroBase = 0
	if err := g.build(); err != nil {
		return nil, err
	}
	g.recBase = g.tempBase + roundUp(g.maxTemp, 8)
	g.zeroBase = g.recBase + roundUp(g.maxRec, 8)
	if total := g.zeroBase + g.maxZero; total > maxScratch {
		return nil, fmt.Errorf("program needs %d bytes of scratch space per CPU, more than the %d available: reduce strsize or the number of string values per clause", total, maxScratch)
	}
	if err := g.build(); err != nil {
		return nil, err
	}
	g.p.Maps = g.mapSpecs()
	return g.p, nil
}

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// layoutVars assigns storage to globals, self-> and this-> variables, and
// creates the maps of associative arrays and aggregations.
func (g *gen) layoutVars() {
	g.globals = map[*check.Var]varLoc{}
	g.selfs = map[*check.Var]varLoc{}
	g.thiss = map[*check.Var]varLoc{}
	g.assoc = map[*check.Var]*assocMap{}
	g.aggs = map[*check.Var]*plan.Agg{}
	g.globSize = plan.GlobReserved // wall clock, speculation IDs, activity, exit status
	for _, v := range g.info.Globals {
		if v.Type == nil {
			continue
		}
		if v.Assoc {
			g.assoc[v] = g.newAssoc(v, len(g.assoc))
			continue
		}
		sz := varSize(v.Type)
		if isArrayVar(v) {
			sz = v.Type.Size // varray.go
		}
		g.globals[v] = varLoc{g.globSize, sz}
		g.globSize += roundUp(sz, 8)
	}
	g.specLayout() // spec.go
	if g.globSize > maxGlobals {
		g.errorf(g.info.Globals[0].Pos, "global variables take %d bytes, more than the %d a BPF map value may hold", g.globSize, maxGlobals)
	}
	for _, v := range g.info.Selfs {
		if v.Type != nil && v.Assoc {
			g.assoc[v] = g.newAssoc(v, len(g.assoc))
		}
		if v.Type == nil || v.Assoc {
			continue
		}
		sz := varSize(v.Type)
		g.selfs[v] = varLoc{g.selfSize, sz}
		g.selfSize += roundUp(sz, 8)
	}
	if g.deferDepth = deferredUstackDepth(g.info); g.deferDepth > 0 {
		g.deferStack = varLoc{g.selfSize, 16 + 8*g.deferDepth}
		g.selfSize += g.deferStack.size
	}
	off := provider.CtxSize
	for _, v := range g.info.Thiss {
		if v.Type == nil {
			continue
		}
		sz := varSize(v.Type)
		g.thiss[v] = varLoc{off, sz}
		off += roundUp(sz, 8)
	}
	off = g.strtokLayout(off)
	g.thisEnd = off
	for _, v := range g.info.Aggs {
		g.aggs[v] = g.newAgg(v)
	}
}

func varSize(t *check.Type) int {
	switch t.Kind {
	case check.String:
		return t.Size
	case check.Stack:
		return stackFieldSize(t)
	case check.Struct:
		return max(t.Size, 8) // svar.go
	}
	return 8
}

func stackDepth(t *check.Type) int {
	if t.Depth > 0 {
		return t.Depth
	}
	if t.User {
		return 20
	}
	return 20
}

// kstackSlack is room for the frames of the tracer itself (the BPF
// program, the tracepoint glue) at the top of a kernel stack: the consumer
// drops them and keeps the depth asked for.
const kstackSlack = 8

func stackFieldSize(t *check.Type) int {
	if t.User {
		return 16 + 8*stackDepth(t)
	}
	return 8 + 8*(stackDepth(t)+kstackSlack)
}

// build generates every program once.
func (g *gen) build() error {
	g.p = &plan.Plan{Options: map[string]string{}, SpecSlots: g.specOff, NSpec: g.nspec,
		OnlyCPU: g.opts.OnlyCPU, CPU: g.opts.CPU}
	g.subprogs = map[string]bool{}
	for _, v := range g.info.Aggs {
		g.p.Aggs = append(g.p.Aggs, g.aggs[v])
	}
	g.p.Probes = g.info.Probes
	for _, cl := range g.info.Clauses {
		g.p.Records = append(g.p.Records, &plan.Record{EPID: uint32(cl.Index + 1), Clause: cl.Index, Pos: cl.Node.Pos(), Probes: cl.Probes})
	}
	// Group probes by hook, hooks in order of their first probe.
	type hookGroup struct {
		hook   provider.Hook
		owner  provider.Provider
		probes []*provider.Probe
	}
	var groups []*hookGroup
	byHook := map[string]*hookGroup{}
	probes := append([]*provider.Probe(nil), g.info.Probes...)
	sort.Slice(probes, func(i, j int) bool { return probes[i].ID < probes[j].ID })
	for _, pr := range probes {
		k := pr.Hook.String()
		hg, ok := byHook[k]
		if !ok {
			owner := g.opts.Providers.Owner(pr)
			if owner == nil {
				return fmt.Errorf("no provider publishes probe %s", pr.FullName())
			}
			hg = &hookGroup{hook: pr.Hook, owner: owner}
			byHook[k] = hg
			groups = append(groups, hg)
		}
		hg.probes = append(hg.probes, pr)
	}
	if g.reqSubj = hasRequestSubject(probes); g.reqSubj {
		g.reqStacks()
		g.p.Programs = append(g.p.Programs, g.requestPrograms()...) // reqsubj.go
	}
	for i, hg := range groups {
		progs, err := g.hookPrograms(fmt.Sprintf("p%d", i), hg.hook, hg.owner, hg.probes)
		if err != nil {
			return err
		}
		g.p.Programs = append(g.p.Programs, progs...)
	}
	g.p.NeedsSelf = g.selfSize > 0
	if len(g.errs) > 0 {
		return g.errs[0]
	}
	return nil
}

func (g *gen) label(kind string) string {
	g.labels++
	return fmt.Sprintf("%s_%d", kind, g.labels)
}

func (g *gen) emit(ins ...asm.Instruction) { g.insns = append(g.insns, ins...) }

func (g *gen) errorf(pos token.Pos, format string, args ...any) {
	g.errs = append(g.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// program generates a BPF program for hook with the given clauses, in
// order; probes are the probes of the hook those clauses enable. last says
// whether it is the hook's last program. It records the number of
// instructions of each clause's code in g.sizes.
func (g *gen) program(name string, hook provider.Hook, owner provider.Provider, clauses []*check.Clause, probes []*provider.Probe, last bool) (*plan.Program, error) {
	g.insns = nil
	g.labels = 0
	g.prog = name
	g.slot = g.slots
	g.slots++
	g.hook = hook
	g.needs = provider.Needs{}
	g.needTS = false
	g.sizes = map[*check.Clause]int{}
	g.stackBase = 8
	if hasRequestSubject(probes) {
		g.stackBase = 24 // reqSubjSlot, reqEntrySlot
	}
	in := map[uint32]bool{}
	for _, p := range probes {
		in[p.ID] = true
	}
	var body asm.Instructions
	for _, cl := range clauses {
		want := enabled(cl, in)
		g.insns = nil
		skip := g.label("skip")
		if len(want) != len(probes) {
			g.emit(owner.Guard(hook, want, probes, skip)...)
		}
		g.beginGate(hook, skip)
		g.clause(cl, skip)
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(skip))
		g.insns[0] = markClause(g.insns[0], cl.Index)
		g.sizes[cl] = len(g.insns)
		body = append(body, g.insns...)
	}
	pro, err := owner.Prologue(hook, probes, g.needs, "exit")
	if err != nil {
		return nil, err
	}
	g.insns = nil
	g.emit(
		asm.Mov.Reg(provider.RegCtx, asm.R1),
		asm.StoreImm(asm.R10, -8, int64(g.slot), asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapScratch),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(provider.RegScratch, asm.R0),
	)
	g.activityGate(hook)
	if g.stackBase == 24 {
		g.requestSubject(last) // reqsubj.go
	}
	g.emit(pro...)
	if g.deferDepth > 0 && hasSubject(probes) {
		g.captureDeferredUstack()
	}
	if g.needTS {
		g.emit(asm.FnKtimeGetNs.Call(), asm.StoreMem(provider.RegScratch, provider.CtxTimestamp, asm.R0, asm.DWord))
	}
	g.emit(body...)
	tail := len(g.insns)
	if last {
		g.beginDone(hook)
	}
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
	g.insns[tail] = markClause(g.insns[tail], -1)
	g.emitSubprogs()
	insns := longJumps(funcInfo(prune(g.insns), name))
	insns[0] = insns[0].WithSymbol(name)
	return &plan.Program{Name: name, Hook: hook, Type: owner.ProgramType(hook), Insns: insns,
		Probes: probes, Spans: spans(insns)}, nil
}

// enabled returns the probes of cl among those in.
func enabled(cl *check.Clause, in map[uint32]bool) []*provider.Probe {
	var want []*provider.Probe
	for _, p := range cl.Probes {
		if in[p.ID] {
			want = append(want, p)
		}
	}
	return want
}

// mapSpecs returns the specs of every map the programs reference.
func (g *gen) mapSpecs() []*ebpf.MapSpec {
	scratch := g.zeroBase + g.maxZero
	if scratch < provider.CtxSize {
		scratch = provider.CtxSize
	}
	if g.opts.FullScratch {
		scratch = maxScratch
	}
	specs := []*ebpf.MapSpec{
		{Name: plan.MapScratch, Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: uint32(roundUp(scratch, 8)), MaxEntries: uint32(max(g.slots, 1))},
		{Name: plan.MapRing, Type: ebpf.RingBuf, MaxEntries: uint32(g.opts.RingSize)},
		// mmapable: the consumer stops tracing by writing the activity word alone
		{Name: plan.MapGlobals, Type: ebpf.Array, KeySize: 4, ValueSize: uint32(g.globSize), MaxEntries: 1, Flags: 0x400 /* BPF_F_MMAPABLE */},
		{Name: plan.MapStats, Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: plan.NumStats},
	}
	if g.usesCurcpu {
		specs = append(specs, cpuinfoMap()) // cpuinfo.go
	}
	if g.usesKframes {
		specs = append(specs, kframesMap()) // kstack.go
	}
	if g.reqSubj {
		specs = append(specs, g.reqSubjSpecs()...) // reqsubj.go
	}
	if g.selfSize > 0 {
		// Local storage maps need BTF for their key and value.
		u8 := &btf.Int{Name: "u8", Size: 1}
		specs = append(specs, &ebpf.MapSpec{Name: plan.MapSelf, Type: ebpf.TaskStorage, KeySize: 4,
			ValueSize: uint32(g.selfSize), Flags: 1, /* BPF_F_NO_PREALLOC */
			Key:   &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed},
			Value: &btf.Array{Index: &btf.Int{Name: "u32", Size: 4}, Type: u8, Nelems: uint32(g.selfSize)}})
	}
	for _, v := range append(append([]*check.Var(nil), g.info.Globals...), g.info.Selfs...) {
		if a, ok := g.assoc[v]; ok {
			specs = append(specs, &ebpf.MapSpec{Name: a.name, Type: ebpf.Hash, KeySize: uint32(a.keySize),
				ValueSize: uint32(a.valSize), MaxEntries: uint32(g.opts.DynEntries), Flags: 1})
		}
	}
	for _, a := range g.p.Aggs {
		if len(a.Keys) == 0 {
			specs = append(specs, g.generationSpec(&ebpf.MapSpec{Name: a.Map, Type: ebpf.PerCPUArray, KeySize: 4,
				ValueSize: uint32(a.ValSize), MaxEntries: 1}))
			continue
		}
		specs = append(specs, g.generationSpec(&ebpf.MapSpec{Name: a.Map, Type: ebpf.PerCPUHash, KeySize: uint32(a.KeySize),
			ValueSize: uint32(a.ValSize), MaxEntries: uint32(g.opts.AggEntries), Flags: 1}))
	}
	return append(specs, g.generationIndexSpecs()...)
}

// ---------------------------------------------------------------------------
// Clauses

func (g *gen) clause(cl *check.Clause, skip string) {
	g.cl = cl
	g.rec = g.p.Records[cl.Index]
	g.recOff = plan.HdrSize
	g.tempOff = 0
	g.stack = g.stackBase // fp-8 holds the scratch key (g.slot) at entry; keep it
	g.cond = 0
	g.abort = skip
	g.action = 0
	g.useSelf = false
	g.rec.Actions = g.rec.Actions[:0]
	pc := cl.Node
	g.useSelf = usesSelf(g.info, pc) || (cl.Subject > 0 && g.deferDepth > 0)
	if g.useSelf {
		g.subjectTask(asm.R2)
		g.emit(
			asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapSelf),
			asm.Mov.Imm(asm.R3, 0),
			asm.Mov.Imm(asm.R4, 1), // BPF_LOCAL_STORAGE_GET_F_CREATE
			asm.FnTaskStorageGet.Call(),
			asm.Mov.Reg(regSelf, asm.R0),
		)
		ok := g.label("self_ok")
		g.emit(asm.JNE.Imm(regSelf, 0, ok))
		if cl.Subject == 0 || cl.Subject == -1 {
			// (a thread another one's probe fires for may be exiting or
			// idle, with no storage: its self-> variables are all 0)
			g.stat(plan.StatDynDrops)
		}
		g.emit(asm.Ja.Label(skip), asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
	}
	if pc.Pred != nil {
		g.cond0(pc.Pred, skip)
	}
	hasRec := needsRecord(g.info, pc)
	if hasRec {
		g.emit(
			asm.StoreImm(provider.RegScratch, int16(g.recBase+plan.HdrEPID), int64(g.rec.EPID), asm.Word),
			asm.LoadMem(asm.R0, provider.RegScratch, provider.CtxProbeID, asm.Word),
			asm.StoreMem(provider.RegScratch, int16(g.recBase+plan.HdrProbe), asm.R0, asm.Word),
			asm.FnGetSmpProcessorId.Call(),
			asm.StoreMem(provider.RegScratch, int16(g.recBase+plan.HdrCPU), asm.R0, asm.Word),
			asm.StoreImm(provider.RegScratch, int16(g.recBase+12), 0, asm.Word),
			provider.StoreImm64(provider.RegScratch, int16(g.recBase+plan.HdrMask), 0),
		)
	}
	if pc.Body != nil {
		for i, s := range pc.Body.Stmts {
			g.action = i + 1 // DTrace numbers every statement as an action
			g.stmt(s)
		}
	}
	if len(pc.Body.Stmts) == 0 {
		g.rec.Actions = append(g.rec.Actions, plan.Action{Kind: plan.ActDefault, Pos: pc.Pos()})
	}
	if hasRec {
		g.rec.Size = roundUp(g.recOff, 8)
		if g.recOff > g.maxRec {
			g.maxRec = g.recOff
		}
		g.emit(
			asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapRing),
			asm.Mov.Reg(asm.R2, provider.RegScratch),
			asm.Add.Imm(asm.R2, int32(g.recBase)),
			asm.Mov.Imm(asm.R3, int32(g.rec.Size)),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnRingbufOutput.Call(),
		)
		done := g.label("out_ok")
		g.emit(asm.JEq.Imm(asm.R0, 0, done))
		g.stat(plan.StatDrops)
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
	}
	if g.tempOff > g.maxTemp {
		g.maxTemp = g.tempOff
	}
}

// stat increments counter i of the stats map (this CPU's). The add is
// atomic: a program that interrupts another on the same CPU (a profile
// probe, a tracepoint in an interrupt) may count the same thing.
func (g *gen) stat(i int) {
	l := g.label("stat")
	g.emit(
		asm.StoreImm(asm.R10, -8, int64(i), asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapStats),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, l),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.StoreImm(asm.R10, -8, int64(g.slot), asm.Word).WithSymbol(l),
	)
}

// fault emits an error record for a runtime fault whose address or value is
// in register addr, and abandons the clause.
func (g *gen) fault(kind int, addr asm.Register, pos token.Pos) {
	site := len(g.p.Sites)
	g.p.Sites = append(g.p.Sites, plan.Site{Pos: pos, Action: g.action})
	base := int16(provider.CtxTemp)
	r := provider.RegScratch
	g.emit(
		asm.StoreMem(r, base+plan.ErrAddr, addr, asm.DWord),
		asm.StoreImm(r, base+plan.HdrEPID, int64(int32(-1)), asm.Word),
		asm.LoadMem(asm.R0, r, provider.CtxProbeID, asm.Word),
		asm.StoreMem(r, base+plan.HdrProbe, asm.R0, asm.Word),
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(r, base+plan.HdrCPU, asm.R0, asm.Word),
		asm.StoreImm(r, base+plan.ErrClause, int64(g.rec.EPID), asm.Word),
		asm.StoreImm(r, base+plan.ErrFault, int64(kind), asm.Word),
		asm.StoreImm(r, base+plan.ErrSite, int64(site), asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapRing),
		asm.Mov.Reg(asm.R2, r),
		asm.Add.Imm(asm.R2, int32(base)),
		asm.Mov.Imm(asm.R3, plan.ErrRecSize),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	)
	// An error the ring buffer had no room for is a drop, as DTrace
	// counts an ERROR record its principal buffer had no room for.
	sent := g.label("err_sent")
	g.emit(asm.JEq.Imm(asm.R0, 0, sent))
	g.stat(plan.StatDrops)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(sent))
	g.stat(plan.StatErrors)
	g.emit(asm.Ja.Label(g.abort))
}

// usesSelf reports whether a clause reads or writes self-> variables.
func usesSelf(info *check.Info, pc *ast.ProbeClause) bool {
	found := false
	visit := func(e ast.Expr) bool {
		if x, ok := e.(*ast.SelfVar); ok {
			// self-> associative arrays live in their own maps
			if v := info.Uses[x]; v == nil || !v.Assoc {
				found = true
			}
		}
		return !found
	}
	if pc.Pred != nil {
		inspectDeep(info, pc.Pred, visit) // xlate.go: inlines and translators too
	}
	walkStmts(pc.Body, func(e ast.Expr) { inspectDeep(info, e, visit) })
	return found
}

// walkStmts calls f on each top-level expression of the statements in b.
func walkStmts(s ast.Stmt, f func(ast.Expr)) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		if s == nil {
			return
		}
		for _, x := range s.Stmts {
			walkStmts(x, f)
		}
	case *ast.ExprStmt:
		f(s.X)
	case *ast.IfStmt:
		f(s.Cond)
		walkStmts(s.Then, f)
		if s.Else != nil {
			walkStmts(s.Else, f)
		}
	}
}

// needsRecord reports whether a clause emits a record: it has a
// data-recording action, a bare stack()/ustack() statement, or no
// statements at all (DTrace's default action).
func needsRecord(info *check.Info, pc *ast.ProbeClause) bool {
	if pc.Body == nil || len(pc.Body.Stmts) == 0 {
		return true
	}
	found := false
	walkStmts(pc.Body, func(e ast.Expr) {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return
		}
		if b := info.Calls[c]; b != nil && (b.Kind == check.Action || b.Name == "stack" || b.Name == "ustack" || b.Name == "jstack") {
			found = true
		}
	})
	return found
}
