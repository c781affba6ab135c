package format

// The folded stack format that flame graph tools read (flamegraph.pl,
// inferno, speedscope): what Brendan Gregg's stackcollapse.pl makes of
// DTrace's aggregation output. One line per stack: the frames from the
// root to the leaf joined by ';', a space, and the value.

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/value"
)

// FoldedStacks prints aggregations keyed by stacks in the folded format:
//
//	key;...;user root;...;user leaf;kernel root;...;kernel leaf value
//
// Each row of an aggregation becomes the frames of its keys:
//
//   - Keys that are not stacks (execname, pid, probefunc, usym() ...) come
//     first, in key order, as single frames: a flame graph's roots.
//   - Then the frames of the user stacks (ustack()), from the outermost,
//     then those of the kernel stacks (stack()), from the outermost: a
//     system call's kernel frames sit on the user frames that made it,
//     whatever the order of the keys. Frames keep their text
//     (module`function); kernel frames are not marked with flamegraph.pl's
//     "_[k]" suffix: their module (vmlinux, ext4 ...) tells them apart, and
//     viewers other than flamegraph.pl would show the suffix verbatim.
//   - As stackcollapse.pl does, stack frames lose their "+0x..." offset
//     (so that samples at different places in one function merge), and a
//     frame that is empty prints as "-", as does a row with no frame at all.
//   - A ';' in a frame would split it: it becomes ':'. Control characters
//     (newlines, tabs) become spaces. Other spaces are kept: the tools take
//     the value after the last space ("(anonymous namespace)::f()" stays
//     whole).
//
// Rows whose frames come out the same (they differed only in offsets)
// merge: counts and sums add, min and max keep the extreme, avg and stddev
// are those of the merged data. The value is what printa() would print:
// normalized, avg as an integer average; it may be negative (sum, min,
// max, avg), which flamegraph.pl ignores.
//
// With several aggregations, each line starts with a frame naming its
// aggregation ("@name", or "@" for the anonymous one) so that their stacks
// do not add up. Lines are sorted by their text, as stackcollapse.pl sorts
// them; o is not used (the order of rows makes no difference to the
// tools).
//
// Only aggregations with one number per row can be folded: quantize(),
// lquantize() and llquantize() are an error, and nothing is printed.
func FoldedStacks(w io.Writer, aggs []*value.Aggregation, o AggOpts) error {
	var uniq []*value.Aggregation
	seen := map[*value.Aggregation]bool{}
	for _, a := range aggs {
		switch a.Func {
		case value.Count, value.Sum, value.Avg, value.Min, value.Max, value.Stddev:
		default:
			return fmt.Errorf("cannot fold @%s: %s() has no single value per key (use count(), sum(), avg(), min(), max() or stddev())", a.Name, a.Func)
		}
		if !seen[a] {
			seen[a] = true
			uniq = append(uniq, a)
		}
	}
	type line struct {
		text string
		agg  *value.Aggregation
		val  value.AggValue
	}
	var lines []*line
	byText := map[string]*line{}
	var frames []string
	for _, a := range uniq {
		for i := range a.Rows {
			r := &a.Rows[i]
			frames = frames[:0]
			if len(uniq) > 1 {
				frames = append(frames, "@"+a.Name)
			}
			frames = foldKeys(frames, r.Keys)
			if len(frames) == 0 {
				frames = append(frames, "-")
			}
			text := strings.Join(frames, ";")
			if l := byText[text]; l != nil {
				l.val = l.val.Merge(a.Func, r.Val)
				continue
			}
			l := &line{text, a, r.Val}
			byText[text] = l
			lines = append(lines, l)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].text < lines[j].text })
	var b []byte
	for _, l := range lines {
		b = append(b, l.text...)
		b = append(b, ' ')
		b = appendFoldedValue(b, l.agg, l.val)
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// foldKeys appends the frames of a row's keys: the other keys, then the
// user stacks, then the kernel stacks, each stack from its root.
func foldKeys(frames []string, keys []value.Value) []string {
	for _, k := range keys {
		if k.Kind != value.Stack && k.Kind != value.UStack {
			frames = append(frames, foldFrame(keyText(k)))
		}
	}
	for _, kind := range []value.Kind{value.UStack, value.Stack} {
		for _, k := range keys {
			if k.Kind != kind {
				continue
			}
			for i := len(k.Frames) - 1; i >= 0; i-- {
				frames = append(frames, foldFrame(stripOffset(strings.TrimSpace(k.Frames[i]))))
			}
		}
	}
	return frames
}

// keyText is the text of a key that is not a stack, as printa() shows it
// but without padding.
func keyText(k value.Value) string {
	switch k.Kind {
	case value.Int:
		switch k.Size {
		case 1, 2, 4:
			return string(fmtInt(nil, noSpec, 'd', zeroExtend(k), false))
		}
		return strconv.FormatInt(k.Int, 10)
	case value.String:
		s, _, _ := strings.Cut(k.Str, "\x00")
		return s
	case value.Bytes:
		return fmt.Sprintf("0x%x", k.Raw)
	}
	return k.Str // Sym, USym, Mod, UMod, UAddr
}

// stripOffset removes a trailing "+0x<hex>" from a stack frame.
func stripOffset(f string) string {
	i := strings.LastIndex(f, "+0x")
	if i <= 0 || i+3 == len(f) {
		return f
	}
	for _, c := range f[i+3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return f
		}
	}
	return f[:i]
}

// foldFrame makes f safe in a folded line: ';' becomes ':', control
// characters spaces, and an empty frame "-".
func foldFrame(f string) string {
	if f == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == ';':
			return ':'
		case r < 0x20 || r == 0x7f:
			return ' '
		}
		return r
	}, f)
}

// appendFoldedValue appends the value printa() prints for v, without
// padding.
func appendFoldedValue(b []byte, a *value.Aggregation, v value.AggValue) []byte {
	normal := normalOf(a)
	switch a.Func {
	case value.Count:
		return strconv.AppendInt(b, normalize(v.Count, normal), 10)
	case value.Sum:
		return strconv.AppendInt(b, normalize(v.Sum, normal), 10)
	case value.Min:
		return strconv.AppendInt(b, normalize(v.Min, normal), 10)
	case value.Max:
		return strconv.AppendInt(b, normalize(v.Max, normal), 10)
	case value.Avg:
		var r int64
		if v.Count != 0 {
			r = v.Sum / int64(normal) / v.Count
		}
		return strconv.AppendInt(b, r, 10)
	}
	return strconv.AppendUint(b, stddev(v, normal), 10)
}
