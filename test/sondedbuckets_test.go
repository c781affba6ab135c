package test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A bucket that ends at 0 is a bucket like any other: lquantize()'s
// [-1, 0) and its underflow [MinInt64, 0) when it starts at 0. They were
// taken for the open last bucket (whose end was written as 0): the API
// gave them no "max", and /metrics counted their events only in +Inf.
// User statistics quantize what they like, so both occur.
func TestSondedBucketsEndingAtZero(t *testing.T) {
	s := startSonded(t, t.TempDir())
	name, dd := uniqueDD(t, "zb")
	stats := []struct {
		stat, source string
		min, max     int64
	}{
		{"zb.neg" + name, `syscall::write:entry /execname == "` + name + `"/ { @ = lquantize(-1, -4, 4); }`, -1, 0},
		{"zb.under" + name, `syscall::write:entry /execname == "` + name + `"/ { @ = lquantize(-5, 0, 10); }`, math.MinInt64, 0},
		{"zb.top" + name, `syscall::write:entry /execname == "` + name + `"/ { @ = lquantize(50, 0, 10); }`, 10, math.MaxInt64},
	}
	for _, st := range stats {
		if code, body := s.call("POST", "/statistics", map[string]string{"name": st.stat, "source": st.source}, nil); code != 201 {
			t.Fatalf("statistic %s: %d %s", st.stat, code, body)
		}
		s.createExported(st.stat)
	}
	// The exporter counts from the second after the first scrape that
	// finds the agent sampling.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(scrapeSonded(t, s), `sonde_export_folded_rows_total{dataset="`+stats[0].stat+`"}`); {
		if time.Now().After(deadline) {
			t.Fatalf("the exporter does not show %s", stats[0].stat)
		}
		time.Sleep(200 * time.Millisecond)
	}
	const n = 300
	from, secs := runDD(t, dd, n)
	for _, st := range stats {
		var d struct {
			Data []struct {
				Data struct {
					Buckets []struct {
						Min   int64  `json:"min"`
						Max   *int64 `json:"max"`
						Count int64  `json:"count"`
					} `json:"buckets"`
				} `json:"data"`
			} `json:"data"`
		}
		q := fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(st.stat), url.QueryEscape(from.UTC().Format(time.RFC3339)), secs)
		if code, body := s.call("GET", q, nil, &d); code != 200 {
			t.Fatalf("data of %s: %d %s", st.stat, code, body)
		}
		var got int64
		for _, sec := range d.Data {
			for _, b := range sec.Data.Buckets {
				open := b.Max == nil
				switch {
				case b.Min == st.min && !open && *b.Max == st.max && st.max != math.MaxInt64:
					got += b.Count
				case b.Min == st.min && open && st.max == math.MaxInt64:
					got += b.Count
				default:
					max := "(open)"
					if !open {
						max = strconv.FormatInt(*b.Max, 10)
					}
					t.Errorf("%s: bucket [%d, %s) of %d events, want [%d, %d)", st.stat, b.Min, max, b.Count, st.min, st.max)
				}
			}
		}
		if got != n {
			t.Errorf("%s: %d events in [%d, %d), want %d", st.stat, got, st.min, st.max, n)
		}
	}

	// /metrics: a classic bucket le = max-1 holds the events below max.
	// Counters of an exported dataset count from its creation, so they
	// are dd's writes once the seconds that hold them are in.
	deadline := time.Now().Add(20 * time.Second)
	for {
		text := scrapeSonded(t, s)
		bad := ""
		for _, st := range stats {
			if st.max == math.MaxInt64 {
				continue
			}
			re := regexp.MustCompile(`(?m)^\S+_bucket\{[^}]*dataset="` + regexp.QuoteMeta(st.stat) + `"[^}]*le="` + regexp.QuoteMeta(strconv.FormatInt(st.max-1, 10)) + `"[^}]*\} (\S+)`)
			m := re.FindStringSubmatch(text)
			if m == nil || m[1] != strconv.Itoa(n) {
				bad += fmt.Sprintf("%s: le=%d: %v\n", st.stat, st.max-1, m)
			}
		}
		if bad == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics:\n%s\n%s\nsonded:\n%s", bad, grepLines(text, "zb."), s.log)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// scrapeSonded reads the agent's /metrics in the text format.
func scrapeSonded(t *testing.T, s *sonded) string {
	t.Helper()
	resp, err := http.Get("http://" + s.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
