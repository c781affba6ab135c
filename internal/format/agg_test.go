package format

// Expected outputs in this file are copied from the DTrace test suite,
// cmd/dtrace/test/tst/common/<dir>/<test>.d.out (illumos; the copy in
// FreeBSD's cddl/contrib/opensolaris tree), each cited by name. Each test
// rebuilds the aggregations the .d program makes and prints them as the
// program does. A .out file holds everything dtrace(1) printed; the
// newline it prints at exit is PrintAll's first byte.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

const hdr = "           value  ------------- Distribution ------------- count    \n"

// aggs/tst.negquant.d: quantize() with negative increments.
func TestNegquant(t *testing.T) {
	a := newAgg("", 1, value.Quantize, value.AggParams{})
	k := func(s string) []value.Value { return vals(str(s)) }
	a.add(k("j-church"), 1, 100).add(k("j-church"), 1, -99).add(k("j-church"), 1, -1)
	a.add(k("k-ingleside"), 1, -123)
	a.add(k("l-taraval"), 0, -123).add(k("l-taraval"), -1, -123).add(k("l-taraval"), 1, 123).add(k("l-taraval"), 1, 123)
	a.add(k("m-oceanview"), 1, 1<<63-1).add(k("m-oceanview"), 1, 1).add(k("m-oceanview"), 2, 1<<63-1).add(k("m-oceanview"), 8, 400000)
	a.add(k("n-judah"), 1, 123).add(k("n-judah"), 2, 123).add(k("n-judah"), 2, 123).add(k("n-judah"), 2, 1)
	for i, v := int64(1), int64(1<<63-1); i <= 8; i, v = i<<1, v>>1 {
		a.add(k("f-market"), i, v)
	}
	for i, v := int64(1), int64(1<<63-4); i <= 8; i, v = i<<1, v>>1 {
		a.add(k("s-castro"), i, v)
	}
	want := `
  k-ingleside                                       
` + hdr + `               0                                         | 0        
               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -123     
               2                                         | 0        

  j-church                                          
` + hdr + `              -1 |                                         0        
               0 |                                         0        
               1 |                                         0        

  l-taraval                                         
` + hdr + `              -2                     |                     0        
              -1                @@@@@|                     -123     
               0                @@@@@|                     -123     
               1                     |@@@@@@@@@@           246      
               2                     |                     0        

  n-judah                                           
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@                            123      
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              247      
               4 |                                         0        

  m-oceanview                                       
` + hdr + `               0                     |                     0        
               1           @@@@@@@@@@|                     -9223372036854775808
               2                     |@@@@@@@@@@           9223372036854775807
               4                     |                     0        
               8                     |                     400000   
              16                     |                     0        

  s-castro                                          
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@@@@@@@@@                    9223372036854775804
               2 |@@@@@@@@@@@                              4611686018427387902
               4 |@@@@@                                    2305843009213693951
               8 |@@@                                      1152921504606846975
              16 |                                         0        

  f-market                                          
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@@@@@@@@@                    9223372036854775807
               2 |@@@@@@@@@@@                              4611686018427387903
               4 |@@@@@                                    2305843009213693951
               8 |@@@                                      1152921504606846975
              16 |                                         0        

`
	diff(t, "tst.negquant", printAll(t, AggOpts{}, a.a), want)
}

// aggs/tst.neglquant.d: lquantize() with negative increments; s-castro and
// f-market differ by less than a double's precision and sort by the
// long double total.
func TestNeglquant(t *testing.T) {
	a := newAgg("", 1, value.Lquantize, value.AggParams{Base: 0, Limit: 10, Step: 1})
	k := func(s string) []value.Value { return vals(str(s)) }
	a.add(k("j-church"), 1, 100).add(k("j-church"), 1, -99).add(k("j-church"), 1, -1)
	a.add(k("k-ingleside"), 1, -123)
	a.add(k("l-taraval"), 0, -123).add(k("l-taraval"), -1, -123).add(k("l-taraval"), 1, 123).add(k("l-taraval"), 1, 123)
	a.add(k("m-oceanview"), 1, 1<<63-1).add(k("m-oceanview"), 1, 1).add(k("m-oceanview"), 2, 1<<63-1).add(k("m-oceanview"), 8, 400000)
	a.add(k("n-judah"), 1, 123).add(k("n-judah"), 2, 123).add(k("n-judah"), 2, 123).add(k("n-judah"), 2, 1)
	for i, v := int64(1), int64(1<<63-1); i <= 7; i++ {
		a.add(k("f-market"), i, v)
		v = (1<<63 - 1) / (i + 1)
	}
	for i, v := int64(1), int64(1<<63-7); i <= 7; i++ {
		a.add(k("s-castro"), i, v)
		v = (1<<63 - 1) / (i + 1)
	}
	want := `
  k-ingleside                                       
` + hdr + `               0                                         | 0        
               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -123     
               2                                         | 0        

  j-church                                          
` + hdr + `             < 0 |                                         0        
               0 |                                         0        
               1 |                                         0        

  l-taraval                                         
` + hdr + `             < 0                @@@@@|                     -123     
               0                @@@@@|                     -123     
               1                     |@@@@@@@@@@           246      
               2                     |                     0        

  n-judah                                           
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@                            123      
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              247      
               3 |                                         0        

  m-oceanview                                       
` + hdr + `               0                     |                     0        
               1           @@@@@@@@@@|                     -9223372036854775808
               2                     |@@@@@@@@@@           9223372036854775807
               3                     |                     0        
               4                     |                     0        
               5                     |                     0        
               6                     |                     0        
               7                     |                     0        
               8                     |                     400000   
               9                     |                     0        

  s-castro                                          
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@@@                          9223372036854775801
               2 |@@@@@@@@                                 4611686018427387903
               3 |@@@@@                                    3074457345618258602
               4 |@@@@                                     2305843009213693951
               5 |@@@                                      1844674407370955161
               6 |@@@                                      1537228672809129301
               7 |@@                                       1317624576693539401
               8 |                                         0        

  f-market                                          
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@@@                          9223372036854775807
               2 |@@@@@@@@                                 4611686018427387903
               3 |@@@@@                                    3074457345618258602
               4 |@@@@                                     2305843009213693951
               5 |@@@                                      1844674407370955161
               6 |@@@                                      1537228672809129301
               7 |@@                                       1317624576693539401
               8 |                                         0        

`
	diff(t, "tst.neglquant", printAll(t, AggOpts{}, a.a), want)
}

// aggs/tst.allquant.d: every quantize() bucket, including INT64_MIN and the
// values that wrap.
func TestAllquant(t *testing.T) {
	a := newAgg("", 1, value.Quantize, value.AggParams{})
	for i := 0; i < 64; i++ {
		v := int64(1) << uint(i)
		a.add(nil, v, 1).add(nil, v+1, 1).add(nil, -v, 1).add(nil, -v-1, 1)
	}
	var want strings.Builder
	want.WriteString("\n\n" + hdr)
	for i := 0; i < 127; i++ {
		var label int64
		switch {
		case i < 63:
			label = -(int64(1) << uint(62-i))
		case i > 63:
			label = int64(1) << uint(i-64)
		}
		count := 2
		switch i {
		case 0:
			count = 5
		case 61, 65, 126:
			count = 3
		case 62, 64:
			count = 1
		case 63:
			count = 0
		}
		bar := "                                        "
		if i == 0 {
			bar = "@" + bar[1:]
		}
		fmt.Fprintf(&want, "%16d |%s %-9d\n", label, bar, count)
	}
	want.WriteString("\n")
	diff(t, "tst.allquant", printAll(t, AggOpts{}, a.a), want.String())
}

// aggs/tst.stddev.d: printa("%@d\n") for one, the default at exit for the
// other.
func TestStddev(t *testing.T) {
	a := newAgg("a", 1, value.Stddev, value.AggParams{})
	b := newAgg("b", 2, value.Stddev, value.AggParams{})
	for i := int64(0); i < 10; i++ {
		a.add(nil, 5000000000+100*i, 0)
		b.add(nil, -5000000000-100*i, 0)
	}
	got := printa(t, "%@d\n", AggOpts{}, a.a) + printAll(t, AggOpts{}, b.a)
	diff(t, "tst.stddev", got, "287\n\n              287\n")
}

// aggs/tst.multiaggs2.d and tst.multiaggs3.d: every function, printed at
// exit in ID order, and with printa("%@d\n").
func TestMultiaggs(t *testing.T) {
	mk := func() []*aggBuilder {
		return []*aggBuilder{
			newAgg("a", 1, value.Avg, value.AggParams{}),
			newAgg("b", 2, value.Sum, value.AggParams{}),
			newAgg("c", 3, value.Min, value.AggParams{}),
			newAgg("d", 4, value.Max, value.AggParams{}),
			newAgg("e", 5, value.Quantize, value.AggParams{}),
			newAgg("f", 6, value.Lquantize, value.AggParams{Base: 0, Limit: 1000, Step: 100}),
			newAgg("g", 7, value.Stddev, value.AggParams{}),
		}
	}
	bs := mk()
	for i := int64(0); i < 1000; i += 100 {
		for _, b := range bs {
			b.add(nil, i, 1)
		}
	}
	var aggs []*value.Aggregation
	for _, b := range bs {
		aggs = append(aggs, b.a)
	}
	quant := "\n" + hdr + `              -1 |                                         0        
               0 |@@@@                                     1        
               1 |                                         0        
               2 |                                         0        
               4 |                                         0        
               8 |                                         0        
              16 |                                         0        
              32 |                                         0        
              64 |@@@@                                     1        
             128 |@@@@                                     1        
             256 |@@@@@@@@@@@@                             3        
             512 |@@@@@@@@@@@@@@@@                         4        
            1024 |                                         0        
`
	lquant := "\n" + hdr + `             < 0 |                                         0        
               0 |@@@@                                     1        
             100 |@@@@                                     1        
             200 |@@@@                                     1        
             300 |@@@@                                     1        
             400 |@@@@                                     1        
             500 |@@@@                                     1        
             600 |@@@@                                     1        
             700 |@@@@                                     1        
             800 |@@@@                                     1        
             900 |@@@@                                     1        
         >= 1000 |                                         0        
`
	want := "\n              450\n             4500\n                0\n              900\n" +
		quant + "\n" + lquant + "\n              287\n"
	diff(t, "tst.multiaggs2", printAll(t, AggOpts{}, aggs...), want)

	// tst.multiaggs3.d adds @a = count() and prints h (stddev) to a.
	cnt := newAgg("a", 0, value.Count, value.AggParams{})
	for i := 0; i < 10; i++ {
		cnt.add(nil, 0, 0)
	}
	var got strings.Builder
	for _, a := range []*value.Aggregation{aggs[6], aggs[5], aggs[4], aggs[3], aggs[2], aggs[1], aggs[0], cnt.a} {
		got.WriteString(printa(t, "%@d\n", AggOpts{}, a))
	}
	got.WriteString(printAll(t, AggOpts{}))
	want = "287\n" + lquant + "\n" + quant + "\n900\n0\n4500\n450\n10\n\n"
	diff(t, "tst.multiaggs3", got.String(), want)
}

// multiaggs/tst.sort.d: printa() of four aggregations joined on their keys,
// sorted by the first aggregation's value, then the next...
func TestMultiaggsSort(t *testing.T) {
	var bs []*aggBuilder
	for id, div := range []int64{2, 4, 8, 16} {
		bs = append(bs, newAgg(string(rune('a'+id)), id+1, value.Sum, value.AggParams{}))
		for i := int64(1); i <= 100; i++ {
			bs[id].add(vals(i64(i)), 100-i/div, 0)
		}
	}
	a, b, c, d := bs[0].a, bs[1].a, bs[2].a, bs[3].a
	got := printa(t, "%10d %@10d %@10d %@10d %@10d\n", AggOpts{}, a, b, c, d) +
		printa(t, "%10d %@10d %@10d %@10d %@10d\n", AggOpts{}, d, c, b, a) + printAll(t, AggOpts{})
	// The expected rows follow from the sort rule; spot-check the lines of
	// tst.sort.d.out and its length.
	lines := strings.Split(got, "\n")
	if len(lines) != 202 {
		t.Fatalf("tst.sort: %d lines", len(lines))
	}
	for i, want := range map[int]string{
		0:   "       100         50         75         88         94",
		1:   "        98         51         76         88         94",
		2:   "        99         51         76         88         94",
		3:   "        96         52         76         88         94",
		99:  "         1        100        100        100        100",
		100: "       100         94         88         75         50",
		101: "        98         94         88         76         51",
		198: "         3        100        100        100         99",
		199: "         1        100        100        100        100",
		200: "",
	} {
		if lines[i] != want {
			t.Errorf("tst.sort line %d = %q, want %q", i+1, lines[i], want)
		}
	}
}

// multiaggs/tst.zero.d: aggregations with no row for a key print zero, in
// their own format (even lquantize's, from its parameters).
func TestMultiaggsZero(t *testing.T) {
	bop := newAgg("bop", 1, value.Quantize, value.AggParams{})
	baz := newAgg("baz", 2, value.Lquantize, value.AggParams{Base: -10, Limit: 10, Step: 1})
	foo := newAgg("foo", 3, value.Sum, value.AggParams{})
	bar := newAgg("bar", 4, value.Sum, value.AggParams{})
	foo.add(vals(i32(123)), 123, 0)
	bar.add(vals(i32(456)), 456, 0)
	foo.add(vals(i32(789)), 789, 0)
	bar.add(vals(i32(789)), 789, 0)
	got := printa(t, "%10d %@10d %@10d\n", AggOpts{}, foo.a, bar.a) +
		printa(t, "%10d %@10d %@10d %@10d\n", AggOpts{}, foo.a, bar.a, bop.a) +
		printa(t, "%10d %@10d %@10d %@10d %@10d\n", AggOpts{}, foo.a, bar.a, bop.a, baz.a) +
		printAll(t, AggOpts{})
	q := "\n" + hdr + `              -1 |                                         0        
               0 |                                         0        
               1 |                                         0        
`
	lq := "\n" + hdr + `           < -10 |                                         0        
             -10 |                                         0        
              -9 |                                         0        
`
	want := "       456          0        456\n       123        123          0\n       789        789        789\n" +
		"       456          0        456 " + q + "\n" +
		"       123        123          0 " + q + "\n" +
		"       789        789        789 " + q + "\n" +
		"       456          0        456 " + q + " " + lq + "\n" +
		"       123        123          0 " + q + " " + lq + "\n" +
		"       789        789        789 " + q + " " + lq + "\n" + "\n"
	diff(t, "tst.zero", got, want)
}

// aggs/tst.signedkeys.d: with aggsortkey, integer keys sort as unsigned
// values but 4 and 8-byte ones print signed.
func TestSignedKeys(t *testing.T) {
	var aggs []*value.Aggregation
	for id, mk := range []func(int64) value.Value{i8, i16, i32, i64} {
		a := newAgg("", id+1, value.Sum, value.AggParams{})
		for _, x := range []int64{-2, -1, 0, 1, 2} {
			a.add(vals(mk(x)), x, 0)
		}
		aggs = append(aggs, a.a)
	}
	want := `
   0                0
   1                1
   2                2
 254               -2
 255               -1
     0                0
     1                1
     2                2
 65534               -2
 65535               -1
        0                0
        1                1
        2                2
       -2               -2
       -1               -1
                0                0
                1                1
                2                2
               -2               -2
               -1               -1
`
	diff(t, "tst.signedkeys", printAll(t, AggOpts{SortKey: true}, aggs...), want)
}

// printa/tst.dynwidth.d: '*' widths in printa() take keys.
func TestPrintaDynwidth(t *testing.T) {
	a := newAgg("", 1, value.Sum, value.AggParams{})
	a.add(vals(i32(10), i32(100)), 1, 0)
	a.add(vals(i32(-10), i32(200)), 2, 0)
	got := printa(t, "-->%-*d<--\n", AggOpts{}, a.a) + printa(t, "-->%*d<--\n", AggOpts{}, a.a) + printAll(t, AggOpts{})
	diff(t, "tst.dynwidth", got, "-->100       <--\n-->200       <--\n-->       100<--\n-->200       <--\n\n")
}

// printa/tst.basics.d: %@ of every function.
func TestPrintaBasics(t *testing.T) {
	mk := func(fn value.AggFunc, p value.AggParams) *value.Aggregation {
		return newAgg("", 1, fn, p).add(nil, 1, 1).a
	}
	var got strings.Builder
	for _, x := range []struct {
		f   string
		agg *value.Aggregation
	}{
		{"@a = %@u\n", mk(value.Avg, value.AggParams{})},
		{"@b = %@u\n", mk(value.Count, value.AggParams{})},
		{"@c = %@d\n", mk(value.Lquantize, value.AggParams{Base: 1, Limit: 10, Step: 1})},
		{"@d = %@u\n", mk(value.Max, value.AggParams{})},
		{"@e = %@u\n", mk(value.Min, value.AggParams{})},
		{"@f = %@u\n", mk(value.Sum, value.AggParams{})},
		{"@g = %@d\n", mk(value.Quantize, value.AggParams{})},
		{"@h = %@d\n", mk(value.Stddev, value.AggParams{})},
	} {
		got.WriteString(printa(t, x.f, AggOpts{}, x.agg))
	}
	got.WriteString(printAll(t, AggOpts{}))
	want := "@a = 1\n@b = 1\n@c = \n" + hdr + `             < 1 |                                         0        
               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               2 |                                         0        

@d = 1
@e = 1
@f = 1
@g = 
` + hdr + `               0 |                                         0        
               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               2 |                                         0        

@h = 0

`
	diff(t, "printa/tst.basics", got.String(), want)
}

// aggs/tst.avg_neg.d and aggs/tst.fmtnormalize.d.
func TestAvgNormalize(t *testing.T) {
	a := newAgg("", 1, value.Avg, value.AggParams{}).add(nil, 0, 0).add(nil, -900, 0)
	diff(t, "tst.avg_neg", printAll(t, AggOpts{}, a.a), "\n             -450\n")

	f := newAgg("func", 1, value.Sum, value.AggParams{})
	for i := int64(0); i < 20; i++ {
		f.add(vals(i32(i%5)), i*100, 0)
	}
	f.a.Normal = 5
	got := "normalized data:\n" + printa(t, "%u %@u\n", AggOpts{}, f.a) + printAll(t, AggOpts{})
	diff(t, "tst.fmtnormalize", got, "normalized data:\n0 600\n1 680\n2 760\n3 840\n4 920\n\n")
}

// llquantize/tst.negvalue.d: llquantize() with negative increments.
func TestLlquantizeNegvalue(t *testing.T) {
	a := newAgg("", 1, value.Llquantize, value.AggParams{Factor: 10, Low: 0, High: 10, Steps: 10})
	for i := int64(1); i <= 101; i++ {
		a.add(nil, i, 50-i)
	}
	want := "\n\n" + hdr + `             < 1                     |                     0        
               1                     |                     49       
               2                     |                     48       
               3                     |                     47       
               4                     |                     46       
               5                     |                     45       
               6                     |                     44       
               7                     |                     43       
               8                     |                     42       
               9                     |                     41       
              10                     |@@@                  355      
              20                     |@@                   255      
              30                     |@                    155      
              40                     |                     55       
              50                     |                     -45      
              60                    @|                     -145     
              70                   @@|                     -245     
              80                  @@@|                     -345     
              90                  @@@|                     -445     
             100                    @|                     -101     
             200                     |                     0        

`
	diff(t, "llquantize/tst.negvalue", printAll(t, AggOpts{}, a.a), want)
}

// llquantize/tst.steps.d, its first two plots: 20 and 100 steps per
// magnitude, printed by printa(@) after a printf().
func TestLlquantizeSteps(t *testing.T) {
	a := newAgg("", 1, value.Llquantize, value.AggParams{Factor: 10, Low: 0, High: 10, Steps: 20})
	h := newAgg("hunid", 2, value.Llquantize, value.AggParams{Factor: 10, Low: 0, High: 10, Steps: 100})
	for i := int64(1); i <= 101; i++ {
		a.add(nil, i, 1)
		h.add(nil, i*10, 1)
	}
	var want strings.Builder
	want.WriteString("20 steps:\n\n\n" + hdr + "             < 1 |                                         0        \n")
	for v := 1; v <= 9; v++ {
		fmt.Fprintf(&want, "%16d |                                         1        \n", v)
	}
	for v := 10; v <= 95; v += 5 {
		fmt.Fprintf(&want, "%16d |@@                                       5        \n", v)
	}
	want.WriteString("             100 |@                                        2        \n" +
		"             150 |                                         0        \n\n")
	want.WriteString("100 steps:\n\n\n" + hdr + "               9 |                                         0        \n")
	for v := 10; v < 100; v++ {
		c := 0
		if v%10 == 0 {
			c = 1
		}
		fmt.Fprintf(&want, "%16d |                                         %-9d\n", v, c)
	}
	for v := 100; v < 1000; v += 10 {
		fmt.Fprintf(&want, "%16d |                                         1        \n", v)
	}
	want.WriteString("            1000 |@                                        2        \n" +
		"            1100 |                                         0        \n\n")
	got := "20 steps:\n" + printa(t, "", AggOpts{}, a.a) + "100 steps:\n" + printa(t, "", AggOpts{}, h.a)
	diff(t, "llquantize/tst.steps", got, want.String())
}

// aggs/tst.keysort.d: aggsortkey, aggsortkeypos and aggsortrev, alone and
// together.
func TestKeysort(t *testing.T) {
	a := newAgg("tour", 1, value.Sum, value.AggParams{})
	i := int64(0)
	add := func(city string, j int64) {
		a.add(vals(str(city), i32(i), i32(j)), 5-j, 0)
		i++
	}
	add("Ghent", 0)
	add("Berlin", 1)
	add("London", 2)
	add("Dublin", 2)
	add("Shanghai", 3)
	add("Zurich", 4)
	for _, c := range []string{"Regina", "Winnipeg", "Edmonton", "Calgary", "Vancouver", "Victoria"} {
		add(c, 5)
	}
	add("Prague", 6)
	add("London", 6)
	for _, c := range []string{"Brisbane", "Sydney", "Melbourne"} {
		add(c, 7)
	}
	add("Amsterdam", 8)
	var got strings.Builder
	for _, s := range []struct {
		title string
		o     AggOpts
	}{
		{"By value:\n", AggOpts{}},
		{"\nBy key, position 0:\n", AggOpts{SortKey: true}},
		{"\nBy key, position 1:\n", AggOpts{SortKey: true, SortKeyPos: 1}},
		{"\nBy key, position 2:\n", AggOpts{SortKey: true, SortKeyPos: 2}},
		{"\nReversed by value:\n", AggOpts{SortRev: true}},
		{"\nReversed by key, position 0:\n", AggOpts{SortRev: true, SortKey: true}},
		{"\nReversed by key, position 1:\n", AggOpts{SortRev: true, SortKey: true, SortKeyPos: 1}},
		{"\nReversed by key, position 2:\n", AggOpts{SortRev: true, SortKey: true, SortKeyPos: 2}},
	} {
		got.WriteString(s.title + printa(t, "%20s %8d %8d %8@d\n", s.o, a.a))
	}
	got.WriteString(printAll(t, AggOpts{}))
	diff(t, "tst.keysort", got.String(), keysortOut)
}

const keysortOut = `By value:
           Amsterdam       17        8       -3
            Brisbane       14        7       -2
           Melbourne       16        7       -2
              Sydney       15        7       -2
              London       13        6       -1
              Prague       12        6       -1
             Calgary        9        5        0
            Edmonton        8        5        0
              Regina        6        5        0
           Vancouver       10        5        0
            Victoria       11        5        0
            Winnipeg        7        5        0
              Zurich        5        4        1
            Shanghai        4        3        2
              Dublin        3        2        3
              London        2        2        3
              Berlin        1        1        4
               Ghent        0        0        5

By key, position 0:
           Amsterdam       17        8       -3
              Berlin        1        1        4
            Brisbane       14        7       -2
             Calgary        9        5        0
              Dublin        3        2        3
            Edmonton        8        5        0
               Ghent        0        0        5
              London        2        2        3
              London       13        6       -1
           Melbourne       16        7       -2
              Prague       12        6       -1
              Regina        6        5        0
            Shanghai        4        3        2
              Sydney       15        7       -2
           Vancouver       10        5        0
            Victoria       11        5        0
            Winnipeg        7        5        0
              Zurich        5        4        1

By key, position 1:
               Ghent        0        0        5
              Berlin        1        1        4
              London        2        2        3
              Dublin        3        2        3
            Shanghai        4        3        2
              Zurich        5        4        1
              Regina        6        5        0
            Winnipeg        7        5        0
            Edmonton        8        5        0
             Calgary        9        5        0
           Vancouver       10        5        0
            Victoria       11        5        0
              Prague       12        6       -1
              London       13        6       -1
            Brisbane       14        7       -2
              Sydney       15        7       -2
           Melbourne       16        7       -2
           Amsterdam       17        8       -3

By key, position 2:
               Ghent        0        0        5
              Berlin        1        1        4
              Dublin        3        2        3
              London        2        2        3
            Shanghai        4        3        2
              Zurich        5        4        1
             Calgary        9        5        0
            Edmonton        8        5        0
              Regina        6        5        0
           Vancouver       10        5        0
            Victoria       11        5        0
            Winnipeg        7        5        0
              London       13        6       -1
              Prague       12        6       -1
            Brisbane       14        7       -2
           Melbourne       16        7       -2
              Sydney       15        7       -2
           Amsterdam       17        8       -3

Reversed by value:
               Ghent        0        0        5
              Berlin        1        1        4
              London        2        2        3
              Dublin        3        2        3
            Shanghai        4        3        2
              Zurich        5        4        1
            Winnipeg        7        5        0
            Victoria       11        5        0
           Vancouver       10        5        0
              Regina        6        5        0
            Edmonton        8        5        0
             Calgary        9        5        0
              Prague       12        6       -1
              London       13        6       -1
              Sydney       15        7       -2
           Melbourne       16        7       -2
            Brisbane       14        7       -2
           Amsterdam       17        8       -3

Reversed by key, position 0:
              Zurich        5        4        1
            Winnipeg        7        5        0
            Victoria       11        5        0
           Vancouver       10        5        0
              Sydney       15        7       -2
            Shanghai        4        3        2
              Regina        6        5        0
              Prague       12        6       -1
           Melbourne       16        7       -2
              London       13        6       -1
              London        2        2        3
               Ghent        0        0        5
            Edmonton        8        5        0
              Dublin        3        2        3
             Calgary        9        5        0
            Brisbane       14        7       -2
              Berlin        1        1        4
           Amsterdam       17        8       -3

Reversed by key, position 1:
           Amsterdam       17        8       -3
           Melbourne       16        7       -2
              Sydney       15        7       -2
            Brisbane       14        7       -2
              London       13        6       -1
              Prague       12        6       -1
            Victoria       11        5        0
           Vancouver       10        5        0
             Calgary        9        5        0
            Edmonton        8        5        0
            Winnipeg        7        5        0
              Regina        6        5        0
              Zurich        5        4        1
            Shanghai        4        3        2
              Dublin        3        2        3
              London        2        2        3
              Berlin        1        1        4
               Ghent        0        0        5

Reversed by key, position 2:
           Amsterdam       17        8       -3
              Sydney       15        7       -2
           Melbourne       16        7       -2
            Brisbane       14        7       -2
              Prague       12        6       -1
              London       13        6       -1
            Winnipeg        7        5        0
            Victoria       11        5        0
           Vancouver       10        5        0
              Regina        6        5        0
            Edmonton        8        5        0
             Calgary        9        5        0
              Zurich        5        4        1
            Shanghai        4        3        2
              London        2        2        3
              Dublin        3        2        3
              Berlin        1        1        4
               Ghent        0        0        5

`

// multiaggs/tst.sortpos.d: aggsortpos picks the aggregation whose value
// sorts first in a joined printa(); @a appears three times. The first two
// lines of each section of tst.sortpos.d.out.
func TestSortpos(t *testing.T) {
	var bs []*value.Aggregation
	for id, off := range []int64{0, 25, 50, 75} {
		b := newAgg(string(rune('a'+id)), id+1, value.Sum, value.AggParams{})
		for i := int64(1); i <= 100; i++ {
			v := (off + i) % 100 // @b[i] = sum((25 + i) % 100)...
			if off == 0 {
				v = i // ... but @a[i] = sum(i)
			}
			b.add(vals(i32(i)), v, 0)
		}
		bs = append(bs, b.a)
	}
	a, b, c, d := bs[0], bs[1], bs[2], bs[3]
	first := map[int][2]string{
		0: {"        1         1        26        51         1        76         1", "        2         2        27        52         2        77         2"},
		1: {"       75        75         0        25        75        50        75", "       76        76         1        26        76        51        76"},
		2: {"       50        50        75         0        50        25        50", "       51        51        76         1        51        26        51"},
	}
	first[3], first[5] = first[0], first[0]
	first[4] = [2]string{"       25        25        50        75        25         0        25", "       26        26        51        76        26         1        26"}
	for j := 6; j < 10; j++ {
		first[j] = first[0] // beyond the number of aggregations: 0
	}
	for j := 0; j < 10; j++ {
		out := printa(t, "%9d %@9d %@9d %@9d %@9d %@9d %@9d\n", AggOpts{SortPos: j}, a, b, c, a, d, a)
		lines := strings.Split(out, "\n")
		if len(lines) != 101 || lines[0] != first[j][0] || lines[1] != first[j][1] {
			t.Errorf("aggsortpos=%d: %d lines, starting\n%q\n%q\nwant\n%q\n%q", j, len(lines), lines[0], lines[1], first[j][0], first[j][1])
		}
	}
}

func TestPrintAggregationAndErrors(t *testing.T) {
	a := newAgg("x", 3, value.Count, value.AggParams{}).add(vals(str("k")), 0, 0)
	var sb strings.Builder
	if err := PrintAggregation(&sb, a.a, AggOpts{}); err != nil {
		t.Fatal(err)
	}
	want := "\n  k                                                                 1\n"
	diff(t, "printa(@x)", sb.String(), want)

	// printa(@) of an empty aggregation prints only its newline;
	// printa("fmt", @) nothing.
	e := newAgg("e", 4, value.Sum, value.AggParams{})
	diff(t, "printa(@empty)", printa(t, "", AggOpts{}, e.a), "\n")
	diff(t, "printa(fmt, @empty)", printa(t, "%@d\n", AggOpts{}, e.a), "")

	// More key conversions than keys is DTrace's EDT_DMISMATCH.
	p, _ := ParsePrintf("%s %s %@d\n")
	if err := Printa(&sb, p, []*value.Aggregation{a.a}, AggOpts{}); err == nil {
		t.Error("printa with too many key conversions: no error")
	}
	// Invalid lquantize() parameters cannot be plotted.
	l := &value.Aggregation{Func: value.Lquantize, Params: value.AggParams{Step: 0},
		Rows: []value.AggRow{{Val: value.AggValue{Buckets: []int64{1}}}}}
	if err := PrintAll(&sb, []*value.Aggregation{l}, AggOpts{}); err == nil {
		t.Error("lquantize with step 0: no error")
	}
}
