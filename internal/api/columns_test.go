package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

// columnsJSON is the compact answer (format=columns).
type columnsJSON struct {
	Granularity string   `json:"granularity"`
	Width       int64    `json:"width"`
	Breakdowns  int      `json:"breakdowns"`
	Sample      []*int64 `json:"sample"`
	Samples     []*int64 `json:"samples"`
	Value       []*int64 `json:"value"`
	Data        *[]struct {
		Key     string          `json:"key"`
		Keys    []string        `json:"keys"`
		Value   []*int64        `json:"value"`
		Buckets []bucketsColumn `json:"buckets"`
	} `json:"data"`
	Buckets []bucketsColumn `json:"buckets"`
}

type bucketsColumn struct {
	Min   int64    `json:"min"`
	Max   *int64   `json:"max"`
	Count []*int64 `json:"count"`
}

// bucketsAt is the default form's buckets of interval i, from columns.
func bucketsAt(cols []bucketsColumn, i int) []any {
	var out []any
	for _, c := range cols {
		if c.Count[i] == nil {
			continue
		}
		b := map[string]any{"min": c.Min, "count": *c.Count[i]}
		if c.Max != nil {
			b["max"] = *c.Max
		}
		out = append(out, b)
	}
	return out
}

// fromColumns rebuilds the default form's intervals from the compact one,
// ranking each interval's keys by value as the default form does.
func fromColumns(t *testing.T, c columnsJSON) []any {
	t.Helper()
	n := len(c.Sample)
	if len(c.Samples) != n || len(c.Value) != n {
		t.Fatalf("columns of %d, %d, %d entries", n, len(c.Samples), len(c.Value))
	}
	out := []any{}
	for i := 0; i < n; i++ {
		if c.Sample[i] == nil || c.Samples[i] == nil || c.Value[i] == nil {
			t.Fatalf("interval %d: a null in sample, samples or value", i)
		}
		data := map[string]any{"value": *c.Value[i]}
		if c.Data != nil {
			type kv struct {
				key string
				v   int64
				m   map[string]any
			}
			var ks []kv
			for _, k := range *c.Data {
				if len(k.Value) != n {
					t.Fatalf("key %s: %d entries, want %d", k.Key, len(k.Value), n)
				}
				if k.Value[i] == nil {
					continue
				}
				m := map[string]any{"key": k.Key, "value": *k.Value[i]}
				if k.Keys != nil {
					m["keys"] = k.Keys
				}
				if bs := bucketsAt(k.Buckets, i); bs != nil {
					m["buckets"] = bs
				}
				ks = append(ks, kv{k.Key, *k.Value[i], m})
			}
			slices.SortStableFunc(ks, func(a, b kv) int {
				if a.v != b.v {
					if a.v > b.v {
						return -1
					}
					return 1
				}
				return strings.Compare(a.key, b.key)
			})
			if c.Breakdowns > 0 || len(ks) > 0 {
				list := []any{}
				for _, k := range ks {
					list = append(list, k.m)
				}
				data["data"] = list
			}
		}
		if bs := bucketsAt(c.Buckets, i); bs != nil {
			data["buckets"] = bs
		}
		start := time.Unix(*c.Sample[i]*c.Width, 0).UTC().Format(api.ApplianceTime)
		out = append(out, map[string]any{"sample": *c.Sample[i], "startTime": start, "samples": *c.Samples[i], "data": data})
	}
	return out
}

// canon is v as JSON with sorted keys and numbers as JSON reads them.
func canon(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// sameNumbers reads a window in both forms and checks that the compact
// one rebuilds the default one exactly; it answers the compact one.
func sameNumbers(t *testing.T, do1 func(string) reply, path string) columnsJSON {
	t.Helper()
	def := do1(path)
	want(t, def, http.StatusOK)
	var d struct{ Data []any }
	if err := json.Unmarshal([]byte(def.body), &d); err != nil {
		t.Fatalf("%v: %s", err, def.body)
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	col := do1(path + sep + "format=columns")
	want(t, col, http.StatusOK)
	if strings.Contains(col.body, "\n ") || strings.Count(col.body, "\n") != 1 {
		t.Fatalf("compact answer is indented: %.200s", col.body)
	}
	var c struct{ Data columnsJSON }
	dec := json.NewDecoder(strings.NewReader(col.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%v: %s", err, col.body)
	}
	if got, wantJSON := canon(t, fromColumns(t, c.Data)), canon(t, d.Data); got != wantJSON {
		t.Fatalf("%s: columns give\n%s\nthe default form\n%s\ncolumns: %s", path, got, wantJSON, col.body)
	}
	return c.Data
}

func TestDataColumns(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	get := func(p string) reply { return do(t, srv, "GET", p, "") }
	for _, s := range []string{"syscall.ops", "syscall.ops[execname][name]", "io.latency[device]", "cpu.utilization[mode]"} {
		want(t, do(t, srv, "POST", ds, `{"statistic": "`+s+`"}`), http.StatusCreated)
	}
	// b makes a bucket from its JSON, as the agent's tiers read it back
	// (max open: the open last bucket, without "max").
	const open = -1
	b := func(min, max, n int64) analytics.Bucket {
		js := fmt.Sprintf(`{"min": %d, "max": %d, "count": %d}`, min, max, n)
		if max == open {
			js = fmt.Sprintf(`{"min": %d, "count": %d}`, min, n)
		}
		var bk analytics.Bucket
		if err := json.Unmarshal([]byte(js), &bk); err != nil {
			t.Fatal(err)
		}
		return bk
	}
	// Seconds -6..-1: -4 absent (not collected), -5 collected with nothing.
	f.Put("syscall.ops", analytics.PerSecond, sec(-6, row(3)), sec(-5), sec(-3, row(0)), sec(-2, row(9)), sec(-1, row(1)))
	f.Put("syscall.ops[execname][name]", analytics.PerSecond,
		sec(-6, row(3, "dd", "write"), row(4, "a,b", "read"), row(1, analytics.Other, analytics.Other)),
		sec(-5),
		sec(-3, row(0, "dd", "write")), // a key at zero is there, not absent
		sec(-2, row(7, "a,b", "read"), row(7, "dd", "write"), row(20, analytics.Other, analytics.Other)),
		sec(-1, row(2, "bash", "open")))
	f.Put("io.latency[device]", analytics.PerSecond,
		sec(-6, analytics.Row{Key: []string{"vda"}, Value: 3, Buckets: []analytics.Bucket{b(1000, 2000, 2), b(2000, 3000, 1)}},
			analytics.Row{Key: []string{"vdb"}, Value: 5, Buckets: []analytics.Bucket{b(1000, 2000, 4), b(1<<40, open, 1)}}),
		sec(-5),
		sec(-2, analytics.Row{Key: []string{"vdb"}, Value: 1, Buckets: []analytics.Bucket{b(0, 1, 1)}},
			analytics.Row{Key: []string{analytics.Other}, Value: 8, Buckets: []analytics.Bucket{b(-10, 0, 2), b(2000, 3000, 6)}}))
	// A gauge whose total is given beside its keys (they do not add up).
	f.Put("cpu.utilization[mode]", analytics.PerSecond,
		sec(-2, row(50), row(30, "user"), row(40, "kernel")), sec(-1, row(10, "idle")))
	start := "?start=20261125T09:59:54&seconds=6"
	for _, name := range []string{"syscall.ops", "syscall.ops%5Bexecname%5D%5Bname%5D", "io.latency%5Bdevice%5D", "cpu.utilization%5Bmode%5D"} {
		c := sameNumbers(t, get, ds+"/"+name+"/data"+start)
		if c.Granularity != "second" || c.Width != 1 {
			t.Fatalf("%s: granularity %s width %d", name, c.Granularity, c.Width)
		}
	}
	// Absent seconds stay absent; a key not in a second is null, at zero 0.
	c := sameNumbers(t, get, ds+"/syscall.ops%5Bexecname%5D%5Bname%5D/data"+start)
	if len(c.Sample) != 5 || *c.Sample[2] != apitest.Epoch.Unix()-3 {
		t.Fatalf("samples %v", c.Sample)
	}
	for _, k := range *c.Data {
		if k.Key == "dd,write" && (k.Value[1] != nil || k.Value[2] == nil || *k.Value[2] != 0) {
			t.Fatalf("dd,write: %v", k.Value)
		}
	}
	if (*c.Data)[0].Key != analytics.Other+","+analytics.Other {
		t.Fatalf("keys not ranked by their sum: first %s", (*c.Data)[0].Key)
	}
	// The minute and hour tiers.
	m := apitest.Epoch.Add(-3 * time.Minute)
	f.Put("io.latency[device]", analytics.PerMinute,
		analytics.Second{Time: m, Samples: 60, Rows: []analytics.Row{{Key: []string{"vda"}, Value: 60, Buckets: []analytics.Bucket{b(1000, 2000, 60)}}}},
		analytics.Second{Time: m.Add(2 * time.Minute), Samples: 17, Rows: []analytics.Row{{Key: []string{"vdb"}, Value: 9, Buckets: []analytics.Bucket{b(4000, 8000, 9)}}}})
	h := apitest.Epoch.Add(-3 * time.Hour)
	f.Put("cpu.utilization[mode]", analytics.PerHour,
		analytics.Second{Time: h, Samples: 3600, Rows: []analytics.Row{row(12, "user"), row(5, "kernel")}},
		analytics.Second{Time: h.Add(time.Hour), Samples: 1800, Rows: []analytics.Row{row(7, "user")}})
	c = sameNumbers(t, get, ds+"/io.latency%5Bdevice%5D/data?granularity=minute&start=20261125T09:57:00&seconds=180")
	if c.Width != 60 || len(c.Sample) != 2 || *c.Samples[1] != 17 {
		t.Fatalf("minutes: %+v", c)
	}
	c = sameNumbers(t, get, ds+"/cpu.utilization%5Bmode%5D/data?granularity=hour&start=20261125T07:00:00&seconds=10800")
	if c.Width != 3600 || len(c.Sample) != 2 {
		t.Fatalf("hours: %+v", c)
	}
	// The last intervals (no start), and a window without data.
	sameNumbers(t, get, ds+"/syscall.ops/data?seconds=4")
	r := get(ds + "/syscall.ops/data?start=20261125T09:00:00&seconds=5&format=columns")
	want(t, r, http.StatusOK)
	if strings.TrimSpace(r.body) != `{"data":{"granularity":"second","width":1,"breakdowns":0,"sample":[],"samples":[],"value":[]}}` {
		t.Fatalf("empty window: %s", r.body)
	}
	// One interval asked: still columns (the default form gives one object).
	r = get(ds + "/syscall.ops/data?start=20261125T09:59:59&format=columns")
	if !strings.Contains(r.body, `"sample":[1795600799],"samples":[1],"value":[1]`) {
		t.Fatalf("one interval: %s", r.body)
	}
	wantFault(t, get(ds+"/syscall.ops/data?format=rows"), http.StatusBadRequest, "ERR_INVALID_ARG", "bad format")
}
