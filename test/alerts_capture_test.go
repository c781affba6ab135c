package test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// spinC is a busy loop that makes system calls: getppid(2), then some
// arithmetic, in a function whose name the capture must find.
const spinC = `#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) void sonde_capture_spin(void) {
	for (;;) {
		getppid();
		for (int i = 0; i < 2000; i++)
			sink += i;
	}
}
int main(void) { sonde_capture_spin(); return 0; }
`

type captureInfo struct {
	Item    string `json:"item"`
	What    string `json:"what"`
	Program string `json:"program"`
	Stacks  int    `json:"stacks"`
	Samples int64  `json:"samples"`
	Folded  string `json:"folded"`
	SVG     string `json:"svg"`
	Output  string `json:"output"`
}

// Capture on alert: a busy loop (a uniquely named process calling
// getppid(2) in sonde_capture_spin) pushes syscall.ops of its name over a
// threshold; when the alert posts, the default capture (user and kernel
// stacks at 997 Hz of the process the dataset's filter names) and a
// capture of a given D program run for two seconds through the agent's
// tracer, and the event gets both: folded stacks holding the loop's
// function, and a flame graph of them. D that would be destructive, or
// does not compile, and negative lengths are 400s.
func TestAlertsCapture(t *testing.T) {
	dir := t.TempDir()
	name := "spin" + strconv.Itoa(os.Getpid()%100000)
	src := filepath.Join(dir, "spin.c")
	bin := filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(spinC), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O0", "-fno-omit-frame-pointer", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}

	s := startSonded(t, t.TempDir(), "--alert-retries", "0")
	watched := "syscall.ops[execname=" + name + "]"
	s.create(watched)
	_, actID := s.thresholdAction(t, map[string]any{"statname": watched, "limit": 1000, "minpost": 1, "minclear": 1,
		"frequency": 0})
	for _, bad := range []struct {
		item map[string]any
		want string
	}{
		{map[string]any{"handler": "capture", "program": `profile-997 { system("touch /tmp/sonde-capture-` + name + `"); }`}, "destructive"},
		{map[string]any{"handler": "capture", "program": `#pragma D option destructive
profile-997 { raise(9); }`}, "destructive"},
		{map[string]any{"handler": "capture", "program": "profile-997 { @[ustack() = count(); }"}, "syntax error"},
		{map[string]any{"handler": "capture", "seconds": -2}, "seconds -2"},
		{map[string]any{"handler": "capture", "clear": true}, "not on clear"},
	} {
		if st, body := s.alertCall("POST", "/actions/"+actID, bad.item, nil); st != 400 || !strings.Contains(body, bad.want) {
			t.Errorf("%v: %d %s, want 400 with %q", bad.item, st, body, bad.want)
		}
	}
	var items [3]struct {
		Item struct {
			ID string `json:"uuid"`
		} `json:"item"`
	}
	given := `profile-997 /execname == "` + name + `"/ { @[ufunc(arg1)] = count(); }`
	// One whose aggregation cannot be folded, and that prints: its
	// output is attached as text.
	printing := `profile-997 /execname == "` + name + `"/ { @q = quantize(1); } tick-1s { printf("capture tick\n"); }`
	for i, it := range []map[string]any{
		{"handler": "capture", "seconds": 2},
		{"handler": "capture", "seconds": 2, "program": given},
		{"handler": "capture", "seconds": 2, "program": printing},
	} {
		if st, body := s.alertCall("POST", "/actions/"+actID, it, &items[i]); st != 201 {
			t.Fatalf("item %v: %d %s", it, st, body)
		}
	}

	spin := exec.Command(bin)
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			spin.Process.Kill()
			spin.Wait()
		}
	}
	defer stop()
	posted := s.waitEvent("posted", func(e alertEvent) bool { return !e.Posted.IsZero() })
	var ev struct {
		Event struct {
			Captures []captureInfo `json:"captures"`
			Attempts []struct {
				Handler   string `json:"handler"`
				Delivered bool   `json:"delivered"`
				Error     string `json:"error"`
			} `json:"attempts"`
		} `json:"event"`
	}
	until(t, "both captures attached", func() bool {
		if st, body := s.alertCall("GET", "/events/"+posted.ID, nil, &ev); st != 200 {
			t.Fatalf("event: %d %s", st, body)
		}
		return len(ev.Event.Attempts) == 3
	})
	stop()
	for _, a := range ev.Event.Attempts {
		if !a.Delivered {
			t.Errorf("capture failed: %+v", a)
		}
	}
	if len(ev.Event.Captures) != 3 {
		t.Fatalf("captures: %+v", ev.Event.Captures)
	}
	get := func(href string) (string, string) {
		resp, err := http.Get("http://" + s.addr + href)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %s", href, resp.Status, b)
		}
		return string(b), resp.Header.Get("Content-Type")
	}
	for _, c := range ev.Event.Captures {
		if c.Item == items[2].Item.ID {
			out, ct := get(c.Output)
			// quantize(1) puts every sample in the bucket of 1.
			if c.Folded != "" || c.SVG != "" || ct != "text/plain; charset=utf-8" || !strings.Contains(out, "capture tick\n") ||
				!strings.Contains(out, "Distribution") || !strings.Contains(out, "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ ") {
				t.Errorf("the printing capture %+v (%s):\n%s", c, ct, out)
			}
			continue
		}
		if c.What != "post" || c.Stacks == 0 || c.Samples == 0 || c.Folded == "" || c.SVG == "" {
			t.Errorf("capture %+v", c)
			continue
		}
		folded, _ := get(c.Folded)
		svg, ct := get(c.SVG)
		if !strings.Contains(folded, name+"`sonde_capture_spin") {
			t.Errorf("the capture of %q has no sonde_capture_spin:\n%s", c.Program, folded)
		}
		if ct != "image/svg+xml" || !strings.HasPrefix(svg, "<?xml") || !strings.Contains(svg, "<title>"+name+"`sonde_capture_spin (") {
			t.Errorf("the flame graph of %q (%s) has no frame for sonde_capture_spin:\n%.2000s", c.Program, ct, svg)
		}
		var sum int64
		for _, l := range strings.Split(strings.TrimSpace(folded), "\n") {
			n, _ := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
			sum += n
		}
		if sum != c.Samples {
			t.Errorf("the capture says %d samples, its stacks count %d", c.Samples, sum)
		}
		switch c.Item {
		case items[0].Item.ID:
			if want := `profile-997 /execname == "` + name + `"/ { @[ustack(), stack()] = count(); }`; c.Program != want {
				t.Errorf("the default program is %q, want %q", c.Program, want)
			}
			if !strings.Contains(folded, name+"`main;") {
				t.Errorf("the default capture's stacks do not start at main:\n%s", folded)
			}
		case items[1].Item.ID:
			if c.Program != given {
				t.Errorf("the given program ran as %q", c.Program)
			}
		}
	}
	// The CLI lists the captures and writes a part.
	out, err := exec.Command(sonde, "analytics", "alerts", "captures", posted.ID, "-url", "http://"+s.addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), items[1].Item.ID+"  post") || !strings.Contains(string(out), "folded,svg") {
		t.Errorf("sonde analytics alerts captures: %v\n%s", err, out)
	}
	out, err = exec.Command(sonde, "analytics", "alerts", "capture", posted.ID, items[0].Item.ID, "folded", "-url", "http://"+s.addr).Output()
	if err != nil || !strings.Contains(string(out), name+"`sonde_capture_spin") {
		t.Errorf("sonde analytics alerts capture folded: %v\n%s", err, out)
	}
	if st, body := s.alertCall("GET", "/events/"+posted.ID+"/captures/"+items[0].Item.ID+"/nothing", nil, nil); st != 404 {
		t.Errorf("an unknown part: %d %s", st, body)
	}
}
