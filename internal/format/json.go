package format

// Newline-delimited JSON for --json mode: one object per line. DTrace has
// no such output; the layout is sonde's own:
//
//	{"type":"printf","probe":{...},"text":"..."}
//	{"type":"trace","probe":{...},"value":...}
//	{"type":"aggregation","name":"a","id":1,"func":"count","rows":[{"keys":[...],"value":...}]}
//
// Integers are JSON numbers (exact, as encoding/json writes int64 and
// uint64), strings and symbols strings, stacks arrays of frames, raw bytes
// hex strings. count, sum, min, max and avg rows have a number "value";
// stddev too, with "count", "sum" beside it; the distributions have
// "buckets": the nonzero ones, each with "min" (absent for the underflow
// bucket), "max" (exclusive; absent for the overflow bucket) and "count".
// Rows come in the order printa() would print them.

import (
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/sonde-trace/sonde/internal/value"
)

// ProbeInfo names the probe that fired.
type ProbeInfo struct {
	CPU      int    `json:"cpu"`
	ID       uint32 `json:"id"`
	Provider string `json:"provider"`
	Module   string `json:"module"`
	Function string `json:"function"`
	Name     string `json:"name"`
}

// JSONPrintf writes the text a printf() produced in one firing.
func JSONPrintf(w io.Writer, probe ProbeInfo, text string) error {
	return writeJSON(w, struct {
		Type  string    `json:"type"`
		Probe ProbeInfo `json:"probe"`
		Text  string    `json:"text"`
	}{"printf", probe, text})
}

// JSONTrace writes one trace() record.
func JSONTrace(w io.Writer, probe ProbeInfo, v value.Value) error {
	return writeJSON(w, struct {
		Type  string    `json:"type"`
		Probe ProbeInfo `json:"probe"`
		Value any       `json:"value"`
	}{"trace", probe, jsonValue(v)})
}

type jsonBucket struct {
	Min   *int64 `json:"min,omitempty"`
	Max   *int64 `json:"max,omitempty"`
	Count int64  `json:"count"`
}

type jsonRow struct {
	Keys    []any        `json:"keys"`
	Value   *int64       `json:"value,omitempty"`
	Count   *int64       `json:"count,omitempty"`
	Sum     *int64       `json:"sum,omitempty"`
	Buckets []jsonBucket `json:"buckets,omitempty"`
}

// JSONAggregation writes one aggregation with its rows, normalized, in
// printa() order.
func JSONAggregation(w io.Writer, a *value.Aggregation, o AggOpts) error {
	rows := []jsonRow{}
	for _, r := range joinRows([]*value.Aggregation{a}, o) {
		rows = append(rows, jsonAggRow(a, r.keys, r.vals[0].row.Val))
	}
	return writeJSON(w, struct {
		Type string    `json:"type"`
		Name string    `json:"name"`
		ID   int       `json:"id"`
		Func string    `json:"func"`
		Rows []jsonRow `json:"rows"`
	}{"aggregation", a.Name, a.ID, a.Func.String(), rows})
}

func jsonAggRow(a *value.Aggregation, keys []value.Value, v value.AggValue) jsonRow {
	r := jsonRow{Keys: []any{}}
	for _, k := range keys {
		r.Keys = append(r.Keys, jsonValue(k))
	}
	normal := normalOf(a)
	num := func(x int64) *int64 { return &x }
	switch a.Func {
	case value.Count:
		r.Value = num(normalize(v.Count, normal))
	case value.Sum:
		r.Value = num(normalize(v.Sum, normal))
	case value.Min:
		r.Value = num(normalize(v.Min, normal))
	case value.Max:
		r.Value = num(normalize(v.Max, normal))
	case value.Avg:
		var x int64
		if v.Count != 0 {
			x = v.Sum / int64(normal) / v.Count
		}
		r.Value = num(x)
	case value.Stddev:
		r.Value = num(int64(stddev(v, normal)))
		r.Count, r.Sum = num(v.Count), num(v.Sum)
	default:
		r.Buckets = jsonBuckets(a, v.Buckets, normal)
	}
	return r
}

// jsonBuckets lists the nonzero buckets with their bounds.
func jsonBuckets(a *value.Aggregation, data []int64, normal uint64) []jsonBucket {
	bs := []jsonBucket{}
	add := func(lo, hi *int64, c int64) {
		if c != 0 {
			bs = append(bs, jsonBucket{lo, hi, normalize(c, normal)})
		}
	}
	p := func(x int64) *int64 { return &x }
	switch a.Func {
	case value.Quantize:
		for i := 0; i < value.QuantizeBuckets && i < len(data); i++ {
			var lo, hi *int64
			switch {
			case i == 0:
				hi = p(value.QuantizeValue(0) + 1)
			case i < value.QuantizeZero:
				lo, hi = p(value.QuantizeValue(i-1)+1), p(value.QuantizeValue(i)+1)
			case i == value.QuantizeZero:
				lo, hi = p(0), p(1)
			case i < value.QuantizeBuckets-1:
				lo, hi = p(value.QuantizeValue(i)), p(value.QuantizeValue(i+1))
			default:
				lo = p(value.QuantizeValue(i))
			}
			add(lo, hi, data[i])
		}
	case value.Lquantize:
		q, err := value.LquantizeOf(a.Params)
		if err != nil {
			return bs
		}
		for i := 0; i < int(q.Levels)+2 && i < len(data); i++ {
			var lo, hi *int64
			if i > 0 {
				lo = p(int64(q.Base) + int64(i-1)*int64(q.Step))
			}
			if i <= int(q.Levels) {
				hi = p(int64(q.Base) + int64(i)*int64(q.Step))
			}
			add(lo, hi, data[i])
		}
	case value.Llquantize:
		q, err := value.LlquantizeOf(a.Params)
		if err != nil {
			return bs
		}
		bounds := q.Bounds()
		for i := 0; i < len(data) && i < len(bounds)+1; i++ {
			var lo, hi *int64
			if i > 0 {
				lo = p(bounds[i-1])
			}
			if i < len(bounds) {
				hi = p(bounds[i])
			}
			add(lo, hi, data[i])
		}
	}
	return bs
}

// jsonValue is a traced value as JSON.
func jsonValue(v value.Value) any {
	switch v.Kind {
	case value.Int:
		if v.Signed {
			return signExtend(v)
		}
		return zeroExtend(v)
	case value.String:
		return cstring(v.Str)
	case value.Stack, value.UStack:
		if v.Frames == nil {
			return []string{}
		}
		return v.Frames
	case value.Bytes:
		return hex.EncodeToString(v.Raw)
	}
	return v.Str
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
