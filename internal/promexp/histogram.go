package promexp

import (
	"math"
	"math/bits"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// histogram is a distribution's series as a Prometheus histogram: classic
// buckets always, native (schema 0) buckets too when they are exact.
//
// A dataset's bucket is [a, b) of integers, which is (a-1, b-1]: a
// classic bucket with le = b-1 counts exactly the events below b. Each
// bucket that counted gives its upper bound b-1 and its lower neighbour's
// a-1, so that histogram_quantile interpolates within the dataset's own
// bucket. A native bucket of schema 0 is (2^(k-1), 2^k]: a dataset's
// bucket [a, b) falls in one when 2^(k-1) < a and b-1 <= 2^k; [0, 1) is
// the zero bucket. When every bucket of the series falls in one, the
// native buckets are exact and are sent; otherwise only the classic ones.
type histogram struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	h      *dto.Histogram
}

func newHistogram(desc *prometheus.Desc, s *series, values []string) prometheus.Metric {
	h := &dto.Histogram{SampleCount: proto.Uint64(uint64(s.count)), SampleSum: proto.Float64(math.NaN())}
	h.Bucket = classicBuckets(s.buckets)
	if threshold, zero, pos, ok := s.native(); ok {
		h.Schema = proto.Int32(0)
		h.ZeroThreshold = proto.Float64(threshold)
		h.ZeroCount = proto.Uint64(zero)
		h.PositiveSpan, h.PositiveDelta = spans(pos)
		if len(h.PositiveSpan) == 0 {
			// a native histogram with no bucket yet must say so
			h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(0)}}
		}
	}
	return &histogram{desc: desc, labels: prometheus.MakeLabelPairs(desc, values), h: h}
}

func (m *histogram) Desc() *prometheus.Desc { return m.desc }

func (m *histogram) Write(out *dto.Metric) error {
	out.Label = m.labels
	out.Histogram = m.h
	return nil
}

// classicBuckets are the cumulative classic buckets of a distribution's
// buckets, [min, max) -> count, max analytics.Unbounded for the open last
// one. A bucket may end at 0 (lquantize()'s [-1, 0)): it is a bucket like
// any other, le -1. The lower neighbour of a bucket starting at 0 (le -1,
// always empty for latencies and sizes) is left out.
func classicBuckets(buckets map[[2]int64]int64) []*dto.Bucket {
	les := map[int64]bool{}
	for b := range buckets {
		if b[1] != analytics.Unbounded {
			les[b[1]-1] = true
		}
		if b[0] != 0 && b[0] != math.MinInt64 {
			les[b[0]-1] = true
		}
	}
	bounds := make([]int64, 0, len(les))
	for le := range les {
		bounds = append(bounds, le)
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i] < bounds[j] })
	out := make([]*dto.Bucket, 0, len(bounds))
	for _, le := range bounds {
		var cum int64
		for b, n := range buckets {
			if b[1] != analytics.Unbounded && b[1]-1 <= le {
				cum += n
			}
		}
		out = append(out, &dto.Bucket{UpperBound: proto.Float64(float64(le)), CumulativeCount: proto.Uint64(uint64(cum))})
	}
	return out
}

// nativeBuckets maps a distribution's buckets onto schema 0: the zero
// bucket's threshold and count and the positive buckets' counts by index,
// or false when a bucket straddles a native bucket's bound. [0, 1) (0) is
// the zero bucket of threshold 0; [0, 2) (0 and 1, the first bucket of
// stats.ExportScale) that of threshold 1, which leaves index 0, (0.5, 1],
// inside it and empty.
func nativeBuckets(buckets map[[2]int64]int64) (float64, uint64, map[int]int64, bool) {
	var zero uint64
	threshold := 0.0
	pos := map[int]int64{}
	for b, n := range buckets {
		lo, hi := b[0], b[1]
		switch {
		case lo == 0 && hi == 1:
			zero += uint64(n)
		case lo == 0 && hi == 2:
			zero += uint64(n)
			threshold = 1
		case lo >= 1 && hi > lo:
			k := ceilLog2(lo)
			if hi-1 > int64(1)<<k {
				return 0, 0, nil, false
			}
			pos[k] += n
		default:
			return 0, 0, nil, false
		}
	}
	if _, ok := pos[0]; ok && threshold == 1 {
		return 0, 0, nil, false
	}
	return threshold, zero, pos, true
}

// ceilLog2 is the k with 2^(k-1) < v <= 2^k, for v >= 1.
func ceilLog2(v int64) int {
	return bits.Len64(uint64(v - 1))
}

// spans encodes native buckets by index as spans and deltas.
func spans(pos map[int]int64) ([]*dto.BucketSpan, []int64) {
	idx := make([]int, 0, len(pos))
	for i, n := range pos {
		if n != 0 {
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	var sp []*dto.BucketSpan
	var deltas []int64
	var prevCount int64
	for j, i := range idx {
		switch {
		case j == 0:
			sp = append(sp, &dto.BucketSpan{Offset: proto.Int32(int32(i)), Length: proto.Uint32(1)})
		case i == idx[j-1]+1:
			*sp[len(sp)-1].Length++
		default:
			sp = append(sp, &dto.BucketSpan{Offset: proto.Int32(int32(i - idx[j-1] - 1)), Length: proto.Uint32(1)})
		}
		deltas = append(deltas, pos[i]-prevCount)
		prevCount = pos[i]
	}
	return sp, deltas
}
