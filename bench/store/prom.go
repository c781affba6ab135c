package main

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/tsdb/chunkenc"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Prometheus's TSDB, run here on the same recorded series: each key of a
// dataset is a series (a distribution's key a histogram), one sample a
// second (timestamps exactly 1,000 ms apart: a real scrape's jitter would
// cost Prometheus more), appended to chunks of its own encoders
// (github.com/prometheus/prometheus/tsdb/chunkenc), cut as its head cuts
// them (tsdb/head_append.go: float chunks of ~120 samples in a 2-hour
// range, histogram chunks of ~1 KiB and at least 10 samples), and counted
// as a persistent block stores a chunk: its bytes, the encoding byte, the
// uvarint length and a CRC-32. The index (labels, postings, each chunk's
// reference and times) is not counted: the store's figures count its keys.
//
// What Prometheus stores of sonded's exposition (internal/promexp) is
// cumulative: a counter's running total, a histogram's buckets counting
// since the start. Both are measured:
//
//   - counters: XOR chunks of the running total (what a scrape stores),
//     and of the per-second values as a gauge;
//   - distributions: integer native histograms with custom buckets
//     (schema -53, the dataset's own bucket bounds, each a bucket of its
//     own), cumulative; and the classic exposition sonded serves, one XOR
//     series per le bound that has counted (cumulative, as exposed) and
//     _count. _sum is left out (sonded exposes it as NaN; the store keeps
//     no sum), so every encoding holds the same information.
type promSize struct {
	total, gauge     int64 // counters: XOR of the running total, of the per-second values
	native, classic  int64 // distributions
	nativeGauge      int64 // distributions: per-second native histograms (gauge histograms)
	samples, buckets int64
}

const (
	promChunkRange      = 2 * 3600 * 1000 // ms, the head's default block range
	promSamplesPerChunk = 120
)

// chunkDiskBytes is a chunk's bytes in a block's chunk file: uvarint
// length, encoding byte, data, CRC-32.
func chunkDiskBytes(c chunkenc.Chunk) int64 {
	n := len(c.Bytes())
	return int64(uvarintLen(uint64(n)) + 1 + n + 4)
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

// computeChunkEndTime is tsdb's: the end of a chunk that would make the
// rest of the chunk range equally sized chunks.
func computeChunkEndTime(start, cur, maxT int64, ratioToFull float64) int64 {
	n := float64(maxT-start) / (float64(cur-start+1) * ratioToFull)
	if n <= 1 {
		return maxT
	}
	return int64(float64(start) + float64(maxT-start)/math.Floor(n))
}

func rangeForTimestamp(t, width int64) int64 { return (t/width)*width + width }

// xorSeries appends float samples to XOR chunks, cut as the head cuts
// them (memSeries.appendPreprocessor).
type xorSeries struct {
	c            chunkenc.Chunk
	app          chunkenc.Appender
	minT, maxT   int64
	nextAt       int64
	closedBytes  int64
	chunksClosed int
}

func (s *xorSeries) add(t int64, v float64) error {
	cut := s.c == nil
	if !cut {
		n := s.c.NumSamples()
		if len(s.c.Bytes()) > chunkenc.MaxBytesPerXORChunkBeforeAppend {
			cut = true
		} else {
			if n == promSamplesPerChunk/4 {
				s.nextAt = computeChunkEndTime(s.minT, s.maxT, s.nextAt, 4)
			}
			cut = t >= s.nextAt || n >= promSamplesPerChunk*2
		}
	}
	if cut {
		if s.c != nil {
			s.closedBytes += chunkDiskBytes(s.c)
			s.chunksClosed++
		}
		s.c = chunkenc.NewXORChunk()
		app, err := s.c.Appender()
		if err != nil {
			return err
		}
		s.app, s.minT, s.nextAt = app, t, rangeForTimestamp(t, promChunkRange)
	}
	s.app.Append(0, t, v)
	s.maxT = t
	return nil
}

func (s *xorSeries) bytes() int64 {
	if s.c == nil {
		return s.closedBytes
	}
	return s.closedBytes + chunkDiskBytes(s.c)
}

// histSeries appends integer histograms to histogram chunks, cut as the
// head cuts them (memSeries.histogramsAppendPreprocessor).
type histSeries struct {
	c           chunkenc.Chunk
	app         chunkenc.Appender
	minT, maxT  int64
	nextAt      int64
	computed    bool
	closedBytes int64
	samples     int // in closed chunks
	appended    int
	last        *histogram.Histogram
}

func (s *histSeries) add(t int64, h *histogram.Histogram) error {
	cut := s.c == nil
	if !cut {
		n, nb := s.c.NumSamples(), len(s.c.Bytes())
		next := s.nextAt
		if s.computed {
			next = rangeForTimestamp(s.minT, promChunkRange)
		}
		if !s.computed && nb >= chunkenc.TargetBytesPerHistogramChunk/4 {
			s.nextAt = computeChunkEndTime(s.minT, s.maxT, s.nextAt, float64(chunkenc.TargetBytesPerHistogramChunk)/float64(nb))
			s.computed = true
		}
		cut = (t >= s.nextAt || nb >= 2*chunkenc.TargetBytesPerHistogramChunk) &&
			(n >= chunkenc.MinSamplesPerHistogramChunk || t >= next)
	}
	if cut {
		if s.c != nil {
			s.closedBytes += chunkDiskBytes(s.c)
			s.samples += s.c.NumSamples()
		}
		s.c = chunkenc.NewHistogramChunk()
		app, err := s.c.Appender()
		if err != nil {
			return err
		}
		s.app, s.minT, s.nextAt, s.computed = app, t, rangeForTimestamp(t, promChunkRange), false
	}
	if err := h.Validate(); err != nil {
		return err
	}
	nc, recoded, app, err := s.app.AppendHistogram(nil, 0, t, h, false)
	if err != nil {
		return err
	}
	if nc != nil && !recoded {
		// A counter reset or a new layout: the appender cut a chunk.
		s.closedBytes += chunkDiskBytes(s.c)
		s.samples += s.c.NumSamples()
		s.c, s.minT, s.nextAt, s.computed = nc, t, rangeForTimestamp(t, promChunkRange), false
	} else if nc != nil {
		s.c = nc
	}
	s.app = app
	s.maxT = t
	s.appended++
	s.last = h
	return nil
}

// check says whether the chunks hold every histogram appended, and the
// last one as it was appended.
func (s *histSeries) check() error {
	if s.c == nil {
		return nil
	}
	if n := s.samples + s.c.NumSamples(); n != s.appended {
		return fmt.Errorf("histogram chunks hold %d samples, %d appended", n, s.appended)
	}
	it := s.c.Iterator(nil)
	var h *histogram.Histogram
	for it.Next() == chunkenc.ValHistogram {
		_, h = it.AtHistogram(nil)
	}
	if err := it.Err(); err != nil {
		return err
	}
	if h == nil || h.Count != s.last.Count || !maps.Equal(bucketCounts(h), bucketCounts(s.last)) {
		return fmt.Errorf("the last histogram read back differs: %v, appended %v", h, s.last)
	}
	return nil
}

// bucketCounts are a histogram's absolute counts by bucket index.
func bucketCounts(h *histogram.Histogram) map[int]int64 {
	out := map[int]int64{}
	i, c := 0, int64(0)
	j := 0
	for _, sp := range h.PositiveSpans {
		i += int(sp.Offset)
		for range sp.Length {
			c += h.PositiveBuckets[j]
			if c != 0 {
				out[i] = c
			}
			i++
			j++
		}
	}
	return out
}

func (s *histSeries) bytes() int64 {
	if s.c == nil {
		return s.closedBytes
	}
	return s.closedBytes + chunkDiskBytes(s.c)
}

// promEncode encodes a dataset's seconds with Prometheus's encoders.
func promEncode(secs []analytics.Second) (promSize, error) {
	var out promSize
	// The custom bucket bounds: every bound any key's bucket had (le =
	// max-1; the open last bucket is +Inf).
	var bounds []float64
	for _, s := range secs {
		for _, r := range s.Rows {
			for _, b := range r.Buckets {
				if !openBucket(b) {
					bounds = append(bounds, float64(int64(b.Max)-1))
				}
			}
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	index := func(b analytics.Bucket) int {
		if openBucket(b) {
			return len(bounds)
		}
		i, _ := slices.BinarySearch(bounds, float64(int64(b.Max)-1))
		return i
	}
	type keyState struct {
		total, gauge xorSeries
		native       histSeries
		nativeGauge  histSeries
		classic      map[int]*xorSeries // by bucket index (le); -1 _count
		cum          map[int]int64
		running      int64
		count        int64
	}
	keys := map[string]*keyState{}
	for _, s := range secs {
		t := s.Time.UnixMilli()
		for _, r := range s.Rows {
			id := strings.Join(r.Key, "\x00")
			k := keys[id]
			if k == nil {
				k = &keyState{classic: map[int]*xorSeries{}, cum: map[int]int64{}}
				keys[id] = k
			}
			out.samples++
			if len(r.Buckets) == 0 {
				k.running += r.Value
				if err := k.total.add(t, float64(k.running)); err != nil {
					return out, err
				}
				if err := k.gauge.add(t, float64(r.Value)); err != nil {
					return out, err
				}
				continue
			}
			out.buckets += int64(len(r.Buckets))
			now := map[int]int64{}
			for _, b := range r.Buckets {
				i := index(b)
				k.cum[i] += b.Count
				k.count += b.Count
				now[i] += b.Count
			}
			if err := k.native.add(t, nhcb(k.cum, k.count, bounds, histogram.NotCounterReset)); err != nil {
				return out, fmt.Errorf("native histogram: %w", err)
			}
			var n int64
			for _, c := range now {
				n += c
			}
			if err := k.nativeGauge.add(t, nhcb(now, n, bounds, histogram.GaugeType)); err != nil {
				return out, fmt.Errorf("native gauge histogram: %w", err)
			}
			// The classic exposition: cumulative over le, for every
			// bound that has counted, and _count.
			les := make([]int, 0, len(k.cum))
			for i := range k.cum {
				les = append(les, i)
			}
			slices.Sort(les)
			var cum int64
			for _, i := range les {
				cum += k.cum[i]
				x := k.classic[i]
				if x == nil {
					x = &xorSeries{}
					k.classic[i] = x
				}
				if err := x.add(t, float64(cum)); err != nil {
					return out, err
				}
			}
			x := k.classic[-1]
			if x == nil {
				x = &xorSeries{}
				k.classic[-1] = x
			}
			if err := x.add(t, float64(k.count)); err != nil {
				return out, err
			}
		}
	}
	for _, k := range keys {
		for _, h := range []*histSeries{&k.native, &k.nativeGauge} {
			if err := h.check(); err != nil {
				return out, err
			}
		}
		out.total += k.total.bytes()
		out.gauge += k.gauge.bytes()
		out.native += k.native.bytes()
		out.nativeGauge += k.nativeGauge.bytes()
		for _, x := range k.classic {
			out.classic += x.bytes()
		}
	}
	return out, nil
}

// openBucket says whether b is a scale's open last bucket: its Max is
// math.MaxInt64 (analytics.Unbounded), or 0 as the store wrote it before
// (a bucket ending at 0 that is not open starts below 0).
func openBucket(b analytics.Bucket) bool {
	m := int64(b.Max)
	return m == math.MaxInt64 || m == 0 && b.Min >= 0
}

// nhcb is an integer native histogram with custom buckets of the counts
// by bucket index.
func nhcb(counts map[int]int64, total int64, bounds []float64, hint histogram.CounterResetHint) *histogram.Histogram {
	idx := make([]int, 0, len(counts))
	for i, c := range counts {
		if c != 0 {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	h := &histogram.Histogram{Schema: histogram.CustomBucketsSchema, CustomValues: bounds,
		Count: uint64(total), CounterResetHint: hint}
	var prev int64
	for j, i := range idx {
		switch {
		case j == 0:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: int32(i), Length: 1})
		case i == idx[j-1]+1:
			h.PositiveSpans[len(h.PositiveSpans)-1].Length++
		default:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: int32(i - idx[j-1] - 1), Length: 1})
		}
		h.PositiveBuckets = append(h.PositiveBuckets, counts[i]-prev)
		prev = counts[i]
	}
	return h
}
