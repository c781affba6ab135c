package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

// sec is a second of the fake's data, at offset seconds before the
// fake's clock.
func sec(offset int, rows ...analytics.Row) analytics.Second {
	return analytics.Second{Time: apitest.Epoch.Add(time.Duration(offset) * time.Second), Samples: 1, Rows: rows}
}

func row(v int64, key ...string) analytics.Row { return analytics.Row{Key: key, Value: v} }

// dataOf decodes a data answer's list.
func dataOf(t *testing.T, r reply) []map[string]any {
	t.Helper()
	want(t, r, http.StatusOK)
	var m struct{ Data []map[string]any }
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	return m.Data
}

func TestDataSeconds(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	name := "syscall.ops[execname]"
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops[execname]"}`), http.StatusCreated)
	f.Put(name, analytics.PerSecond,
		sec(-3, row(5, "dd"), row(7, "bash")),
		sec(-2), // nothing happened: no key, not zeros
		sec(-1, row(12345, "dd")))
	path := ds + "/syscall.ops%5Bexecname%5D/data"
	// The same three seconds, by the appliance's time, ISO 8601, and
	// sample index.
	for _, start := range []string{"20261125T09:59:57", "2026-11-25T09:59:57Z", "2026-11-25T10:59:57%2B01:00", "1795600797"} {
		got := dataOf(t, do(t, srv, "GET", path+"?start="+start+"&seconds=3", ""))
		if len(got) != 3 {
			t.Fatalf("start=%s: %d seconds: %v", start, len(got), got)
		}
		b, _ := json.Marshal(got)
		wantJSON := `[{"data":{"data":[{"key":"bash","value":7},{"key":"dd","value":5}],"value":12},"sample":1795600797,"samples":1,"startTime":"20261125T09:59:57"},` +
			`{"data":{"data":[],"value":0},"sample":1795600798,"samples":1,"startTime":"20261125T09:59:58"},` +
			`{"data":{"data":[{"key":"dd","value":12345}],"value":12345},"sample":1795600799,"samples":1,"startTime":"20261125T09:59:59"}]`
		if string(b) != wantJSON {
			t.Fatalf("start=%s:\n%s\nwant\n%s", start, b, wantJSON)
		}
	}
	// Without start, the last seconds, not waited for.
	got := dataOf(t, do(t, srv, "GET", path+"?seconds=2", ""))
	if len(got) != 2 || got[1]["startTime"] != "20261125T09:59:59" {
		t.Fatalf("last two: %v", got)
	}
	wantCalls := []string{
		"Data(syscall.ops[execname], 2026-11-25T09:59:57Z, 3, second, true)",
		"Data(syscall.ops[execname], 0001-01-01T00:00:00Z, 2, second, false)",
	}
	if c := f.Calls[len(f.Calls)-2:]; !slices.Equal(c[:1], wantCalls[:1]) || c[1] != wantCalls[1] {
		t.Fatalf("calls %q", f.Calls)
	}
	// seconds=1 (or absent): one object, not a list.
	for _, q := range []string{"?start=20261125T09:59:59&seconds=1", "?start=20261125T09:59:59"} {
		var one struct{ Data map[string]any }
		r := do(t, srv, "GET", path+q, "")
		want(t, r, http.StatusOK)
		if err := json.Unmarshal([]byte(r.body), &one); err != nil {
			t.Fatalf("%s: not one object: %v\n%s", q, err, r.body)
		}
		if one.Data["sample"] != float64(1795600799) || one.Data["data"].(map[string]any)["value"] != float64(12345) {
			t.Fatalf("%s: %v", q, one.Data)
		}
	}
	// A second without data is null.
	r := do(t, srv, "GET", path+"?start=20261125T09:00:00", "")
	want(t, r, http.StatusOK)
	if strings.Join(strings.Fields(r.body), "") != `{"data":null}` {
		t.Fatalf("no data: %s", r.body)
	}
}

func TestDataWithoutBreakdownsAndMultipleBreakdowns(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops[execname][name]"}`), http.StatusCreated)
	f.Put("syscall.ops", analytics.PerSecond, sec(-1, row(42)))
	f.Put("syscall.ops[execname][name]", analytics.PerSecond, sec(-1, row(3, "dd", "write"), row(4, "a,b", "read")))
	got := dataOf(t, do(t, srv, "GET", ds+"/syscall.ops/data?start=20261125T09:59:58&seconds=2", ""))
	if b, _ := json.Marshal(got[len(got)-1]["data"]); string(b) != `{"value":42}` {
		t.Fatalf("total: %s", b)
	}
	got = dataOf(t, do(t, srv, "GET", ds+"/syscall.ops%5Bexecname%5D%5Bname%5D/data?start=20261125T09:59:58&seconds=2", ""))
	b, _ := json.Marshal(got[len(got)-1]["data"])
	if string(b) != `{"data":[{"key":"a,b,read","keys":["a,b","read"],"value":4},{"key":"dd,write","keys":["dd","write"],"value":3}],"value":7}` {
		t.Fatalf("two breakdowns: %s", b)
	}
}

func TestDataDistribution(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "io.latency[device]"}`), http.StatusCreated)
	f.Put("io.latency[device]", analytics.PerSecond, sec(-1,
		analytics.Row{Key: []string{"vda"}, Value: 3, Buckets: []analytics.Bucket{{Index: 10, Min: 1000, Max: 2000, Count: 2}, {Index: 11, Min: 2000, Max: 3000, Count: 1}}},
		analytics.Row{Key: []string{"vdb"}, Value: 5, Buckets: []analytics.Bucket{{Index: 10, Min: 1000, Max: 2000, Count: 4}, {Index: 90, Min: 1 << 40, Max: analytics.Unbounded, Count: 1}}}))
	got := dataOf(t, do(t, srv, "GET", ds+"/io.latency%5Bdevice%5D/data?start=20261125T09:59:58&seconds=2", ""))
	b, _ := json.Marshal(got[len(got)-1]["data"])
	wantJSON := `{"buckets":[{"count":6,"max":2000,"min":1000},{"count":1,"max":3000,"min":2000},{"count":1,"min":1099511627776}],` +
		`"data":[{"buckets":[{"count":4,"max":2000,"min":1000},{"count":1,"min":1099511627776}],"key":"vdb","value":5},` +
		`{"buckets":[{"count":2,"max":2000,"min":1000},{"count":1,"max":3000,"min":2000}],"key":"vda","value":3}],"value":8}`
	if string(b) != wantJSON {
		t.Fatalf("distribution:\n%s\nwant\n%s", b, wantJSON)
	}
}

// Two keys whose scales differ (a dataset exported after creation) have
// buckets of one lower bound and two upper bounds: the total keeps them
// apart, ordered by range, and adds only equal ranges.
func TestDataDistributionScales(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "io.latency[device]"}`), http.StatusCreated)
	f.Put("io.latency[device]", analytics.PerSecond, sec(-1,
		analytics.Row{Key: []string{"vda"}, Value: 3, Buckets: []analytics.Bucket{{Min: 1000, Max: 2000, Count: 2}, {Min: 2000, Max: analytics.Unbounded, Count: 1}}},
		analytics.Row{Key: []string{"vdb"}, Value: 9, Buckets: []analytics.Bucket{{Min: 1000, Max: 1500, Count: 4}, {Min: 1500, Max: 2000, Count: 3}, {Min: 2000, Max: 2500, Count: 2}}},
		analytics.Row{Key: []string{"vdc"}, Value: 1, Buckets: []analytics.Bucket{{Min: 2000, Max: analytics.Unbounded, Count: 1}}}))
	got := dataOf(t, do(t, srv, "GET", ds+"/io.latency%5Bdevice%5D/data?start=20261125T09:59:58&seconds=2", ""))
	b, _ := json.Marshal(got[len(got)-1]["data"].(map[string]any)["buckets"])
	wantJSON := `[{"count":4,"max":1500,"min":1000},{"count":2,"max":2000,"min":1000},{"count":3,"max":2000,"min":1500},` +
		`{"count":2,"max":2500,"min":2000},{"count":2,"min":2000}]`
	if string(b) != wantJSON {
		t.Fatalf("total of two scales:\n%s\nwant\n%s", b, wantJSON)
	}
}

func TestDataGranularity(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	m := apitest.Epoch.Add(-2 * time.Minute)
	f.Put("syscall.ops", analytics.PerMinute,
		analytics.Second{Time: m, Samples: 60, Rows: []analytics.Row{row(600)}},
		analytics.Second{Time: m.Add(time.Minute), Samples: 42, Rows: []analytics.Row{row(420)}})
	// seconds is a span of time: 120 seconds are two minutes; a start
	// inside a minute starts at the minute.
	got := dataOf(t, do(t, srv, "GET", ds+"/syscall.ops/data?granularity=minute&start=20261125T09:58:30&seconds=120", ""))
	if len(got) != 2 || got[0]["sample"] != float64(m.Unix()/60) || got[0]["startTime"] != "20261125T09:58:00" ||
		got[1]["samples"] != float64(42) || got[1]["data"].(map[string]any)["value"] != float64(420) {
		t.Fatalf("minutes: %v", got)
	}
	if c := f.Calls[len(f.Calls)-1]; c != "Data(syscall.ops, 2026-11-25T09:58:00Z, 2, minute, true)" {
		t.Fatalf("call %s", c)
	}
	want(t, do(t, srv, "GET", ds+"/syscall.ops/data?granularity=hour&seconds=7200", ""), http.StatusOK)
	if c := f.Calls[len(f.Calls)-1]; c != "Data(syscall.ops, 0001-01-01T00:00:00Z, 2, hour, false)" {
		t.Fatalf("call %s", c)
	}
}

func TestDataBadQueries(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, &api.Options{MaxIntervals: 3600})
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	calls := len(f.Calls)
	path := ds + "/syscall.ops/data"
	for _, c := range []struct{ q, text string }{
		{"?granularity=day", "bad granularity"},
		{"?seconds=0", "bad seconds"},
		{"?seconds=-5", "bad seconds"},
		{"?seconds=ten", "bad seconds"},
		{"?seconds=99999999999999999999", "bad seconds"},
		{"?seconds=3601", "at most 3600"},
		{"?start=yesterday", "bad time"},
		{"?start=2026-13-01T00:00:00Z", "bad time"},
		{"?start=20261125T10:00:01", "in the future"},
		{"?start=2026-11-25T11:00:00%2B00:30", "in the future"},
		{"?start=99999999999", "bad sample index"},
	} {
		wantFault(t, do(t, srv, "GET", path+c.q, ""), http.StatusBadRequest, "ERR_INVALID_ARG", c.text)
	}
	if len(f.Calls) != calls {
		t.Fatalf("bad queries reached the backend: %v", f.Calls[calls:])
	}
	wantFault(t, do(t, srv, "GET", ds+"/io.ops/data", ""), http.StatusNotFound, "ERR_NOT_FOUND", "io.ops")
}

// start=now waits for the live second: the answer comes when the
// backend completes it, and holds it.
func TestDataStartNowWaits(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	done := make(chan reply, 1)
	go func() {
		done <- do(t, srv, "GET", ds+"/syscall.ops/data?start=now&seconds=2", "")
	}()
	if n := <-f.Waiting; n != "syscall.ops" {
		t.Fatalf("waiting for %s", n)
	}
	select {
	case r := <-done:
		t.Fatalf("answered before the seconds completed: %s", r.body)
	default:
	}
	f.Complete("syscall.ops", sec(0, row(11)))
	f.Complete("syscall.ops", sec(1, row(22)))
	got := dataOf(t, <-done)
	if len(got) != 2 || got[0]["startTime"] != "20261125T10:00:00" || got[1]["data"].(map[string]any)["value"] != float64(22) {
		t.Fatalf("live: %v", got)
	}
	if c := f.Calls[1]; c != "Data(syscall.ops, 2026-11-25T10:00:00Z, 2, second, true)" {
		t.Fatalf("call %s", c)
	}
}

func TestPrune(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "DELETE", ds+"/data?granularity=second&endtime=20261124T10:00:00", ""), http.StatusNoContent)
	want(t, do(t, srv, "DELETE", ds+"/data?granularity=hour&before=2026-01-01T00:00:00Z", ""), http.StatusNoContent)
	wantFault(t, do(t, srv, "DELETE", ds+"/data?endtime=20261124T10:00:00", ""), http.StatusBadRequest, "ERR_MISSING_ARG", "granularity")
	wantFault(t, do(t, srv, "DELETE", ds+"/data?granularity=second", ""), http.StatusBadRequest, "ERR_MISSING_ARG", "endtime")
	wantFault(t, do(t, srv, "DELETE", ds+"/data?granularity=week&endtime=20261124T10:00:00", ""), http.StatusBadRequest, "ERR_INVALID_ARG", "granularity")
	wantFault(t, do(t, srv, "DELETE", ds+"/data?granularity=second&endtime=soon", ""), http.StatusBadRequest, "ERR_INVALID_ARG", "bad time")
	wantFault(t, do(t, srv, "DELETE", ds+"/syscall.ops/data?granularity=second&endtime=20261124T10:00:00", ""),
		http.StatusNotImplemented, "ERR_NOT_IMPLEMENTED", "prunes all datasets at once")
	wantCalls := []string{"Prune(second, 2026-11-24T10:00:00Z)", "Prune(hour, 2026-01-01T00:00:00Z)"}
	if !slices.Equal(f.Calls, wantCalls) {
		t.Fatalf("calls %q", f.Calls)
	}
	// A backend that prunes one dataset gets the appliance's route.
	p := &pruner{Fake: apitest.New()}
	srv = server(t, p.Fake, true, nil)
	srv.Config.Handler = api.New(p, &api.Options{Now: p.Now})
	want(t, do(t, srv, "DELETE", ds+"/syscall.ops%5Bname%5D/data?granularity=minute&endtime=20261124T10:00:00", ""), http.StatusNoContent)
	if p.pruned != "syscall.ops[name] minute 2026-11-24T10:00:00Z" {
		t.Fatalf("pruned %q", p.pruned)
	}
}

type pruner struct {
	*apitest.Fake
	pruned string
}

func (p *pruner) PruneDataset(name string, g analytics.Granularity, before time.Time) error {
	p.pruned = name + " " + string(g) + " " + before.Format(time.RFC3339)
	return nil
}

func TestParseTime(t *testing.T) {
	want := time.Date(2013, 5, 31, 1, 13, 58, 0, time.UTC)
	for _, s := range []string{"20130531T01:13:58", "20130531T01:13:58Z", "20130531T011358Z", "20130531T011358",
		"2013-05-31T01:13:58Z", "2013-05-31T03:13:58+02:00", "2013-05-31T01:13:58", "2013-05-31 01:13:58", "2013-05-31T01:13:58.000Z"} {
		got, err := api.ParseTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "now", "2013-05-31", "20130531", "31/05/2013 01:13:58", "20130531T25:13:58"} {
		if _, err := api.ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) did not fail", s)
		}
	}
}
