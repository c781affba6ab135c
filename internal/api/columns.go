package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// The compact data answer (GET /datasets/NAME/data?format=columns) is the
// default answer transposed: the same fields, each an array with one
// entry per interval that has data, in time order. sample lists the
// intervals present (absent intervals are absent, as in the default
// form); in a key's or a bucket's array, null is "not in this interval"
// (absent from the default form's interval), never zero. It is written
// without indentation.

// nullable is one column: a value per interval, or none (null).
type nullable struct {
	v   []int64
	has []bool
}

func newNullable(n int) nullable { return nullable{v: make([]int64, n), has: make([]bool, n)} }

func (c nullable) set(i int, v int64) { c.v[i], c.has[i] = v, true }

// bucketColumn is one bucket range's counts: rng holds the range (its
// Min and Max, as the default answer has them).
type bucketColumn struct {
	rng   analytics.Bucket
	count nullable
}

// keyColumn is one key of a breakdown.
type keyColumn struct {
	key   string
	keys  []string
	value nullable
	sum   int64
}

// bucketSet gathers bucket columns by range.
type bucketSet struct {
	n    int
	cols []*bucketColumn
	at   map[[2]int64]*bucketColumn
	// last is the column of each place in the last interval's buckets:
	// intervals mostly hold the same ranges in the same order, and a
	// day of minutes is 57,600 buckets to place.
	last []*bucketColumn
}

// add puts b, the j-th bucket of interval i, in its range's column.
func (s *bucketSet) add(i, j int, b analytics.Bucket) {
	var c *bucketColumn
	if j < len(s.last) && s.last[j].rng.Min == b.Min && s.last[j].rng.Max == b.Max {
		c = s.last[j]
	} else {
		if s.at == nil {
			s.at = map[[2]int64]*bucketColumn{}
		}
		r := [2]int64{b.Min, int64(b.Max)}
		c = s.at[r]
		if c == nil {
			c = &bucketColumn{rng: analytics.Bucket{Min: b.Min, Max: b.Max}, count: newNullable(s.n)}
			s.at[r] = c
			s.cols = append(s.cols, c)
		}
		if j < len(s.last) {
			s.last[j] = c
		} else {
			s.last = append(s.last, c)
		}
	}
	c.count.set(i, b.Count)
}

// sorted gives the columns by range, as the default form orders buckets.
func (s *bucketSet) sorted() []*bucketColumn {
	slices.SortFunc(s.cols, func(a, b *bucketColumn) int {
		if a.rng.Min != b.rng.Min {
			return cmpInt(a.rng.Min, b.rng.Min)
		}
		return cmpInt(int64(a.rng.Max), int64(b.rng.Max))
	})
	return s.cols
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeColumns answers a data request in the compact form: ivs are the
// default form's intervals (showInterval's), so both forms carry the same
// numbers by construction.
func writeColumns(w http.ResponseWriter, g analytics.Granularity, nbreak int, ivs []intervalJSON) {
	n := len(ivs)
	samples, counts, values := newNullable(n), newNullable(n), newNullable(n)
	var total bucketSet
	total.n = n
	keys := map[string]*keyColumn{}
	var order []*keyColumn
	hasData := nbreak > 0
	keyBuckets := map[*keyColumn]*bucketSet{}
	for i, iv := range ivs {
		samples.set(i, iv.Sample)
		counts.set(i, int64(iv.Samples))
		values.set(i, iv.Data.Value)
		for j, b := range iv.Data.Buckets {
			total.add(i, j, b)
		}
		if iv.Data.Data == nil {
			continue
		}
		hasData = true
		for _, k := range *iv.Data.Data {
			c := keys[k.Key]
			if c == nil {
				c = &keyColumn{key: k.Key, keys: k.Keys, value: newNullable(n)}
				keys[k.Key] = c
				order = append(order, c)
				keyBuckets[c] = &bucketSet{n: n}
			}
			c.value.set(i, k.Value)
			c.sum += k.Value
			bs := keyBuckets[c]
			for j, b := range k.Buckets {
				bs.add(i, j, b)
			}
		}
	}
	// Keys ranked by their sum over the window, then by name.
	slices.SortStableFunc(order, func(a, b *keyColumn) int {
		if a.sum != b.sum {
			return -cmpInt(a.sum, b.sum)
		}
		return strings.Compare(a.key, b.key)
	})
	var buf bytes.Buffer
	buf.Grow(64 + n*16*(2+len(order)+len(total.cols)))
	buf.WriteString(`{"data":{"granularity":`)
	writeString(&buf, string(g))
	buf.WriteString(`,"width":`)
	buf.WriteString(strconv.FormatInt(int64(g.Width()/time.Second), 10))
	buf.WriteString(`,"breakdowns":`)
	buf.WriteString(strconv.Itoa(nbreak))
	buf.WriteString(`,"sample":`)
	writeNullable(&buf, samples)
	buf.WriteString(`,"samples":`)
	writeNullable(&buf, counts)
	buf.WriteString(`,"value":`)
	writeNullable(&buf, values)
	if hasData {
		buf.WriteString(`,"data":[`)
		for j, c := range order {
			if j > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"key":`)
			writeString(&buf, c.key)
			if len(c.keys) > 0 {
				buf.WriteString(`,"keys":[`)
				for m, s := range c.keys {
					if m > 0 {
						buf.WriteByte(',')
					}
					writeString(&buf, s)
				}
				buf.WriteByte(']')
			}
			buf.WriteString(`,"value":`)
			writeNullable(&buf, c.value)
			if bs := keyBuckets[c]; len(bs.cols) > 0 {
				buf.WriteString(`,"buckets":`)
				writeBuckets(&buf, bs.sorted())
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	if len(total.cols) > 0 {
		buf.WriteString(`,"buckets":`)
		writeBuckets(&buf, total.sorted())
	}
	buf.WriteString("}}\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func writeBuckets(buf *bytes.Buffer, cols []*bucketColumn) {
	buf.WriteByte('[')
	for j, c := range cols {
		if j > 0 {
			buf.WriteByte(',')
		}
		// The range as the default answer writes a bucket's (max absent
		// for the open last bucket), without its count.
		rng, _ := json.Marshal(c.rng) // a bucket always encodes
		buf.Write(bytes.TrimSuffix(rng, []byte(`,"count":0}`)))
		buf.WriteString(`,"count":`)
		writeNullable(buf, c.count)
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
}

func writeNullable(buf *bytes.Buffer, c nullable) {
	var tmp [24]byte
	buf.WriteByte('[')
	for i, v := range c.v {
		if i > 0 {
			buf.WriteByte(',')
		}
		if !c.has[i] {
			buf.WriteString("null")
			continue
		}
		buf.Write(strconv.AppendInt(tmp[:0], v, 10))
	}
	buf.WriteByte(']')
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always encodes
	buf.Write(b)
}
