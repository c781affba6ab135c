package stats

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// DString quotes s as a D string constant that the D scanner reads back
// as exactly s: quotes and backslashes are escaped, and every byte that is
// not printable ASCII is an octal escape, so that no value can end the
// constant early or smuggle D into a program. s must not hold a NUL (D
// strings end there); the filters refuse it.
func DString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// badRequest is the caller's error.
func badRequest(format string, args ...any) error {
	return &analytics.Error{Status: 400, Message: fmt.Sprintf(format, args...)}
}

// checkFilter checks a filter's value against its dimension.
func checkFilter(stat string, d *dim, v string) error {
	switch d.kind {
	case dimStack:
		return badRequest("%s: %s is a breakdown only: a stack cannot be a filter", stat, d.name)
	case dimInt:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != v {
			return badRequest("%s: %s=%s: %s is a decimal integer (0, 1, 42)", stat, d.name, quoteValue(v), d.name)
		}
		if d.maxInt > 0 && n > d.maxInt {
			return badRequest("%s: %s=%s: larger than any %s (%d)", stat, d.name, v, d.name, d.maxInt)
		}
	case dimEnum:
		for _, e := range d.values {
			if e.name == v {
				return nil
			}
		}
		return badRequest("%s: %s=%s: %s is one of %s", stat, d.name, quoteValue(v), d.name, strings.Join(enumNames(d), ", "))
	default:
		if strings.IndexByte(v, 0) >= 0 {
			return badRequest("%s: %s: a value cannot hold a NUL byte", stat, d.name)
		}
		if d.max > 0 && len(v) > d.max {
			return badRequest("%s: %s=%s: longer than any %s (%d bytes) can be, it would match nothing", stat, d.name, quoteValue(v), d.name, d.max)
		}
	}
	return nil
}

func enumNames(d *dim) []string {
	var out []string
	for _, e := range d.values {
		out = append(out, e.name)
	}
	return out
}

// keyExpr is the D expression of a dimension's key in a clause.
func keyExpr(d *dim, consts map[string]string) string {
	if c, ok := consts[d.name]; ok {
		return DString(c)
	}
	if d.kind != dimEnum {
		return d.key
	}
	// a chain of conditionals, the last name the else
	expr := DString(d.values[len(d.values)-1].name)
	for i := len(d.values) - 2; i >= 0; i-- {
		expr = "(" + d.values[i].pred + ") ? " + DString(d.values[i].name) + " : " + expr
	}
	return "(" + expr + ")"
}

// filterPred is the D predicate of a filter on d (checked).
func filterPred(d *dim, v string) string {
	switch d.kind {
	case dimInt:
		return d.key + " == " + v
	case dimEnum:
		for _, e := range d.values {
			if e.name == v {
				return e.pred
			}
		}
	}
	return d.key + " == " + DString(v)
}

// and joins predicates, each parenthesized; "" for none.
func and(preds ...string) string {
	var out []string
	for _, p := range preds {
		if p != "" {
			out = append(out, "("+p+")")
		}
	}
	return strings.Join(out, " && ")
}

func writeClause(b *strings.Builder, probe, pred, body string) {
	b.WriteString(probe + "\n")
	if pred != "" {
		b.WriteString("/" + pred + "/\n")
	}
	b.WriteString("{\n\t" + body + "\n}\n\n")
}

// program writes the D of a dynamic dataset of b (filters and breakdowns
// checked): one aggregation, @a, keyed by the breakdowns in order;
// filters are predicates.
func (b *builtin) program(spec *Spec) string {
	p := b.d
	early := map[string]bool{}
	for _, e := range p.early {
		early[e] = true
	}
	var earlyPreds []string
	for _, f := range spec.Filters {
		if early[f.Breakdown] {
			earlyPreds = append(earlyPreds, filterPred(b.dim(f.Breakdown), f.Value))
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "/* sonded: %s */\n\n", strings.ReplaceAll(spec.String(), "*/", "* /"))
	for _, c := range p.pre {
		pred := c.guard
		if c.early {
			pred = and(append([]string{c.guard}, earlyPreds...)...)
		}
		writeClause(&out, c.probe, pred, c.body)
	}
clauses:
	for _, c := range p.aggs {
		preds := []string{c.guard}
		for _, f := range spec.Filters {
			if v, ok := c.consts[f.Breakdown]; ok {
				if v != f.Value {
					continue clauses // this clause's events are filtered out
				}
				continue
			}
			preds = append(preds, filterPred(b.dim(f.Breakdown), f.Value))
		}
		var keys []string
		for _, k := range spec.Breakdowns {
			keys = append(keys, keyExpr(b.dim(k), c.consts))
		}
		agg := "@a"
		if len(keys) > 0 {
			agg += "[" + strings.Join(keys, ", ") + "]"
		}
		val := c.value
		if c.dist != "" {
			val = distValue(c.dist, spec.Export)
		}
		writeClause(&out, c.probe, and(preds...), agg+" = "+val+";")
	}
	for _, c := range p.post {
		writeClause(&out, c.probe, c.guard, c.body)
	}
	return out.String()
}
