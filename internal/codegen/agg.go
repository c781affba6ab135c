package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/value"
)

// quantizeZero is the quantize bucket of 0, as DTrace lays them out: 64+k
// holds [2^k, 2^(k+1)); 62-k holds (-2^(k+1), -2^k]; value.QuantizeBuckets
// in all.
const quantizeZero = value.QuantizeZero

func (g *gen) newAgg(v *check.Var) *plan.Agg {
	a := &plan.Agg{ID: v.ID, Name: v.Name, Func: v.Func, Params: v.Params, Map: fmt.Sprintf("agg_%d", v.ID)}
	a.Keys, a.KeySize = keyFields(v.Keys)
	a.SizeValue(value.AggBuckets(v.Func, v.Params))
	if a.ValSize > g.maxZero {
		g.maxZero = a.ValSize
	}
	return a
}

// aggAssign compiles @a[keys] = f(args).
func (g *gen) aggAssign(x *ast.AssignExpr, av *ast.AggVar, keys []ast.Expr) {
	v := g.info.Uses[av]
	a := g.aggs[v]
	call := ast.Unparen(x.Y).(*ast.CallExpr)
	have, done := g.label("agg_have"), g.label("agg_done")
	// Evaluate the argument (and weight) first.
	var argSlot, incrSlot int16
	hasArg := len(call.Args) > 0
	if hasArg {
		g.expr(call.Args[0])
		argSlot = g.push()
	}
	incrIdx := -1
	switch a.Func {
	case value.Quantize:
		incrIdx = 1
	case value.Lquantize:
		incrIdx = 4
	case value.Llquantize:
		incrIdx = 5
	}
	hasIncr := incrIdx > 0 && len(call.Args) > incrIdx
	if hasIncr {
		g.expr(call.Args[incrIdx])
		incrSlot = g.push()
	}
	key := g.buildKey(keys, a.Keys, a.KeySize)
	g.aggLookup(a, key, len(a.Keys) > 0, have, done)
	g.emit(asm.Mov.Reg(regTmp, asm.R0).WithSymbol(have))
	if hasArg {
		g.emit(asm.LoadMem(asm.R1, asm.R10, argSlot, asm.DWord))
	}
	if hasIncr {
		g.emit(asm.LoadMem(asm.R5, asm.R10, incrSlot, asm.DWord))
	} else {
		g.emit(asm.Mov.Imm(asm.R5, 1))
	}
	g.aggApply(a)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
	if hasIncr {
		g.stack -= 8
	}
	if hasArg {
		g.stack -= 8
	}
}

// add emits *(u64*)(regTmp+off) += r, atomically: an aggregation's
// per-CPU value is also updated by the programs that interrupt this one on
// its CPU (a profile probe's, a tracepoint's in an interrupt), and a load,
// add and store lost their increments.
func (g *gen) add(off int16, r asm.Register) {
	g.emit(asm.AddAtomic.Mem(regTmp, r, asm.DWord, off))
}

// word is the offset of w in a's value (plan.Agg.Layout).
func word(a *plan.Agg, w plan.AggWord) int16 { return int16(a.Off(w)) }

// aggApply updates the value at regTmp with the argument in R1 and the
// weight in R5, word by word of the value's layout.
func (g *gen) aggApply(a *plan.Agg) {
	count, sum := word(a, plan.WordCount), word(a, plan.WordSum)
	switch a.Func {
	case value.Count:
		g.add(count, asm.R5)
	case value.Sum, value.Avg:
		g.emit(asm.Mov.Imm(asm.R2, 1))
		g.add(count, asm.R2)
		g.add(sum, asm.R1)
	case value.Min, value.Max:
		g.extreme(a)
		g.emit(asm.Mov.Imm(asm.R2, 1))
		g.add(count, asm.R2)
	case value.Stddev:
		g.stddev(a)
	case value.Quantize:
		g.quantizeIndex()
		g.bucketAdd(a)
	case value.Lquantize:
		g.lquantizeIndex(a.Params)
		g.bucketAdd(a)
	case value.Llquantize:
		g.llquantizeIndex(a.Params)
		g.bucketAdd(a)
	}
}

// extremeTries is how many times min() and max() try to store a more
// extreme value: a try fails only where a program that interrupted this
// one on its CPU stored the word between its load and its
// compare-and-exchange.
const extremeTries = 4

// extreme stores the argument in R1 as min()'s or max()'s extreme at
// regTmp where it is more extreme than the one stored, with a
// compare-and-exchange (plan.ExtremeMask's encoding makes that an unsigned
// compare of the words): a load, compare and store lost a value stored by
// a program that interrupted this one in between (a profile probe's, a
// tracepoint's in an interrupt). Where every try fails, the update is
// counted among the aggregation drops.
func (g *gen) extreme(a *plan.Agg) {
	ext := word(a, plan.WordExtreme)
	done := g.label("mm_done")
	g.emit(
		asm.LoadImm(asm.R2, int64(plan.ExtremeMask(a.Func)), asm.DWord),
		asm.Xor.Reg(asm.R1, asm.R2),
		asm.LoadMem(asm.R2, regTmp, ext, asm.DWord),
	)
	for i := 0; i < extremeTries; i++ {
		g.emit(
			asm.JGE.Reg(asm.R2, asm.R1, done),
			asm.Mov.Reg(asm.R0, asm.R2),
			atomicMem(asm.CmpXchg, regTmp, asm.R1, asm.DWord, ext),
			asm.JEq.Reg(asm.R0, asm.R2, done),
			asm.Mov.Reg(asm.R2, asm.R0),
		)
	}
	g.stat(plan.StatAggDrops)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
}

// bucketAdd adds R5 to bucket R2 (bounded for the verifier).
func (g *gen) bucketAdd(a *plan.Agg) {
	n, base := a.Buckets, word(a, plan.WordBuckets)
	ok := g.label("bk")
	g.emit(
		asm.JLT.Imm(asm.R2, int32(n), ok),
		asm.Mov.Imm(asm.R2, int32(n-1)),
		asm.LSh.Imm(asm.R2, 3).WithSymbol(ok),
		asm.Mov.Reg(asm.R3, regTmp),
		asm.Add.Reg(asm.R3, asm.R2),
		asm.AddAtomic.Mem(asm.R3, asm.R5, asm.DWord, base),
	)
}

// quantizeIndex computes the quantize bucket of R1 into R2.
func (g *gen) quantizeIndex() {
	pos, neg, done := g.label("q_pos"), g.label("q_neg"), g.label("q_done")
	g.emit(
		asm.Mov.Imm(asm.R2, quantizeZero),
		asm.JEq.Imm(asm.R1, 0, done),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.JSGT.Imm(asm.R1, 0, pos),
		asm.Neg.Imm(asm.R3, 0),
		asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(pos),
	)
	g.log2(asm.R3, asm.R4) // R4 = floor(log2(R3))
	g.emit(
		asm.JSLT.Imm(asm.R1, 0, neg),
		asm.Mov.Imm(asm.R2, quantizeZero+1),
		asm.Add.Reg(asm.R2, asm.R4),
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R2, quantizeZero-1).WithSymbol(neg),
		asm.Sub.Reg(asm.R2, asm.R4),
		asm.JSGE.Imm(asm.R2, 0, done), // -2^63 (log2 63) goes to bucket 0 too
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R2, asm.R2).WithSymbol(done),
	)
}

// log2 sets out = floor(log2(in)) for in > 0; in is clobbered.
func (g *gen) log2(in, out asm.Register) {
	g.emit(asm.Mov.Imm(out, 0))
	for _, sh := range []int32{32, 16, 8, 4, 2, 1} {
		skip := g.label("l2")
		g.emit(
			asm.Mov.Reg(asm.R0, in),
			asm.RSh.Imm(asm.R0, sh),
			asm.JEq.Imm(asm.R0, 0, skip),
			asm.Mov.Reg(in, asm.R0),
			asm.Add.Imm(out, sh),
			asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(skip),
		)
	}
}

// lquantizeIndex computes the lquantize bucket of R1 into R2.
func (g *gen) lquantizeIndex(p value.AggParams) {
	levels := (p.Limit - p.Base) / p.Step
	under, over, done := g.label("lq_u"), g.label("lq_o"), g.label("lq_d")
	g.emit(
		// DTrace quantizes the value as an int32 (dtrace_aggregate_lquantize).
		asm.LSh.Imm(asm.R1, 32),
		asm.ArSh.Imm(asm.R1, 32),
		asm.LoadImm(asm.R3, p.Base, asm.DWord),
		asm.JSLT.Reg(asm.R1, asm.R3, under),
		asm.LoadImm(asm.R3, p.Limit, asm.DWord),
		asm.JSGE.Reg(asm.R1, asm.R3, over),
		asm.Mov.Reg(asm.R2, asm.R1),
		asm.LoadImm(asm.R3, p.Base, asm.DWord),
		asm.Sub.Reg(asm.R2, asm.R3),
		asm.LoadImm(asm.R3, p.Step, asm.DWord),
		asm.Div.Reg(asm.R2, asm.R3),
		asm.Add.Imm(asm.R2, 1),
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R2, 0).WithSymbol(under),
		asm.Ja.Label(done),
		asm.LoadImm(asm.R2, levels+1, asm.DWord).WithSymbol(over),
		asm.Mov.Reg(asm.R2, asm.R2).WithSymbol(done),
	)
}

// llquantizeIndex computes the llquantize bucket of R1 into R2 by the
// unrolled table of value.LlquantizeLayout.Orders.
func (g *gen) llquantizeIndex(p value.AggParams) {
	q, err := value.LlquantizeOf(p)
	t := q.Orders()
	done := g.label("llq_d")
	g.emit(asm.Mov.Imm(asm.R2, 0))
	if err != nil || len(t) == 0 {
		return // the checker rejects bad parameters
	}
	g.emit(asm.LoadImm(asm.R3, t[0].Last, asm.DWord), asm.JSLT.Reg(asm.R1, asm.R3, done))
	for _, s := range t {
		next := g.label("llq_n")
		g.emit(
			asm.LoadImm(asm.R3, s.Upper, asm.DWord),
			asm.JSGE.Reg(asm.R1, asm.R3, next),
			asm.Mov.Reg(asm.R2, asm.R1),
			asm.LoadImm(asm.R3, s.Last, asm.DWord),
			asm.Sub.Reg(asm.R2, asm.R3),
			asm.LoadImm(asm.R3, s.Width, asm.DWord),
			asm.Div.Reg(asm.R2, asm.R3),
			asm.LoadImm(asm.R3, s.Base, asm.DWord),
			asm.Add.Reg(asm.R2, asm.R3),
			asm.Ja.Label(done),
			asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(next),
		)
	}
	g.emit(asm.LoadImm(asm.R2, int64(q.Buckets()-1), asm.DWord))
	g.emit(asm.Mov.Reg(asm.R2, asm.R2).WithSymbol(done))
}

// stddev: count, sum, and a 128-bit sum of squares (lo, hi).
func (g *gen) stddev(a *plan.Agg) {
	lo, hi := word(a, plan.WordSumSqLo), word(a, plan.WordSumSqHi)
	g.emit(asm.Mov.Imm(asm.R2, 1))
	g.add(word(a, plan.WordCount), asm.R2)
	g.add(word(a, plan.WordSum), asm.R1)
	pos := g.label("sd_pos")
	g.emit(asm.JSGE.Imm(asm.R1, 0, pos), asm.Neg.Imm(asm.R1, 0), asm.Mov.Reg(asm.R1, asm.R1).WithSymbol(pos))
	// a = ah<<32 | al; a^2 = ah^2<<64 + 2*ah*al<<32 + al^2
	g.emit(
		asm.Mov.Reg(asm.R2, asm.R1), asm.LSh.Imm(asm.R2, 32), asm.RSh.Imm(asm.R2, 32), // al
		asm.Mov.Reg(asm.R3, asm.R1), asm.RSh.Imm(asm.R3, 32), // ah
		asm.Mov.Reg(asm.R4, asm.R2), asm.Mul.Reg(asm.R4, asm.R2), // ll = al*al
		asm.Mov.Reg(asm.R5, asm.R2), asm.Mul.Reg(asm.R5, asm.R3), // lh = al*ah
		asm.Mul.Reg(asm.R3, asm.R3),                                                       // hh = ah*ah
		asm.Mov.Reg(asm.R0, asm.R5), asm.RSh.Imm(asm.R0, 31), asm.Add.Reg(asm.R3, asm.R0), // hi = hh + lh>>31
		asm.LSh.Imm(asm.R5, 33),                                  // mid_lo
		asm.Mov.Reg(asm.R2, asm.R4), asm.Add.Reg(asm.R2, asm.R5), // lo = ll + mid_lo
	)
	nc := g.label("sd_nc")
	g.emit(asm.JGE.Reg(asm.R2, asm.R4, nc), asm.Add.Imm(asm.R3, 1), asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(nc))
	// add (R3:R2) to the stored (hi:lo), each word atomically: the carry
	// comes from the value lo held just before this add, which the fetch
	// returns in R4
	nc2 := g.label("sd_nc2")
	g.emit(
		asm.Mov.Reg(asm.R4, asm.R2),
		atomicMem(asm.FetchAdd, regTmp, asm.R4, asm.DWord, lo),
		asm.Add.Reg(asm.R4, asm.R2),
		asm.JGE.Reg(asm.R4, asm.R2, nc2),
		asm.Add.Imm(asm.R3, 1),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(nc2),
	)
	g.add(hi, asm.R3)
}
