package store

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// randomCount draws a count from one of the shapes counts take: mostly
// small, sometimes large, rarely the extremes, zero or negative.
func randomCount(r *rand.Rand, scale int) int64 {
	switch x := r.IntN(1000); {
	case x < 2:
		return []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}[r.IntN(4)]
	case x < 6:
		return 0
	case x < 10:
		return -r.Int64N(1 << uint(r.IntN(63)))
	case x < 500:
		return 1 + r.Int64N(3)
	}
	return 1 + r.Int64N(1<<uint(1+r.IntN(scale)))
}

// randomDist makes n seconds of a distribution dataset: keys that come and
// go, rows that have buckets or none, buckets of a table of random ranges
// (an index twice with two ranges), sparse and dense rows, values that are
// and are not their buckets' sum, gaps in time, Samples that vary.
func randomDist(r *rand.Rand, n int) []analytics.Second {
	nkeys := 1 + r.IntN(12)
	tsize := 1 + r.IntN(200)
	table := make([]analytics.Bucket, tsize)
	for i := range table {
		idx := int32(r.IntN(tsize + 5))
		if r.IntN(20) == 0 {
			idx = -idx
		}
		table[i] = analytics.Bucket{Index: idx, Min: int64(idx) * 10, Max: analytics.Bound(int64(idx)*10 + 1 + r.Int64N(10))}
		if r.IntN(10) == 0 {
			table[i].Max = analytics.Unbounded
		}
	}
	scale := 1 + r.IntN(40)
	var out []analytics.Second
	t := t0.Unix()
	for range n {
		t += 1 + int64(r.IntN(3)/2)*int64(r.IntN(5))
		s := analytics.Second{Time: time.Unix(t, 0).UTC(), Samples: 1 + r.IntN(2)*r.IntN(60)}
		for k := range nkeys {
			if r.IntN(4) == 0 {
				continue
			}
			row := analytics.Row{Key: []string{string(rune('a' + k))}}
			if k == 0 {
				row.Key = nil
			}
			lo := r.IntN(tsize)
			hi := lo + r.IntN(tsize-lo)
			dense := r.IntN(3)
			for p := lo; p <= hi && r.IntN(50) > 0; p++ {
				if dense == 0 && r.IntN(4) > 0 || dense == 1 && r.IntN(2) > 0 {
					continue
				}
				b := table[p]
				b.Count = randomCount(r, scale)
				row.Buckets = append(row.Buckets, b)
			}
			if r.IntN(10) > 0 {
				row.Value = bucketSum(row.Buckets)
			} else {
				row.Value = r.Int64() - r.Int64()
			}
			s.Rows = append(s.Rows, row)
		}
		rows, err := normalize(s.Rows)
		if err != nil { // the same bucket twice in a row: drop the row
			rows = nil
		}
		s.Rows = rows
		out = append(out, s)
	}
	return out
}

// TestDistRoundTrip encodes random distributions in chunks of each
// format: every interval, key, bucket and count must read back exactly.
func TestDistRoundTrip(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 11))
		ivs := randomDist(r, 1+r.IntN(150))
		for _, v := range []byte{chunkV1, chunkV2, chunkV3} {
			c.version = v
			b := c.encodeChunk(t0.Unix(), 1, ivs)
			if b[0] != v {
				t.Fatalf("seed %d: version %d written as %d", seed, v, b[0])
			}
			got, err := c.decodeChunk(t0.Unix(), 1, b)
			if err != nil {
				t.Fatalf("seed %d, version %d: %v", seed, v, err)
			}
			if !reflect.DeepEqual(got, ivs) {
				t.Fatalf("seed %d, version %d: got\n%+v\nwant\n%+v", seed, v, got, ivs)
			}
		}
	}
}

// FuzzDistChunk round-trips the distributions a fuzzer's seed makes, then
// decodes the fuzzer's bytes as a version 2 chunk (checksum made right):
// an error or intervals, never a panic or a hang.
func FuzzDistChunk(f *testing.F) {
	c, err := newCodec()
	if err != nil {
		f.Fatal(err)
	}
	defer c.close()
	f.Add(uint64(1), []byte{2, 0, 0, 0, 0, 3, 0, 0, 0})
	f.Add(uint64(2), c.encodeChunk(t0.Unix(), 1, randomDist(rand.New(rand.NewPCG(2, 2)), 20)))
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		ivs := randomDist(rand.New(rand.NewPCG(seed, 3)), 30)
		b := c.encodeChunk(t0.Unix(), 1, ivs)
		got, err := c.decodeChunk(t0.Unix(), 1, b)
		if err != nil || !reflect.DeepEqual(got, ivs) {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(raw) >= 5 {
			raw[0] = byte(1 + seed%3)
			binary.LittleEndian.PutUint32(raw[1:], crc32.Checksum(raw[5:], castagnoli))
			_, _ = c.decodeChunk(t0.Unix(), 1, raw)
		}
	})
}

// TestDistDamage is TestChunkDamage for distributions of every shape:
// each byte of a version 2 chunk changed in turn, its checksum made
// right, must decode to an error or to intervals, never panic or hang;
// with the checksum left alone, every change is caught.
func TestDistDamage(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	good := c.encodeChunk(t0.Unix(), 1, randomDist(rand.New(rand.NewPCG(7, 7)), 40))
	for i := 5; i < len(good); i++ {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := append([]byte(nil), good...)
			b[i] ^= x
			binary.LittleEndian.PutUint32(b[1:], crc32.Checksum(b[5:], castagnoli))
			_, _ = c.decodeChunk(t0.Unix(), 1, b)
		}
	}
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x10
		if _, err := c.decodeChunk(t0.Unix(), 1, b); err == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
}

// TestValuesGCD: format 2 writes a column's values divided by their
// greatest common divisor; every value must come back, the extremes, the
// negatives and the all-zero column too, and bytes counted by the page
// must take less room than before.
func TestValuesGCD(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	columns := map[string]func(i int) int64{
		"pages":   func(i int) int64 { return int64(i*i%977) * 4096 },
		"neg":     func(i int) int64 { return -int64(i%7) * 512 },
		"zero":    func(int) int64 { return 0 },
		"min":     func(i int) int64 { return []int64{math.MinInt64, 0, 1 << 62}[i%3] },
		"minpow":  func(i int) int64 { return []int64{math.MinInt64, 4096, -8192}[i%3] },
		"onlymin": func(int) int64 { return math.MinInt64 },
		"max":     func(i int) int64 { return math.MaxInt64 - int64(i%2) },
		"odd":     func(i int) int64 { return int64(i) * 3 },
	}
	var ivs []analytics.Second
	for i := range 300 {
		s := analytics.Second{Time: sec(i), Samples: 1}
		for name, f := range columns {
			s.Rows = append(s.Rows, analytics.Row{Key: []string{name}, Value: f(i)})
		}
		rows, err := normalize(s.Rows)
		if err != nil {
			t.Fatal(err)
		}
		s.Rows = rows
		ivs = append(ivs, s)
	}
	var size [chunkVersion + 1]int
	for _, v := range []byte{chunkV1, chunkV2, chunkV3} {
		c.version = v
		b := c.encodeChunk(t0.Unix(), 1, ivs)
		got, err := c.decodeChunk(t0.Unix(), 1, b)
		if err != nil || !reflect.DeepEqual(got, ivs) {
			t.Fatalf("version %d: %v", v, err)
		}
		one := make([]analytics.Second, len(ivs))
		for i, iv := range ivs {
			one[i] = analytics.Second{Time: iv.Time, Samples: 1, Rows: []analytics.Row{{Key: []string{"pages"}, Value: columns["pages"](i)}}}
		}
		size[v] = len(c.encodeChunk(t0.Unix(), 1, one))
	}
	if size[2] >= size[1] || size[3] > size[2]+1 { // format 3: its kind byte, at the most
		t.Fatalf("a column of pages: %d bytes in format 1, %d in format 2, %d in format 3", size[1], size[2], size[3])
	}
}

// TestValuesMode: each column's values take the shortest of the three
// modes, in both formats (a slip once left every column raw).
func TestValuesMode(t *testing.T) {
	cases := []struct {
		name string
		f    func(i int) int64
		want byte
	}{
		{"raw", func(i int) int64 { return int64(i % 3) }, modeRaw},
		{"delta", func(i int) int64 { return 1<<40 + int64(i*i%5) }, modeDelta},
		{"dod", func(i int) int64 { return 1<<40 + int64(i)*1000003 }, modeDoD},
	}
	for _, c := range cases {
		var rows []analytics.Row
		for i := range 100 {
			rows = append(rows, analytics.Row{Value: c.f(i)})
		}
		for _, v := range []byte{chunkV1, chunkV2, chunkV3} {
			b := appendValues(nil, rows, v)
			if got := b[0] &^ (modeGCD | modeZero); got != c.want {
				t.Errorf("%s, format %d: mode %d, want %d", c.name, v, got, c.want)
			}
			col := &column{present: make([]bool, len(rows))}
			for i := range col.present {
				col.present[i] = true
			}
			r := &reader{b: b}
			readValues(r, col, v)
			if r.err != nil || len(r.b) != 0 {
				t.Fatalf("%s, format %d: %v, %d bytes left", c.name, v, r.err, len(r.b))
			}
			for i, row := range col.rows {
				if row.Value != rows[i].Value {
					t.Fatalf("%s, format %d, value %d: %d, want %d", c.name, v, i, row.Value, rows[i].Value)
				}
			}
		}
	}
}
