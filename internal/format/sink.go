package format

// The sinks: value.Sink implementations that print a session's output as
// dtrace(1) does (Text), as newline-delimited JSON (JSON), or with the
// aggregations left at the end as folded stacks (Folded).

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/sonde-trace/sonde/internal/value"
)

// Text prints as dtrace(1): each firing's prefix (CPU, ID,
// FUNCTION:NAME, unless quiet) and its items; faults and losses on Warn in
// DTrace's words; the aggregations left at the end.
type Text struct {
	Out, Warn io.Writer
	Quiet     bool
	Agg       AggOpts
	// Flow is dtrace's flowindent (-F): each firing starts with its CPU
	// and its function, indented by the entry and return probes before it.
	Flow bool
	// Prog prefixes diagnostics ("sonde").
	Prog string

	flow    flowState
	header  bool
	formats map[string]*Printf
	// stdout is Out as it was before freopen(), file what freopen()
	// opened.
	stdout io.Writer
	file   *os.File
}

// Firing implements value.Sink.
func (t *Text) Firing(f *value.Firing) {
	var b bytes.Buffer
	prefix := !t.Quiet
	if t.Flow && !f.Cont {
		if !t.header {
			t.header = true
			b.WriteString(FlowHeader())
		}
		b.WriteString(t.flow.prefix(f))
	} else if prefix && !f.Cont {
		if !t.header {
			t.header = true
			b.WriteString(ProbeHeader())
		}
		b.WriteString(ProbePrefix(f.CPU, f.Probe.ID, f.Probe.Function, f.Probe.Name))
	}
	for i := range f.Items {
		t.item(&b, &f.Items[i])
	}
	if prefix && !f.More {
		b.WriteString(ProbeEnd(false))
	}
	t.Out.Write(b.Bytes())
}

func (t *Text) item(w *bytes.Buffer, it *value.Item) {
	switch it.Kind {
	case value.ItemTrace:
		Trace(w, it.Args[0], t.Quiet)
	case value.ItemPrintf:
		if pf := t.parsed(it.Format); pf != nil {
			pf.FormatNamed(w, it.Args, it.Names)
		}
	case value.ItemPrinta:
		if it.Format == "" {
			for _, a := range it.Aggs {
				PrintAggregation(w, a, t.Agg)
			}
		} else if pf := t.parsed(it.Format); pf != nil {
			o := t.Agg
			o.Names = it.Names
			Printa(w, pf, it.Aggs, o)
		}
	}
}

// parsed returns the parsed format, once per format; the compiler has
// checked it, so an error here is the consumer's bug, said once.
func (t *Text) parsed(f string) *Printf {
	if t.formats == nil {
		t.formats = map[string]*Printf{}
	}
	if p, ok := t.formats[f]; ok {
		return p
	}
	p, err := ParsePrintf(f)
	if err != nil {
		t.warnf("bad format %q: %v", f, err)
	}
	t.formats[f] = p
	return p
}

func (t *Text) warnf(format string, args ...any) {
	prog := t.Prog
	if prog == "" {
		prog = "sonde"
	}
	fmt.Fprintf(t.Warn, prog+": "+format+"\n", args...)
}

// Fault implements value.Sink: dt_handle_err's message.
func (t *Text) Fault(f *value.Fault) {
	t.warnf("%s", FaultMessage(f))
}

// FaultMessage is DTrace's text for a runtime error, without the program
// name: "error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid
// address (0x0) in action #1 at -n:1:9".
func FaultMessage(f *value.Fault) string {
	p := f.Probe
	return fmt.Sprintf("error on enabled probe ID %d (ID %d: %s:%s:%s:%s): %s %s",
		f.EPID, p.ID, p.Provider, p.Module, p.Function, p.Name, f.What, f.Where)
}

// Loss implements value.Sink.
func (t *Text) Loss(l value.Loss) {
	if l.N > 0 {
		t.warnf("%s", LossMessage(l))
	}
}

// LossMessage is DTrace's words for a loss (dt_handle_cpudrop,
// dt_handle_status): "3 drops on CPU 1", "1 aggregation drop on CPU 0",
// "976 dynamic variable drops", "1 error in ERROR probe enabling".
func LossMessage(l value.Loss) string {
	switch l.Kind {
	case value.DropRecords:
		return fmt.Sprintf("%d drop%s on CPU %d", l.N, plural(l.N), l.CPU)
	case value.DropAggs:
		return fmt.Sprintf("%d aggregation drop%s on CPU %d", l.N, plural(l.N), l.CPU)
	case value.DropDynVars:
		return fmt.Sprintf("%d dynamic variable drop%s", l.N, plural(l.N))
	case value.SpecUnavail:
		return fmt.Sprintf("%d failed speculation%s (no speculative buffer available)", l.N, plural(l.N))
	case value.SpecDrops:
		return fmt.Sprintf("%d speculative drop%s", l.N, plural(l.N))
	case value.SpecBusy:
		return fmt.Sprintf("%d failed speculation%s (available buffer(s) still busy)", l.N, plural(l.N))
	}
	return fmt.Sprintf("%d error%s in ERROR probe enabling", l.N, plural(l.N))
}

// plural is DTrace's: "1 drop", "2 drops".
func plural(n uint64) string {
	if n <= 1 {
		return ""
	}
	return "s"
}

// SetOption implements value.Sink.
func (t *Text) SetOption(name, val string) {
	switch name {
	case "freopen":
		t.freopen(val)
	case "quiet":
		t.Quiet = true
	case "aggsortkey":
		t.Agg.SortKey = true
	case "aggsortrev":
		t.Agg.SortRev = true
	}
}

// freopen sends the output to the file path from now on, appended to
// what it holds (dtrace's freopen() opens it with "a"), or back to the
// output it had at first when path is "". A file that cannot be opened
// is reported and the output stays where it was.
func (t *Text) freopen(path string) {
	if t.stdout == nil {
		t.stdout = t.Out
	}
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
	if path == "" {
		t.Out = t.stdout
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.warnf("freopen( ): %v", err)
		t.Out = t.stdout
		return
	}
	t.file, t.Out = f, f
}

// Final implements value.Sink: the aggregations left, as dtrace(1) prints
// them at exit.
func (t *Text) Final(aggs []*value.Aggregation) {
	PrintAll(t.Out, aggs, t.Agg)
}

// Folded prints as Text does, except the aggregations left at the end:
// folded stacks for flame graphs (see Folded the function).
type Folded struct{ Text }

// Final implements value.Sink.
func (f *Folded) Final(aggs []*value.Aggregation) {
	if err := FoldedStacks(f.Out, aggs, f.Agg); err != nil {
		f.warnf("--folded: %v", err)
	}
}

// JSON writes one JSON object a line (see json.go): printf text, traced
// values and aggregations; faults and losses go to Warn as text.
type JSON struct {
	Text
}

// Firing implements value.Sink.
func (j *JSON) Firing(f *value.Firing) {
	info := ProbeInfo{CPU: f.CPU, ID: f.Probe.ID, Provider: f.Probe.Provider, Module: f.Probe.Module,
		Function: f.Probe.Function, Name: f.Probe.Name}
	for _, it := range f.Items {
		switch it.Kind {
		case value.ItemTrace:
			JSONTrace(j.Out, info, it.Args[0])
		case value.ItemPrintf:
			if pf := j.parsed(it.Format); pf != nil {
				var b bytes.Buffer
				pf.Format(&b, it.Args)
				JSONPrintf(j.Out, info, b.String())
			}
		case value.ItemPrinta:
			for _, a := range it.Aggs {
				JSONAggregation(j.Out, a, j.Agg)
			}
		}
	}
}

// Final implements value.Sink.
func (j *JSON) Final(aggs []*value.Aggregation) {
	for _, a := range aggs {
		JSONAggregation(j.Out, a, j.Agg)
	}
}
