package analytics

import "sort"

// Percentile is the bucket that holds the q-quantile (0 < q <= 1) of a
// distribution's events, by the rule Prometheus's histogram_quantile
// follows: the rank is q times the number of events, and the bucket is
// the first (in order of value) whose events up to and including it
// reach the rank. ok is false when there are no events or q is out of
// range. Buckets need not be sorted.
func Percentile(buckets []Bucket, q float64) (b Bucket, ok bool) {
	if q <= 0 || q > 1 {
		return Bucket{}, false
	}
	sorted := append([]Bucket(nil), buckets...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Min < sorted[j].Min })
	var total int64
	for _, x := range sorted {
		total += x.Count
	}
	if total == 0 {
		return Bucket{}, false
	}
	rank := q * float64(total)
	var cum int64
	for _, x := range sorted {
		cum += x.Count
		if x.Count > 0 && float64(cum) >= rank {
			return x, true
		}
	}
	return sorted[len(sorted)-1], true
}
