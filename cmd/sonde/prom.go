package main

import (
	"fmt"

	"github.com/sonde-trace/sonde/internal/aggprom"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// exporter serves a session's aggregations as Prometheus metrics while
// it runs (--prometheus). The session is the consumer loop's alone: a
// scrape asks the loop for a snapshot and wakes it, and the loop answers
// between two polls (serve).
type exporter struct {
	sess *tracer.Session
	reqs chan chan []aggprom.Agg
	done chan struct{}
	text aggprom.Exposition
	srv  *aggprom.Server
}

// startExporter listens on addr and serves /metrics; it returns the
// address listened on.
func startExporter(addr string, sess *tracer.Session) (*exporter, string, error) {
	e := &exporter{sess: sess, reqs: make(chan chan []aggprom.Agg, 16), done: make(chan struct{})}
	srv, err := aggprom.Listen(addr, "/metrics", aggprom.ContentType, func() []byte { return e.text.Text(e.snapshot()) })
	if err != nil {
		return nil, "", fmt.Errorf("--prometheus: %w", err)
	}
	e.srv = srv
	return e, srv.Addr, nil
}

// snapshot asks the consumer loop for the aggregations (a scrape's
// goroutine); nil once the session has ended.
func (e *exporter) snapshot() []aggprom.Agg {
	reply := make(chan []aggprom.Agg, 1)
	select {
	case e.reqs <- reply:
	case <-e.done:
		return nil
	}
	e.sess.Wake()
	select {
	case r := <-reply:
		return r
	case <-e.done:
		return nil
	}
}

// serve answers the scrapes waiting (the consumer loop, between polls).
func (e *exporter) serve() {
	for {
		select {
		case reply := <-e.reqs:
			reply <- aggsOf(e.sess)
		default:
			return
		}
	}
}

// close stops serving.
func (e *exporter) close() {
	close(e.done)
	e.srv.Close()
}

// aggsOf reads every aggregation of the session as the exporter shows
// it. stddev() is not exported (its value is not a sample Prometheus
// can add up or interpolate).
func aggsOf(sess *tracer.Session) []aggprom.Agg {
	var out []aggprom.Agg
	for id := range sess.Aggregations() {
		a := sess.Snapshot(id)
		if a == nil || a.Func == value.Stddev {
			continue
		}
		pa := aggprom.Agg{Name: a.Name, Func: a.Func.String(), Kind: kindOf(a.Func)}
		scale, last := value.BucketRange(a), value.AggBuckets(a.Func, a.Params)-1
		for _, r := range a.Rows {
			row := aggprom.Row{}
			for _, k := range r.Keys {
				row.Key = append(row.Key, format.KeyText(k))
			}
			switch a.Func {
			case value.Count:
				row.Value = float64(r.Val.Count)
			case value.Sum:
				row.Value = float64(r.Val.Sum)
			case value.Min:
				row.Value = float64(r.Val.Min)
			case value.Max:
				row.Value = float64(r.Val.Max)
			case value.Avg:
				if r.Val.Count == 0 {
					continue
				}
				row.Value = float64(r.Val.Sum) / float64(r.Val.Count)
			default:
				row.Buckets = buckets(r.Val.Buckets, scale, last)
			}
			pa.Rows = append(pa.Rows, row)
		}
		out = append(out, pa)
	}
	return out
}

// buckets are a quantization's buckets that counted. The last bucket of
// every quantization, last, is open: its upper bound (math.MaxInt64 from
// BucketRange) is none.
func buckets(counts []int64, scale func(int) (int64, int64), last int) []aggprom.Bucket {
	var out []aggprom.Bucket
	for i, n := range counts {
		if n == 0 {
			continue
		}
		lo, hi := scale(i)
		out = append(out, aggprom.Bucket{Min: lo, Max: hi, Open: i == last, Count: n})
	}
	return out
}

func kindOf(f value.AggFunc) aggprom.Kind {
	switch f {
	case value.Count, value.Sum:
		return aggprom.Counter
	case value.Quantize, value.Lquantize, value.Llquantize:
		return aggprom.Histogram
	}
	return aggprom.Gauge
}
