package store

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// rcColumns are columns of every shape a value can have: noisy counters
// over six orders of magnitude, pages, negatives, zeros, the extremes.
func rcColumns(r *rand.Rand, n int) []*column {
	shapes := []func(i int) int64{
		func(int) int64 { return int64(math.Exp(10 + 2*r.Float64())) },          // a noisy counter
		func(int) int64 { return int64(math.Exp(6+3*r.Float64())) * 4096 },      // bytes by the page
		func(i int) int64 { return 1<<40 + int64(i)*1000003 + r.Int64N(9) - 4 }, // a running total
		func(int) int64 { return r.Int64N(7) - 3 },
		func(int) int64 { return 0 },
		func(i int) int64 { return []int64{math.MinInt64, 0, 1 << 62, math.MaxInt64, -1}[i%5] },
		func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64}[(i/3)%2] },
		func(int) int64 { return math.MinInt64 },
		func(int) int64 { return r.Int64() - r.Int64() },
		func(i int) int64 { return 10000 - int64(i%4)*50 }, // cpu.utilization
	}
	var cols []*column
	for _, f := range shapes {
		c := &column{present: make([]bool, n)}
		for i := range n {
			if r.IntN(8) == 0 {
				continue
			}
			c.present[i] = true
			row := analytics.Row{Value: f(i)}
			if r.IntN(5) == 0 { // a distribution's row: its value is less its buckets' sum
				row.Buckets = []analytics.Bucket{{Index: 1, Min: 1, Max: 2, Count: r.Int64N(50) + 1}}
				row.Value = bucketSum(row.Buckets) + row.Value%1000
			}
			c.rows = append(c.rows, row)
		}
		cols = append(cols, c)
	}
	return cols
}

// TestValuesRC round-trips columns of every shape through the range coded
// values of format 3: every value must come back, and the stream must be
// consumed whole; a stream cut short is an error, never a panic.
func TestValuesRC(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 5))
		cols := rcColumns(r, 1+r.IntN(400))
		b := appendValuesRC(nil, cols)
		if b[0] != valuesRC {
			t.Fatalf("kind %d", b[0])
		}
		got := make([]*column, len(cols))
		for i, c := range cols {
			got[i] = &column{present: c.present}
		}
		rd := &reader{b: b[1:]}
		readValuesRC(rd, got)
		if rd.err != nil || len(rd.b) != 0 {
			t.Fatalf("seed %d: %v, %d bytes left", seed, rd.err, len(rd.b))
		}
		for i, c := range cols {
			for j, row := range c.rows {
				if want := row.Value - bucketSum(row.Buckets); got[i].rows[j].Value != want {
					t.Fatalf("seed %d, column %d, row %d: %d, want %d", seed, i, j, got[i].rows[j].Value, want)
				}
			}
		}
		for cut := 1; cut < len(b); cut += 1 + len(b)/7 {
			rd := &reader{b: b[1:cut]}
			readValuesRC(rd, got)
		}
	}
}

// TestValuesV3 writes chunks of noisy single counters, as sonded's
// syscall.ops and io.bytes are, in formats 2 and 3: they read back
// exactly, and format 3 (range coded) takes less room than format 2
// (varints and zstd), which took 2.4-2.9 bytes a sample of the recorded
// ones.
func TestValuesV3(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	r := rand.New(rand.NewPCG(3, 3))
	for _, f := range []func() int64{
		func() int64 { return int64(math.Exp(10 + 2*r.Float64())) },
		func() int64 { return int64(math.Exp(7+4*r.Float64())) * 4096 },
	} {
		var ivs []analytics.Second
		for i := range 1800 {
			ivs = append(ivs, analytics.Second{Time: sec(i), Samples: 1, Rows: []analytics.Row{{Value: f()}}})
		}
		var size [chunkVersion + 1]int
		for _, v := range []byte{chunkV2, chunkV3} {
			c.version = v
			b := c.encodeChunk(t0.Unix(), 1, ivs)
			got, err := c.decodeChunk(t0.Unix(), 1, b)
			if err != nil || !reflect.DeepEqual(got, ivs) {
				t.Fatalf("format %d: %v", v, err)
			}
			size[v] = len(b)
		}
		t.Logf("format 2: %.2f B/sample, format 3: %.2f", float64(size[2])/1800, float64(size[3])/1800)
		if size[3] >= size[2]*95/100 {
			t.Fatalf("format 3: %d bytes, format 2 %d: want 5%% less", size[3], size[2])
		}
	}
}

// TestValuesRCKeys: only a chunk of a few keys has its values range
// coded; a breakdown's keep their varints (and their read speed).
func TestValuesRCKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, keys := range []int{1, rcMaxKeys, rcMaxKeys + 1, 50} {
		var ivs []analytics.Second
		for i := range 100 {
			s := analytics.Second{Time: sec(i), Samples: 1}
			for k := range keys {
				s.Rows = append(s.Rows, analytics.Row{Key: []string{string(rune('a' + k%26)), string(rune('a' + k/26))},
					Value: int64(math.Exp(10 + 2*r.Float64()))})
			}
			ivs = append(ivs, s)
		}
		_, alt := encodeBody(chunkV3, t0.Unix(), 1, ivs)
		if (alt != nil) != (keys <= rcMaxKeys) {
			t.Fatalf("%d keys: range coded values made: %v", keys, alt != nil)
		}
	}
}

// FuzzChunkV3 decodes the fuzzer's bytes as a chunk of format 3 (checksum
// made right), seeded with chunks holding range coded values and times
// as runs: an error or intervals, never a panic or a hang.
func FuzzChunkV3(f *testing.F) {
	c, err := newCodec()
	if err != nil {
		f.Fatal(err)
	}
	defer c.close()
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 7, 90} {
		var ivs []analytics.Second
		for i := range n {
			s := analytics.Second{Time: sec(i * (1 + i%3)), Samples: 1 + i%2}
			for k, col := range rcColumns(r, 1)[:4] {
				if len(col.rows) > 0 {
					row := col.rows[0]
					row.Key = []string{string(rune('a' + k))}
					s.Rows = append(s.Rows, row)
				}
			}
			rows, err := normalize(s.Rows)
			if err != nil {
				f.Fatal(err)
			}
			s.Rows = rows
			ivs = append(ivs, s)
		}
		f.Add(c.encodeChunk(t0.Unix(), 1, ivs))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 5 {
			return
		}
		raw[0] = chunkV3
		binary.LittleEndian.PutUint32(raw[1:], crc32.Checksum(raw[5:], castagnoli))
		_, _ = c.decodeChunk(t0.Unix(), 1, raw)
	})
}
