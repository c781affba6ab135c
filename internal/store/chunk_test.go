package store

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// edgeSeconds are intervals with the values codecs get wrong: extremes,
// negatives, explicit zero buckets, sparse and dense rows, gaps in time,
// Samples that vary.
func edgeSeconds() []analytics.Second {
	base := t0.Unix()
	at := func(off int64) time.Time { return time.Unix(base+off, 0).UTC() }
	dist := func(counts ...int64) []analytics.Bucket {
		var bs []analytics.Bucket
		for i, c := range counts {
			if c != -1 {
				bs = append(bs, bucket(int32(i*3%40), c))
			}
		}
		return bs
	}
	sorted := func(bs []analytics.Bucket) []analytics.Bucket {
		rows, _ := normalize([]analytics.Row{{Buckets: bs}})
		return rows[0].Buckets
	}
	row := func(key []string, v int64, bs []analytics.Bucket) analytics.Row {
		return analytics.Row{Key: key, Value: v + bucketSum(bs), Buckets: bs}
	}
	return []analytics.Second{
		{Time: at(0), Samples: 1, Rows: []analytics.Row{
			{Key: []string{"max"}, Value: math.MaxInt64},
			{Key: []string{"min"}, Value: math.MinInt64},
			{Key: []string{"neg"}, Value: -1},
		}},
		{Time: at(3), Samples: 60, Rows: []analytics.Row{
			row(nil, 0, sorted(dist(1, 2, 0, 255, 256, 1<<40, math.MaxInt64/4))),
			{Key: []string{"max"}, Value: 0},
		}},
		{Time: at(4), Samples: 7},
		{Time: at(100), Samples: 1, Rows: []analytics.Row{
			row(nil, 5, sorted(dist(-5, math.MinInt64/4, 7))),
			row([]string{"", ""}, 0, sorted(dist(1, -1, -1, -1, -1, -1, -1, 9))),
			row([]string{"a"}, -3, sorted(dist(3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3))),
		}},
		{Time: at(101), Samples: 1, Rows: []analytics.Row{
			row(nil, 0, sorted(dist(math.MaxInt64-1, 0))),
		}},
	}
}

func TestChunkEdges(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ivs := edgeSeconds()
	b := c.encodeChunk(t0.Unix(), 1, ivs)
	got, err := c.decodeChunk(t0.Unix(), 1, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ivs) {
		t.Fatalf("got  %+v\nwant %+v", got, ivs)
	}
}

// TestChunkDamage changes every byte of a chunk in turn, with the
// checksum made right so that the decoder parses it: it must return an
// error or intervals, never panic or hang.
func TestChunkDamage(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var ivs []analytics.Second
	for i := range 50 {
		s := latency(i)
		s.Rows = append(s.Rows, counters(i).Rows...)
		rows, err := normalize(s.Rows)
		if err != nil {
			t.Fatal(err)
		}
		s.Rows = rows
		ivs = append(ivs, s)
	}
	good := c.encodeChunk(t0.Unix(), 1, ivs)
	for i := 5; i < len(good); i++ {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := append([]byte(nil), good...)
			b[i] ^= x
			binary.LittleEndian.PutUint32(b[1:], crc32.Checksum(b[5:], castagnoli))
			_, _ = c.decodeChunk(t0.Unix(), 1, b)
		}
	}
	// Without the checksum made right, every change is caught.
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x10
		if _, err := c.decodeChunk(t0.Unix(), 1, b); err == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
}
