package alert

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/flamegraph"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// Capture is the handler that runs a D program for a while when an alert
// posts and attaches what it found to the event.
const Capture = "capture"

// Capture lengths, in seconds.
const (
	DefaultCaptureSeconds = 10
	MaxCaptureSeconds     = 600
)

// maxAttachment bounds each part of a capture kept (folded stacks,
// printed output): what is past it is cut, and the capture says so.
const maxAttachment = 4 << 20

// CaptureResult is what a capture's program left: its aggregations as
// folded stacks (empty when they cannot be folded: then Output has them
// as text), what it printed, and its faults and losses.
type CaptureResult struct {
	Folded   []byte
	Output   []byte
	Warnings []byte
	// Truncated: a part was cut at 4 MiB.
	Truncated bool
}

// Capturer runs a D program for d, or until ctx ends, and returns what it
// left. A program that does not compile is a caller's error (400).
type Capturer func(ctx context.Context, program string, d time.Duration) (CaptureResult, error)

// CaptureInfo is a capture attached to an event: when and what ran, and
// where its parts are (hrefs under the alert service).
type CaptureInfo struct {
	Action  string    `json:"action"`
	Item    string    `json:"item"`
	What    string    `json:"what"` // post or test
	Program string    `json:"program"`
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Stacks and Samples: the folded lines and the sum of their counts.
	Stacks  int    `json:"stacks"`
	Samples int64  `json:"samples"`
	Folded  string `json:"folded,omitempty"`
	SVG     string `json:"svg,omitempty"`
	Output  string `json:"output,omitempty"`
	// Warnings are the program's faults and losses, as dtrace(1) words
	// them; Truncated says a part was cut at 4 MiB.
	Warnings  string `json:"warnings,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Bytes is the size of the parts kept. Discarded: they were deleted
	// to keep all captures within the agent's budget (MaxCaptureBytes),
	// the oldest first; the record stays.
	Bytes     int64 `json:"bytes,omitempty"`
	Discarded bool  `json:"discarded,omitempty"`
}

// DefaultMaxCaptureBytes is the default budget of all captures' parts.
const DefaultMaxCaptureBytes = 256 << 20

// captureParts are the parts a capture may have.
var captureParts = []string{"folded", "svg", "output"}

// keepWithinBudget discards the parts of the oldest captures until all
// of them fit in MaxCaptureBytes (e.mu held).
func (e *Engine) keepWithinBudget() {
	for _, ev := range e.events {
		if e.captureBytes <= e.cfg.MaxCaptureBytes {
			return
		}
		changed := false
		for i := range ev.Captures {
			c := &ev.Captures[i]
			if c.Discarded || c.Bytes == 0 || e.captureBytes <= e.cfg.MaxCaptureBytes {
				continue
			}
			for _, part := range captureParts {
				e.gone = append(e.gone, captureKey(ev.ID, c.Item, part))
			}
			e.captureBytes -= c.Bytes
			e.cfg.Logf("alert: event %s: capture %s: its %d bytes discarded (captures are kept within %d bytes, the oldest go first)",
				ev.ID, c.Item, c.Bytes, e.cfg.MaxCaptureBytes)
			c.Folded, c.SVG, c.Output, c.Discarded, c.Bytes = "", "", "", true, 0
			changed = true
		}
		if changed {
			e.saveEvent(ev)
		}
	}
}

// keyCapture is where a capture's parts are kept: +event/item/part.
const keyCapture = "alert/capture/"

func captureKey(event, item, part string) string { return keyCapture + event + "/" + item + "/" + part }

// compileCapture compiles a capture's program as the agent compiles a
// dataset's: destructive actions are never allowed (the D comes from the
// API), whatever its pragmas say.
func compileCapture(src string) (*tracer.Program, error) {
	cfg := &tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}}, Quiet: true, Prog: "sonded", NoDestructive: true}
	prog, err := tracer.Compile(cfg)
	if err != nil {
		msg := ""
		if prog != nil {
			msg = prog.Render(err)
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, &analytics.Error{Status: http.StatusBadRequest, Message: "capture: " + strings.TrimSpace(msg)}
	}
	return prog, nil
}

// checkCapture validates a capture item: its length, and its program,
// compiled now.
func (e *Engine) checkCapture(it *Item) error {
	if it.Clear {
		return badf("capture: it runs when the alert posts, not on clear")
	}
	if it.Seconds < 0 || it.Seconds > MaxCaptureSeconds {
		return badf("capture: seconds %d: want 1 to %d (0: %d)", it.Seconds, MaxCaptureSeconds, DefaultCaptureSeconds)
	}
	if it.Seconds == 0 {
		it.Seconds = DefaultCaptureSeconds
	}
	if it.Retries == nil {
		zero := 0 // a capture is not run twice for one alert unless asked
		it.Retries = &zero
	}
	if strings.TrimSpace(it.Program) == "" {
		it.Program = ""
		return nil
	}
	if e.cfg.CheckProgram != nil {
		return e.cfg.CheckProgram(it.Program)
	}
	return nil
}

// checkProgram is the engine's default program check: it compiles.
func checkProgram(src string) error {
	_, err := compileCapture(src)
	return err
}

// runCapture is the engine's default Capturer: the program through
// internal/tracer, the pipeline sonde and the agent share.
func runCapture(ctx context.Context, src string, d time.Duration) (CaptureResult, error) {
	prog, err := compileCapture(src)
	if err != nil {
		return CaptureResult{}, err
	}
	sink := &captureSink{}
	sink.Text = format.Text{Out: &limited{max: maxAttachment}, Warn: &limited{max: 64 << 10}, Quiet: true, Prog: "sonded"}
	sess, err := prog.Start(&tracer.StartOptions{Sink: sink})
	if err != nil {
		if msg := prog.Render(err); msg != "" {
			return CaptureResult{}, fmt.Errorf("capture: %s", strings.TrimSpace(msg))
		}
		return CaptureResult{}, fmt.Errorf("capture: %w", err)
	}
	defer sess.Close()
	if err := sess.Begin(); err != nil {
		return CaptureResult{}, fmt.Errorf("capture: BEGIN: %w", err)
	}
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		if err := sess.Poll(); err != nil {
			return CaptureResult{}, fmt.Errorf("capture: %w", err)
		}
		if exited, _ := sess.Exited(); exited {
			break
		}
	}
	if err := sess.End(); err != nil {
		return CaptureResult{}, fmt.Errorf("capture: END: %w", err)
	}
	out := sink.Out.(*limited)
	return CaptureResult{Folded: sink.folded.Bytes(), Output: out.Bytes(), Warnings: sink.Warn.(*limited).Bytes(),
		Truncated: sink.folded.cut || out.cut}, nil
}

// captureSink prints as dtrace(1) does, except the aggregations left at
// the end: folded stacks, or text when they cannot be folded.
type captureSink struct {
	format.Text
	folded limited
}

func (s *captureSink) Final(aggs []*value.Aggregation) {
	s.folded.max = maxAttachment
	if err := format.FoldedStacks(&s.folded, aggs, s.Agg); err != nil {
		s.folded.Reset()
		_ = format.PrintAll(s.Out, aggs, s.Agg)
	}
}

// limited is a buffer that keeps its first max bytes.
type limited struct {
	bytes.Buffer
	max int
	cut bool
}

func (l *limited) Write(p []byte) (int, error) {
	n := len(p)
	if room := l.max - l.Len(); len(p) > room {
		p, l.cut = p[:max(room, 0)], true
	}
	l.Buffer.Write(p)
	return n, nil
}

// defaultProgram is the capture of an alert given no program: user and
// kernel stacks at 997 Hz of the offending process — the execname or pid
// of the alert's key on a breakdown, or of the dataset's filter — or of
// the whole machine by execname.
func defaultProgram(ds analytics.Dataset, key []string) string {
	var preds []string
	match := func(field, v string) {
		switch field {
		case "execname":
			preds = append(preds, "execname == "+strconv.Quote(v))
		case "pid":
			if n, err := strconv.ParseUint(v, 10, 32); err == nil {
				preds = append(preds, "pid == "+strconv.FormatUint(n, 10))
			}
		}
	}
	for _, f := range ds.Filters {
		match(f.Breakdown, f.Value)
	}
	for i, b := range ds.Breakdowns {
		if i < len(key) {
			match(b, key[i])
		}
	}
	if len(preds) == 0 {
		return "profile-997 { @[execname, ustack(), stack()] = count(); }"
	}
	return "profile-997 /" + strings.Join(preds, " && ") + "/ { @[ustack(), stack()] = count(); }"
}

// captureSender runs the capture and attaches it to the event.
type captureSender struct {
	e      *Engine
	action string
	it     Item
}

func (c captureSender) send(ctx context.Context, n Notice) error {
	src := c.it.Program
	if src == "" {
		ds, err := c.e.cfg.Datasets.Dataset(n.Statname)
		if err != nil {
			return fmt.Errorf("capture: %w", err)
		}
		src = defaultProgram(ds, n.Key)
	}
	select {
	case c.e.capturing <- struct{}{}:
		defer func() { <-c.e.capturing }()
	default:
		return fmt.Errorf("capture: %d captures are running already (sonded runs at most %d at once): this one is skipped",
			cap(c.e.capturing), cap(c.e.capturing))
	}
	d := seconds(c.it.Seconds)
	started := c.e.cfg.Now().UTC()
	t0 := time.Now()
	res, err := c.e.cfg.Capture(ctx, src, d)
	if err != nil {
		return err
	}
	info := CaptureInfo{Action: c.action, Item: c.it.ID, What: n.What, Program: src, Started: started,
		Seconds: time.Since(t0).Round(time.Millisecond).Seconds(), Warnings: string(res.Warnings)}
	info.Truncated = res.Truncated
	base := Prefix + "/events/" + n.Event + "/captures/" + c.it.ID + "/"
	parts := map[string][]byte{}
	if len(res.Folded) > 0 {
		for _, l := range strings.Split(strings.TrimSpace(string(res.Folded)), "\n") {
			if i := strings.LastIndexByte(l, ' '); i > 0 {
				if v, err := strconv.ParseInt(l[i+1:], 10, 64); err == nil {
					info.Stacks++
					info.Samples += v
				}
			}
		}
		parts["folded"], info.Folded = res.Folded, base+"folded"
		var svg bytes.Buffer
		title := fmt.Sprintf("%s: %s", n.Statname, src)
		if _, err := flamegraph.Draw(&svg, bytes.NewReader(res.Folded), flamegraph.Options{Title: title}); err == nil {
			parts["svg"], info.SVG = svg.Bytes(), base+"svg"
		}
	}
	if len(res.Output) > 0 {
		parts["output"], info.Output = res.Output, base+"output"
	}
	for part, b := range parts {
		if err := c.e.cfg.Meta.PutMeta(captureKey(n.Event, c.it.ID, part), b); err != nil {
			return fmt.Errorf("capture: keeping its %s: %w", part, err)
		}
		info.Bytes += int64(len(b))
	}
	c.e.attach(n.Event, info)
	if info.Stacks == 0 && len(res.Output) == 0 {
		return fmt.Errorf("capture: %s found nothing in %gs", src, info.Seconds)
	}
	return nil
}

// attach adds a capture to its event.
func (e *Engine) attach(event string, c CaptureInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.events) - 1; i >= 0; i-- {
		if ev := e.events[i]; ev.ID == event {
			ev.Captures = append(ev.Captures, c)
			e.captureBytes += c.Bytes
			e.saveEvent(ev)
			e.keepWithinBudget()
			return
		}
	}
}

// CapturePart returns a part of an event's capture: folded, svg or
// output.
func (e *Engine) CapturePart(event, item, part string) ([]byte, error) {
	ev, err := e.Event(event)
	if err != nil {
		return nil, err
	}
	for _, c := range ev.Captures {
		if c.Item != item {
			continue
		}
		have := map[string]bool{"folded": c.Folded != "", "svg": c.SVG != "", "output": c.Output != ""}
		if !have[part] {
			return nil, notFound("capture part", part)
		}
		b, err := e.cfg.Meta.GetMeta(captureKey(event, item, part))
		if err != nil {
			return nil, fmt.Errorf("reading the capture's %s: %w", part, err)
		}
		if b == nil {
			return nil, notFound("capture part", part)
		}
		return b, nil
	}
	return nil, notFound("capture of item", item)
}
