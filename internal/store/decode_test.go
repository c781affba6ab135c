package store

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

var updateGolden = flag.Bool("update-golden", false, "write testdata/rec-v3-*.chunk (only when the format changes on purpose)")

// recordedHeat are the distributions of bench/store's recording of a real
// sonded (bench/store/record-agent.sh) that the format 3 golden chunks
// hold: whole-machine heat maps of 25 to 112 buckets a second, and a
// breakdown.
var recordedHeat = []string{"syscall.latency", "io.latency", "sched.runq.latency", "syscall.latency[name]"}

// recorded reads a dataset's seconds from bench/store's recording, moved
// back in time to start on a per-second window (1,800 seconds), as the
// store gives them back (rows normalized); and that window.
func recorded(tb testing.TB, dataset string) ([]analytics.Second, int64) {
	tb.Helper()
	f, err := os.Open("../../bench/store/testdata/agent.json.gz")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var out []analytics.Second
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Dataset string `json:"dataset"`
			Time    int64  `json:"time"`
			Samples int    `json:"samples"`
			Rows    []struct {
				Key     []string   `json:"key"`
				Value   int64      `json:"value"`
				Buckets [][4]int64 `json:"buckets"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatal(err)
		}
		if l.Dataset != dataset {
			continue
		}
		s := analytics.Second{Time: time.Unix(l.Time, 0).UTC(), Samples: l.Samples}
		for _, r := range l.Rows {
			row := analytics.Row{Key: r.Key, Value: r.Value}
			for _, b := range r.Buckets {
				row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(b[0]), Min: b[1], Max: analytics.Bound(analytics.LegacyMax(b[1], b[2])), Count: b[3]})
			}
			s.Rows = append(s.Rows, row)
		}
		if s.Rows, err = normalize(s.Rows); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s: not in the recording", dataset)
	}
	first := out[0].Time.Unix()
	win := floorTo(first, 1800)
	for i := range out {
		out[i].Time = out[i].Time.Add(-time.Duration(first-win) * time.Second)
	}
	return out, win
}

// TestGoldenV3 codes recorded heat maps in format 3: the bytes must be
// those of testdata/rec-v3-*.chunk, written on 2026-11-26 from main at
// c203462 (before the decoder was made faster), and decode to what was
// coded. Format 3 is what the store writes: a change of the model's
// arithmetic, in the encoder or the decoder, fails here.
func TestGoldenV3(t *testing.T) {
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, name := range recordedHeat {
		ivs, win := recorded(t, name)
		b := c.encodeChunk(win, 1, ivs)
		path := recPath(name)
		if *updateGolden {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: format 3 codes %d bytes, not the golden chunk's %d", name, len(b), len(want))
		}
		got, err := c.decodeChunk(win, 1, want)
		if err != nil || !reflect.DeepEqual(got, ivs) {
			t.Errorf("%s: the golden chunk decodes to other intervals (%v)", name, err)
		}
	}
}

// recPath is the golden chunk of a recorded dataset.
func recPath(name string) string {
	return filepath.Join("testdata", "rec-v3-"+strings.NewReplacer("[", "-", "]", "").Replace(name)+".chunk")
}

// BenchmarkDecodeHeat decodes the format 3 golden chunks of recorded heat
// maps (go test -bench DecodeHeat -cpuprofile).
func BenchmarkDecodeHeat(b *testing.B) {
	c, err := newCodec()
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	for _, name := range recordedHeat[:3] {
		_, win := recorded(b, name)
		chunk, err := os.ReadFile(recPath(name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			c0 := cpuTime()
			for b.Loop() {
				if _, err := c.decodeChunk(win, 1, chunk); err != nil {
					b.Fatal(err)
				}
			}
			// The machine is shared: the process's CPU time per decode
			// varies less than the time.
			b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
