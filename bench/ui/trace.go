package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"

	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// traceEvent is one event of a Chromium trace (the JSON trace format).
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	Tdur float64 `json:"tdur"` // the thread's CPU time

	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// tracer collects a trace of one load (BENCH_UI_TRACE=1): what the
// renderer's main thread spent its time on, by event.
type tracer struct {
	mu     sync.Mutex
	events []traceEvent
	done   chan struct{}
	once   sync.Once
	// stopped: the trace was printed; later traces' events are not ours.
	stopped bool
}

func startTrace(ctx context.Context) (*tracer, error) {
	t := &tracer{done: make(chan struct{})}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *tracing.EventDataCollected:
			t.mu.Lock()
			if t.stopped {
				t.mu.Unlock()
				return
			}
			for _, v := range ev.Value {
				var e traceEvent
				if json.Unmarshal(v, &e) == nil {
					t.events = append(t.events, e)
				}
			}
			t.mu.Unlock()
		case *tracing.EventTracingComplete:
			t.once.Do(func() { close(t.done) })
		}
	})
	cats := []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink.user_timing", "toplevel", "cc", "blink", "__metadata"}
	err := chromedp.Run(ctx, tracing.Start().WithTransferMode(tracing.TransferModeReportEvents).
		WithTraceConfig(&tracing.TraceConfig{IncludedCategories: cats}))
	return t, err
}

// stop ends the trace and answers the renderer main thread's CPU time
// (ms) until the page's "sonde-first-paint" mark: its tasks, each counted
// once. With print, it prints the main thread's time by event name
// (inclusive and nested events both count) and its long tasks.
func (t *tracer) stop(ctx context.Context, print bool) (float64, error) {
	if err := chromedp.Run(ctx, tracing.End()); err != nil {
		return 0, err
	}
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	main := map[[2]int]bool{}
	for _, e := range t.events {
		if e.Ph == "M" && e.Name == "thread_name" && string(e.Args) == `{"name":"CrRendererMain"}` {
			main[[2]int{e.Pid, e.Tid}] = true
		}
	}
	by := map[string]float64{}
	cpu := map[string]float64{}
	var t0 float64
	var tasks []traceEvent
	for _, e := range t.events {
		if !main[[2]int{e.Pid, e.Tid}] || e.Ph != "X" {
			continue
		}
		by[e.Name] += e.Dur / 1000
		cpu[e.Name] += e.Tdur / 1000
		if e.Name == "RunTask" && e.Dur > 30000 {
			tasks = append(tasks, e)
		}
		if t0 == 0 || e.Ts < t0 {
			t0 = e.Ts
		}
	}
	cpuMs := t.cpuUntilPaint(main)
	if !print {
		return cpuMs, nil
	}
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range by {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	for i, e := range all {
		if i == 25 {
			break
		}
		fmt.Fprintf(os.Stderr, "%8.1f ms (CPU %6.1f ms)  %s\n", e.v, cpu[e.k], e.k)
	}
	for _, task := range tasks {
		// What the long task held: its direct and nested events over 5 ms.
		fmt.Fprintf(os.Stderr, "task at %.0f ms, %.0f ms (CPU %.0f ms):", (task.Ts-t0)/1000, task.Dur/1000, task.Tdur/1000)
		for _, e := range t.events {
			if e.Pid == task.Pid && e.Tid == task.Tid && e.Ph == "X" && e.Ts >= task.Ts && e.Ts+e.Dur <= task.Ts+task.Dur && e.Dur > 20000 && e.Name != "RunTask" {
				fmt.Fprintf(os.Stderr, " %s %.0f/%.0f;", e.Name, e.Dur/1000, e.Tdur/1000)
			}
		}
		fmt.Fprintln(os.Stderr)
	}
	return cpuMs, nil
}

// cpuUntilPaint adds the CPU time of the main thread's outermost tasks
// that began before the first-paint mark.
func (t *tracer) cpuUntilPaint(main map[[2]int]bool) float64 {
	mark := math.Inf(1)
	for _, e := range t.events {
		if e.Name == "sonde-first-paint" && e.Ts < mark {
			mark = e.Ts
		}
	}
	var tasks []traceEvent
	for _, e := range t.events {
		if main[[2]int{e.Pid, e.Tid}] && e.Ph == "X" && e.Name == "RunTask" && e.Ts < mark {
			tasks = append(tasks, e)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Ts < tasks[j].Ts })
	var sum, end float64
	for _, e := range tasks {
		if e.Ts < end {
			continue // inside the task before
		}
		sum += e.Tdur / 1000
		end = e.Ts + e.Dur
	}
	return sum
}
