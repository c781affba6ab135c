package codegen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/check/checktest"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/value"
)

// bpfVM runs the code of the bucket emitters: 64-bit ALU operations,
// jumps, 64-bit immediate loads, and 8-byte loads and stores in a memory
// of words. Anything else is an error, as is running too long.
type bpfVM struct {
	r   [11]uint64
	mem map[uint64]uint64
	// beforeCmpXchg, if set, runs before each compare-and-exchange: a
	// program that interrupts this one there.
	beforeCmpXchg func(m *bpfVM, addr uint64)
	calls         int // helper calls, which return 0
}

func (m *bpfVM) run(insns asm.Instructions) error {
	labels := map[string]int{}
	for i, ins := range insns {
		if s := ins.Symbol(); s != "" {
			labels[s] = i
		}
	}
	for pc, steps := 0, 0; pc < len(insns); steps++ {
		if steps > 10000 {
			return fmt.Errorf("too many steps")
		}
		ins := insns[pc]
		op := ins.OpCode
		pc++
		src := uint64(ins.Constant)
		if op.Source() == asm.RegSource {
			src = m.r[ins.Src]
		}
		switch cls := op.Class(); {
		case op.JumpOp() == asm.Call:
			m.calls++
			m.r[asm.R0] = 0
		case cls == asm.StClass && op.Mode() == asm.MemMode:
			m.mem[m.r[ins.Dst]+uint64(int64(ins.Offset))] = uint64(ins.Constant)
		case cls == asm.ALU64Class:
			if err := m.alu(ins, src); err != nil {
				return fmt.Errorf("%v: %v", ins, err)
			}
		case cls == asm.JumpClass:
			taken, err := jump(op.JumpOp(), m.r[ins.Dst], src)
			if err != nil {
				return fmt.Errorf("%v: %v", ins, err)
			}
			if taken {
				t, ok := labels[ins.Reference()]
				if !ok {
					return fmt.Errorf("%v: no label %q", ins, ins.Reference())
				}
				pc = t
			}
		case op.IsDWordLoad():
			m.r[ins.Dst] = uint64(ins.Constant)
		case cls == asm.LdXClass && op.Mode() == asm.MemMode && op.Size() == asm.DWord:
			m.r[ins.Dst] = m.mem[m.r[ins.Src]+uint64(int64(ins.Offset))]
		case cls == asm.StXClass && op.Mode() == asm.MemMode && op.Size() == asm.DWord:
			m.mem[m.r[ins.Dst]+uint64(int64(ins.Offset))] = m.r[ins.Src]
		case op == asm.AddAtomic.OpCode(asm.DWord):
			m.mem[m.r[ins.Dst]+uint64(int64(ins.Offset))] += m.r[ins.Src]
		case op == asm.CmpXchg.OpCode(asm.DWord) && ins.Constant == int64(asm.CmpXchg>>8):
			a := m.r[ins.Dst] + uint64(int64(ins.Offset))
			if m.beforeCmpXchg != nil {
				m.beforeCmpXchg(m, a)
			}
			old := m.mem[a]
			if old == m.r[asm.R0] {
				m.mem[a] = m.r[ins.Src]
			}
			m.r[asm.R0] = old
		case op == asm.FetchAdd.OpCode(asm.DWord):
			a := m.r[ins.Dst] + uint64(int64(ins.Offset))
			m.mem[a], m.r[ins.Src] = m.mem[a]+m.r[ins.Src], m.mem[a]
		default:
			return fmt.Errorf("%v: not interpreted", ins)
		}
	}
	return nil
}

func (m *bpfVM) alu(ins asm.Instruction, src uint64) error {
	d := &m.r[ins.Dst]
	switch ins.OpCode.ALUOp() {
	case asm.Mov:
		*d = src
	case asm.Add:
		*d += src
	case asm.Sub:
		*d -= src
	case asm.Mul:
		*d *= src
	case asm.Div:
		if src == 0 {
			*d = 0
		} else {
			*d /= src
		}
	case asm.Or:
		*d |= src
	case asm.And:
		*d &= src
	case asm.Xor:
		*d ^= src
	case asm.LSh:
		*d <<= src & 63
	case asm.RSh:
		*d >>= src & 63
	case asm.ArSh:
		*d = uint64(int64(*d) >> (src & 63))
	case asm.Neg:
		*d = -*d
	default:
		return fmt.Errorf("ALU op not interpreted")
	}
	return nil
}

func jump(op asm.JumpOp, d, s uint64) (bool, error) {
	switch op {
	case asm.Ja:
		return true, nil
	case asm.JEq:
		return d == s, nil
	case asm.JNE:
		return d != s, nil
	case asm.JGT:
		return d > s, nil
	case asm.JGE:
		return d >= s, nil
	case asm.JLT:
		return d < s, nil
	case asm.JLE:
		return d <= s, nil
	case asm.JSGT:
		return int64(d) > int64(s), nil
	case asm.JSGE:
		return int64(d) >= int64(s), nil
	case asm.JSLT:
		return int64(d) < int64(s), nil
	case asm.JSLE:
		return int64(d) <= int64(s), nil
	}
	return false, fmt.Errorf("jump not interpreted")
}

// bucketOf runs the code aggApply emits for a (bucket index, bounds clamp
// and increment) on value v, and returns the bucket it incremented.
func bucketOf(t *testing.T, insns asm.Instructions, a *plan.Agg, v int64) int {
	t.Helper()
	const base = 1 << 20
	m := &bpfVM{mem: map[uint64]uint64{}}
	m.r[asm.R1] = uint64(v)
	m.r[asm.R5] = 1
	m.r[regTmp] = base
	if err := m.run(insns); err != nil {
		t.Fatalf("%v %+v: %v", a.Func, a.Params, err)
	}
	if len(m.mem) != 1 {
		t.Fatalf("%v %+v, value %d: wrote %v, want one bucket", a.Func, a.Params, v, m.mem)
	}
	for addr, n := range m.mem {
		i := int(addr-base) / 8
		if addr < base || (addr-base)%8 != 0 || i >= a.Buckets || n != 1 {
			t.Fatalf("%v %+v, value %d: wrote %d at bucket %d of %d", a.Func, a.Params, v, n, i, a.Buckets)
		}
		return i
	}
	return -1
}

// emitted returns the aggregation newAgg describes for v and the code
// aggApply emits for it.
func emitted(f value.AggFunc, p value.AggParams) (*plan.Agg, asm.Instructions) {
	g := &gen{}
	a := g.newAgg(&check.Var{Name: "a", Func: f, Params: p, HasFunc: true})
	g.aggApply(a)
	return a, g.insns
}

// testValues are values near every boundary that matters to some
// quantization, and a sample of random ones of every magnitude.
func testValues(r *rand.Rand, extra ...int64) []int64 {
	vs := []int64{0, 1, -1, 2, -2, 3, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
		math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, 1 << 32, -1 << 32, 1<<32 + 5, -1<<32 + 5}
	for k := 0; k < 63; k++ {
		p := int64(1) << k
		vs = append(vs, p, p-1, p+1, -p, -p+1, -p-1)
	}
	for _, x := range extra {
		vs = append(vs, x-1, x, x+1)
	}
	for i := 0; i < 200; i++ {
		x := r.Int63() >> r.Intn(64)
		if r.Intn(2) == 0 {
			x = -x
		}
		vs = append(vs, x)
	}
	return vs
}

func TestQuantizeBuckets(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	a, insns := emitted(value.Quantize, value.AggParams{})
	if a.Buckets != value.QuantizeBuckets {
		t.Fatalf("quantize has %d buckets, format %d", a.Buckets, value.QuantizeBuckets)
	}
	for _, v := range testValues(r) {
		if got, want := bucketOf(t, insns, a, v), value.QuantizeBucket(v); got != want {
			t.Errorf("quantize(%d): bucket %d, format %d", v, got, want)
		}
	}
}

func TestLquantizeBuckets(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	params := []value.AggParams{
		{Base: 0, Limit: 10, Step: 1},
		{Base: 0, Limit: 4, Step: 1},
		{Base: 0, Limit: 50, Step: 10},
		{Base: 0, Limit: 10, Step: 3},
		{Base: -100, Limit: 100, Step: 10},
		{Base: -5, Limit: -1, Step: 1},
		{Base: 1000, Limit: 1001, Step: 1},
		{Base: 0, Limit: 65535, Step: 1},
		{Base: math.MinInt32, Limit: math.MinInt32 + 65535*65535, Step: 65535},
		{Base: math.MaxInt32 - 10, Limit: math.MaxInt32, Step: 7},
		{Base: math.MinInt32, Limit: math.MinInt32 + 1, Step: 1},
	}
	for len(params) < 200 {
		step := int64(1 + r.Intn(65535))
		if r.Intn(2) == 0 {
			step = int64(1 + r.Intn(20))
		}
		base := int64(r.Intn(2001) - 1000)
		if r.Intn(4) == 0 {
			base = r.Int63n(math.MaxUint32) + math.MinInt32
		}
		limit := base + step*int64(1+r.Intn(100)) + int64(r.Intn(int(step)))
		p := value.AggParams{Base: base, Limit: limit, Step: step}
		if value.LquantizeBuckets(p) == 0 {
			continue // not valid lquantize() parameters
		}
		params = append(params, p)
	}
	for _, p := range params {
		a, insns := emitted(value.Lquantize, p)
		for _, v := range testValues(r, p.Base, p.Limit, p.Base+p.Step, p.Limit-p.Step) {
			if got, want := bucketOf(t, insns, a, v), value.LquantizeBucket(p, v); got != want {
				t.Errorf("lquantize(%d, %d, %d, %d): bucket %d, format %d", v, p.Base, p.Limit, p.Step, got, want)
			}
		}
	}
}

func TestLlquantizeBuckets(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	params := []value.AggParams{
		{Factor: 10, Low: 0, High: 3, Steps: 10},
		{Factor: 10, Low: 0, High: 6, Steps: 20},
		{Factor: 10, Low: 0, High: 16, Steps: 100},
		{Factor: 10, Low: 2, High: 4, Steps: 100},
		{Factor: 2, Low: 0, High: 10, Steps: 4},
		{Factor: 2, Low: 0, High: 60, Steps: 2},
		{Factor: 2, Low: 3, High: 40, Steps: 64},
		{Factor: 4, Low: 1, High: 5, Steps: 16},
		{Factor: 3, Low: 0, High: 30, Steps: 9},
		{Factor: 1000, Low: 0, High: 4, Steps: 1000},
		{Factor: 16, Low: 0, High: 3, Steps: 256},
	}
	for len(params) < 150 {
		f := int64(2 + r.Intn(15))
		low := int64(r.Intn(5))
		high := low + 1 + int64(r.Intn(10))
		steps := f
		for r.Intn(3) == 0 {
			steps *= f
		}
		p := value.AggParams{Factor: f, Low: low, High: high, Steps: steps}
		if value.LlquantizeBuckets(p) == 0 {
			continue
		}
		params = append(params, p)
	}
	for _, p := range params {
		a, insns := emitted(value.Llquantize, p)
		var edges []int64
		for pow, i := int64(1), int64(0); i <= p.High+1 && pow <= math.MaxInt64/p.Factor; i++ {
			pow *= p.Factor
			edges = append(edges, pow, pow/p.Factor*(p.Factor-1))
		}
		for _, v := range testValues(r, edges...) {
			want := value.LlquantizeBucket(p, v)
			if got := bucketOf(t, insns, a, v); got != want {
				t.Errorf("llquantize(%d, %d, %d, %d, %d): bucket %d, format %d", v, p.Factor, p.Low, p.High, p.Steps, got, want)
			}
		}
	}
}

var (
	fakeResolver = checktest.Resolver
	testMacros   = checktest.Macros
)

func progsOf(p *ast.Program) []*ast.Program { return []*ast.Program{p} }

// compileSource parses, checks and generates src with the fake resolver;
// a parse or check error is returned as err, like a generation error.
func compileSource(src string, destructive bool) (*plan.Plan, error) {
	info, err := checkSource(src, destructive)
	if err != nil {
		return nil, err
	}
	return Generate(info, Options{Destructive: destructive, Providers: fakeResolver})
}

// checkSource parses and checks src with the fake resolver.
func checkSource(src string, destructive bool) (*check.Info, error) {
	prog, errs := parser.ParseFile("t.d", []byte(src), &parser.Options{Macros: testMacros})
	if len(errs) > 0 {
		return nil, errs
	}
	info, errs := check.Check(progsOf(prog), check.Config{Resolver: fakeResolver, Macros: testMacros, Destructive: destructive})
	if len(errs) > 0 {
		return nil, errs
	}
	return info, nil
}

// programs exercise the code generator; with check's valid programs they
// seed FuzzCompile.
var programs = []string{
	`BEGIN { trace(1); exit(0); }`,
	`BEGIN { printf("%s %s %d %d\n", curpsinfo->pr_psargs, curpsinfo->pr_fname, curpsinfo->pr_ppid, curlwpsinfo->pr_onpro); @[curpsinfo->pr_psargs] = count(); }`,
	`BEGIN { printf("%d %d %s %d\n", index("abc", "b"), rindex("abcb", "b", 2), strstr("abc", "bc"), strtoll("0x1f", 16)); }`,
	`BEGIN { p = alloca(16); printf("%s %s %s\n", inet_ntop(10, p), inet_ntoa((ipaddr_t *)p), inet_ntoa6((in6_addr_t *)p)); }`,
	`syscall::write:entry { this->p = alloca(8); copyinto(arg1, 8, this->p); trace(*(uint64_t *)this->p); }`,
	`syscall::read:entry { self->n[arg0]++; self->s[probefunc, 1] = "x"; } syscall::read:return { trace(self->n[arg0]); self->n[arg0] = 0; }`,
	`BEGIN { printf("%d %s %c\n", pid, execname, 'x'); }`,
	`BEGIN`,
	`syscall::read:entry { @[execname] = count(); }`,
	`syscall::read:entry /args[0] == 0/ { @q = quantize(args[2]); @l = lquantize(args[2], 0, 100, 10); @ll = llquantize(args[2], 10, 0, 6, 20); }`,
	`syscall::read:entry { @s[pid] = sum(arg2); @a[tid] = avg(arg2); @mn = min(arg2); @mx = max(arg2); @sd = stddev(arg2); }`,
	"syscall::read:entry { self->ts = timestamp; }\nsyscall::read:return /self->ts/ { @[probefunc] = quantize(timestamp - self->ts); self->ts = 0; }",
	`syscall::open:entry { printf("%s\n", copyinstr(arg0)); }`,
	`syscall::read:entry,syscall::write:entry { @[probefunc, probename] = count(); }`,
	`syscall::*:entry /execname != "sh"/ { @[probefunc] = count(); }`,
	`syscall:::return /errno != 0/ { @[probefunc, errno] = count(); }`,
	`profile-997 /arg0/ { @[stack()] = count(); }`,
	`profile-997 /arg1/ { @[ustack(5)] = count(); }`,
	`profile-997 { @[sym(arg0)] = count(); @u[usym(arg1)] = count(); }`,
	"tick-1sec { printa(@); printa(\"%s %@d\\n\", @k); clear(@); trunc(@k, 5); }\nBEGIN { @ = count(); @k[\"a\"] = sum(1); }",
	`BEGIN { x = 1; x += 2; x++; y = x * 3 / 2 % 5 - 1; trace(y << 2 >> 1); }`,
	`BEGIN { s = execname; t = strjoin(s, "-x"); printf("%s %d\n", t, strlen(t)); }`,
	`BEGIN { a[pid] = 1; a[pid]++; trace(a[pid]); a[pid] = 0; }`,
	`BEGIN { m["x", 1] = "v"; printf("%s\n", m["x", 1]); }`,
	`BEGIN { this->n = 3; trace(this->n * 2); }`,
	`BEGIN { if (pid > 1) { trace(1); } else if (tid) { trace(2); } else { printf("x\n"); } }`,
	`BEGIN { x = pid > 0 ? 1 : 2; s = pid > 0 ? "a" : "b"; trace(x); trace(s); }`,
	`BEGIN { trace(substr("hello", 1, 3)); trace(strchr("a/b", '/')); trace(basename("/a/b")); trace(dirname("/a/b")); }`,
	`BEGIN { trace(toupper("ab")); trace(lltostr(-42)); trace(htons(1)); trace(rand() % 10); }`,
	`BEGIN { printf("%d %d %d\n", (char)300, (unsigned short)-1, -(int)5); }`,
	`BEGIN { stack(); ustack(); tracemem(curthread, 16); }`,
	`BEGIN { spec = speculation(); speculate(spec); printf("x"); }`,
	`BEGIN { commit(1); discard(2); } BEGIN { normalize(@a, 10); denormalize(@a); @a = count(); }`,
	`BEGIN { setopt("quiet"); exit(0); }`,
	`ERROR { printf("%d %d\n", arg1, arg4); }`,
	`BEGIN { @ = quantize(1, 3); @l = lquantize(1, -10, 10, 2, 5); @ll = llquantize(1, 2, 0, 10, 4, 7); }`,
	`BEGIN { x = progenyof(1); y = ppid; z = vtimestamp; w = walltimestamp; trace(x + y + z + w); }`,
	`BEGIN /pid == $1/ { trace($2); trace($target); }`,
}

// TestGenerateDeterministic compiles each program twice from its text
// and compares the instructions of every program.
func TestGenerateDeterministic(t *testing.T) {
	n := 0
	for _, src := range append(append([]string(nil), programs...), checkValidPrograms(t)...) {
		p1, err1 := compileSource(src, true)
		p2, err2 := compileSource(src, true)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("%q: errors differ: %v, %v", src, err1, err2)
			continue
		}
		if err1 != nil {
			continue
		}
		n++
		if len(p1.Programs) != len(p2.Programs) {
			t.Errorf("%q: %d programs, then %d", src, len(p1.Programs), len(p2.Programs))
			continue
		}
		for i := range p1.Programs {
			a, b := fmt.Sprint(p1.Programs[i].Insns), fmt.Sprint(p2.Programs[i].Insns)
			if a != b {
				t.Errorf("%q: program %s differs:\n%s\n---\n%s", src, p1.Programs[i].Name, a, b)
			}
		}
		if a, b := planString(p1), planString(p2); a != b {
			t.Errorf("%q: plans differ:\n%s\n---\n%s", src, a, b)
		}
	}
	if n < 50 {
		t.Errorf("only %d programs compiled", n)
	}
}

// planString is what a plan holds besides instructions.
func planString(p *plan.Plan) string {
	var b strings.Builder
	for _, m := range p.Maps {
		fmt.Fprintf(&b, "map %s %v %d %d %d\n", m.Name, m.Type, m.KeySize, m.ValueSize, m.MaxEntries)
	}
	for _, r := range p.Records {
		fmt.Fprintf(&b, "rec %d %d %+v\n", r.EPID, r.Size, r.Actions)
	}
	for _, a := range p.Aggs {
		fmt.Fprintf(&b, "agg %+v\n", *a)
	}
	return b.String()
}

func TestGeneratePrograms(t *testing.T) {
	for _, src := range programs {
		p, err := compileSource(src, true)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if err := checkPlan(p); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// checkPlan checks what the runtime and the consumer rely on: every jump
// lands on a label of its program, every map an instruction names has a
// spec, and every field of a record or key lies within it.
func checkPlan(p *plan.Plan) error {
	maps := map[string]bool{}
	for _, m := range p.Maps {
		maps[m.Name] = true
	}
	for _, pr := range p.Programs {
		if len(pr.Insns) == 0 || pr.Insns[0].Symbol() != pr.Name {
			return fmt.Errorf("program %s does not start with its name", pr.Name)
		}
		labels := map[string]bool{}
		for _, ins := range pr.Insns {
			if s := ins.Symbol(); s != "" {
				if labels[s] {
					return fmt.Errorf("program %s: label %s defined twice", pr.Name, s)
				}
				labels[s] = true
			}
		}
		for _, ins := range pr.Insns {
			ref := ins.Reference()
			switch {
			case ref == "":
			case ins.IsLoadFromMap():
				if !maps[ref] {
					return fmt.Errorf("program %s: %v names a map without a spec", pr.Name, ins)
				}
			case !labels[ref]:
				return fmt.Errorf("program %s: %v jumps to no label", pr.Name, ins)
			}
		}
	}
	for i, r := range p.Records {
		if r.EPID != uint32(i+1) {
			return fmt.Errorf("record %d has EPID %d", i, r.EPID)
		}
		for _, a := range r.Actions {
			for _, f := range a.Fields {
				if err := checkField(f, r.Size, plan.HdrSize); err != nil {
					return fmt.Errorf("record %d action %v: %v", r.EPID, a.Kind, err)
				}
			}
			for _, id := range a.Aggs {
				if id < 0 || id >= len(p.Aggs) {
					return fmt.Errorf("record %d names aggregation %d of %d", r.EPID, id, len(p.Aggs))
				}
			}
		}
	}
	for i, a := range p.Aggs {
		if a.ID != i {
			return fmt.Errorf("aggregation %d has ID %d", i, a.ID)
		}
		for _, f := range a.Keys {
			if err := checkField(f, a.KeySize, 0); err != nil {
				return fmt.Errorf("@%s key: %v", a.Name, err)
			}
		}
		if a.ValSize < 8*a.Buckets || a.ValSize < 8 {
			return fmt.Errorf("@%s: %d value bytes for %d buckets", a.Name, a.ValSize, a.Buckets)
		}
	}
	return nil
}

func checkField(f plan.Field, size, from int) error {
	need := f.Size
	switch f.Kind {
	case plan.FKStack:
		need = 8 + 8*f.Depth
	case plan.FUStack:
		need = 16 + 8*f.Depth
	case plan.FUSym:
		need = 16
	case plan.FSym, plan.FProbeProv, plan.FProbeMod, plan.FProbeFunc, plan.FProbeName:
		need = max(need, 4)
	}
	if f.Offset < from || f.Size < need || f.Offset+f.Size > size {
		return fmt.Errorf("field %+v does not fit in [%d, %d)", f, from, size)
	}
	return nil
}

// TestQuantizeParamsChecked checks that the checker accepts exactly the
// lquantize() and llquantize() parameters package format can print.
func TestQuantizeParamsChecked(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	pick := func(vs ...int64) int64 { return vs[r.Intn(len(vs))] }
	for i := 0; i < 400; i++ {
		p := value.AggParams{
			Base:  pick(0, -1, 5, -100, math.MinInt32, math.MaxInt32, math.MinInt32-1, 1<<40),
			Limit: pick(0, 1, 10, 100, 65536, 1<<20, math.MaxInt32, math.MaxInt32+1),
			Step:  pick(-1, 0, 1, 3, 10, 65535, 65536),
		}
		src := fmt.Sprintf("BEGIN { @ = lquantize(0, %d, %d, %d); }", p.Base, p.Limit, p.Step)
		_, err := checkSource(src, false)
		if ok := value.LquantizeBuckets(p) > 0; (err == nil) != ok {
			t.Errorf("%s: error %v, but format accepts: %v", src, err, ok)
		}
		p = value.AggParams{
			Factor: pick(0, 1, 2, 3, 10, 16, 1000, 65536),
			Low:    pick(-1, 0, 1, 2, 5),
			High:   pick(0, 1, 2, 6, 16, 17, 60, 61, 65536),
			Steps:  pick(0, 1, 2, 4, 5, 10, 20, 30, 100, 256, 1000, 65536),
		}
		src = fmt.Sprintf("BEGIN { @ = llquantize(0, %d, %d, %d, %d); }", p.Factor, p.Low, p.High, p.Steps)
		_, err = checkSource(src, false)
		if ok := value.LlquantizeBuckets(p) > 0; (err == nil) != ok {
			t.Errorf("%s: error %v, but format accepts: %v", src, err, ok)
		}
	}
}

// TestStackStatement is a regression test: the checker did not record the
// type of a call used as a statement, so stack(); was compiled as an
// integer subroutine and failed with "stack( ) is not supported yet".
func TestStackStatement(t *testing.T) {
	p, err := compileSource(`profile-997 { stack(); ustack(3); }`, false)
	if err != nil {
		t.Fatal(err)
	}
	acts := p.Records[0].Actions
	if len(acts) != 2 || acts[0].Kind != plan.ActStack || acts[0].Fields[0].Kind != plan.FKStack ||
		acts[1].Kind != plan.ActStack || acts[1].Fields[0].Kind != plan.FUStack || acts[1].Fields[0].Depth != 3 {
		t.Errorf("actions %+v", acts)
	}
}

// refused are programs the checker accepts that the code generator cannot
// compile yet: each must fail with an error naming what is missing, not
// panic or recurse without end (each once did).
var refused = []struct{ src, err string }{
	{`BEGIN { trace(stringof(arg0)); }`, "arg0 cannot be used as a string yet"},
	{`BEGIN { trace(s = "x"); }`, "cannot be used as a string yet"},
	{`BEGIN { @[stringof(arg0)] = count(); }`, "cannot be used as a string yet"},
}

func TestGenerateRefused(t *testing.T) {
	for _, tt := range refused {
		_, err := compileSource(tt.src, false)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.err)
		}
	}
}

// TestAtomicEncoding is the regression test of atomicMem: a fetching
// atomic add must reach the kernel with BPF_FETCH in its immediate (it
// did not, and speculation() returned the same ID every time).
func TestAtomicEncoding(t *testing.T) {
	var b bytes.Buffer
	if _, err := atomicMem(asm.FetchAdd, asm.R1, asm.R0, asm.DWord, 0).Marshal(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	if imm := binary.LittleEndian.Uint32(b.Bytes()[4:8]); imm != 0x01 {
		t.Errorf("FetchAdd immediate = %#x, want 0x1 (BPF_ADD | BPF_FETCH)", imm)
	}
	b.Reset()
	if _, err := atomicMem(asm.CmpXchg, asm.R1, asm.R0, asm.DWord, 0).Marshal(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	if imm := binary.LittleEndian.Uint32(b.Bytes()[4:8]); imm != 0xf1 {
		t.Errorf("CmpXchg immediate = %#x, want 0xf1 (BPF_CMPXCHG)", imm)
	}
}
