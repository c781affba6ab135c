package main

import (
	"fmt"
	"net"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/promexp"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// exporter serves a session's aggregations as Prometheus metrics while
// it runs (--prometheus). The session is the consumer loop's alone: a
// scrape asks the loop for a snapshot and wakes it, and the loop answers
// between two polls (serve).
type exporter struct {
	sess *tracer.Session
	reqs chan chan []promexp.Agg
	done chan struct{}
	srv  *promexp.AggServer
}

// startExporter listens on addr and serves /metrics.
func startExporter(addr string, sess *tracer.Session) (*exporter, net.Addr, error) {
	e := &exporter{sess: sess, reqs: make(chan chan []promexp.Agg, 16), done: make(chan struct{})}
	srv, err := promexp.ServeAggs(addr, &promexp.Aggs{Snapshot: e.snapshot})
	if err != nil {
		return nil, nil, fmt.Errorf("--prometheus: %w", err)
	}
	e.srv = srv
	return e, srv.Addr, nil
}

// snapshot asks the consumer loop for the aggregations (a scrape's
// goroutine); nil once the session has ended.
func (e *exporter) snapshot() []promexp.Agg {
	reply := make(chan []promexp.Agg, 1)
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
func aggsOf(sess *tracer.Session) []promexp.Agg {
	var out []promexp.Agg
	for id := range sess.Aggregations() {
		a := sess.Snapshot(id)
		if a == nil || a.Func == value.Stddev {
			continue
		}
		pa := promexp.Agg{Name: a.Name, Func: a.Func.String(), Kind: kindOf(a.Func)}
		scale := value.BucketRange(a)
		for _, r := range a.Rows {
			row := promexp.AggRow{}
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
				for i, n := range r.Val.Buckets {
					if n != 0 {
						lo, hi := scale(i)
						row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(i), Min: lo, Max: hi, Count: n})
						row.Count += n
					}
				}
			}
			pa.Rows = append(pa.Rows, row)
		}
		out = append(out, pa)
	}
	return out
}

func kindOf(f value.AggFunc) analytics.Kind {
	switch f {
	case value.Count, value.Sum:
		return analytics.Counter
	case value.Quantize, value.Lquantize, value.Llquantize:
		return analytics.Distribution
	}
	return analytics.Gauge
}
