package test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dashboardQuery is a query of a dashboard in grafana/dashboards.
type dashboardQuery struct {
	panel, expr string
	// labelValues: a variable's label_values(METRIC, LABEL)
	metric, label string
}

var labelValuesRE = regexp.MustCompile(`^label_values\(\s*([^,]+?)\s*,\s*(\w+)\s*\)$`)

// dashboardQueries reads every panel target and every query variable of
// the repository's dashboards, with Grafana's variables replaced as
// Grafana would for instance (the host label) at a 1 s interval.
func dashboardQueries(t *testing.T, instance string) []dashboardQuery {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(sonde)), "grafana", "dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in grafana/dashboards: %v", err)
	}
	repl := strings.NewReplacer("$instance", regexp.QuoteMeta(instance), "${instance}", regexp.QuoteMeta(instance),
		"$__rate_interval", "1m", "$__interval", "1s", "$__range", "5m")
	var out []dashboardQuery
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Panels []struct {
				Title   string
				Targets []struct{ Expr string }
			}
			Templating struct {
				List []struct {
					Name, Type string
					Query      json.RawMessage
				}
			}
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				out = append(out, dashboardQuery{panel: filepath.Base(f) + ": " + p.Title, expr: repl.Replace(tg.Expr)})
			}
		}
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			var q struct{ Query string }
			if err := json.Unmarshal(v.Query, &q); err != nil {
				t.Fatalf("%s: variable %s: %v", f, v.Name, err)
			}
			m := labelValuesRE.FindStringSubmatch(q.Query)
			if m == nil {
				t.Fatalf("%s: variable %s: %q is not label_values(METRIC, LABEL)", f, v.Name, q.Query)
			}
			out = append(out, dashboardQuery{panel: filepath.Base(f) + ": $" + v.Name, metric: m[1], label: m[2]})
		}
	}
	return out
}

// labelValues asks the label values API what Grafana asks for a
// label_values() variable.
func (p *prometheus) labelValues(label, match string, start, end time.Time) []string {
	p.t.Helper()
	v := url.Values{"match[]": {match}, "start": {start.Format(time.RFC3339)}, "end": {end.Format(time.RFC3339)}}
	resp, err := http.Get(p.base + "/api/v1/label/" + label + "/values?" + v.Encode())
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   []string
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		p.t.Fatalf("label values of %s for %s: %v %v", label, match, err, r)
	}
	return r.Data
}

// Every query of the dashboards in the repository is answered by
// sonded's query API, as Grafana asks it (a range query every second over
// the last minute); those whose data the test makes (system calls by
// process, the latency heat map and its quantiles, the CPU) have series.
func TestGrafanaDashboards(t *testing.T) {
	host := "gd" + strings.ReplaceAll(t.Name(), "/", "")
	s := startSonded(t, t.TempDir(), "--host-label", host)
	name, dd := uniqueDD(t, "gdd")
	s.createExported("syscall.ops[execname]")
	s.createExported("syscall.latency[execname=" + name + "]")
	sq := &prometheus{t: t, base: "http://" + s.addr}
	runDD(t, dd, 5000)
	time.Sleep(2 * time.Second)
	end := time.Now()
	start := end.Add(-time.Minute)
	must := regexp.MustCompile(`CPU|System calls per second|System call latency`)
	for _, q := range dashboardQueries(t, host) {
		if q.metric != "" {
			vals := sq.labelValues(q.label, q.metric, start, end)
			if len(vals) != 1 || vals[0] != host {
				t.Errorf("%s: label_values(%s, %s) = %v, want [%s]", q.panel, q.metric, q.label, vals, host)
			}
			continue
		}
		r := sq.queryRange(q.expr, start, end, time.Second)
		t.Logf("%s: %d series: %s", q.panel, len(r), q.expr)
		if must.MatchString(q.panel) && len(r) == 0 {
			t.Errorf("%s: no series for %s", q.panel, q.expr)
		}
	}
}
