package parser

import (
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Probe descriptions, as in illumos dtrace_xstr2desc: the text is split at
// ':' and the fields are assigned from the right, so "BEGIN" is a name,
// "read:entry" a function and a name, and "fbt:mod:fn:entry" all four.
// In each field, macro references ($1, $$1, $target, $pid ...) are replaced
// by their values from Options.Macros.

// maxFields is the number of fields of a probe description.
const maxFields = 4

// parseProbeDesc parses the current PROBEDESC token; the next token is read
// in the outer context.
func (p *parser) parseProbeDesc() *ast.ProbeDesc {
	d := p.probeDesc(p.pos, p.lit)
	p.next()
	return d
}

func (p *parser) probeDesc(pos token.Pos, raw string) *ast.ProbeDesc {
	d := &ast.ProbeDesc{DescPos: pos, Text: raw}
	fields := strings.Split(raw, ":")
	if len(fields) > maxFields {
		p.error(pos, "D_PDESC_INVAL", "invalid probe description %q: more than %d fields", raw, maxFields)
		return d
	}
	for i, f := range fields {
		v, bad := expandMacros(f, p.macros)
		if bad != "" {
			p.error(pos, "D_PDESC_INVAL", "invalid probe description %q: undefined macro variable %s", raw, bad)
		}
		fields[i] = v
	}
	d.Text = strings.Join(fields, ":")
	dst := []*string{&d.Provider, &d.Module, &d.Function, &d.Name}
	dst = dst[maxFields-len(fields):]
	for i, f := range fields {
		*dst[i] = f
	}
	return d
}

// expandMacros replaces the macro references in one field of a probe
// description. It returns the first undefined reference, if any.
func expandMacros(field string, macros map[string]string) (string, string) {
	i := strings.IndexByte(field, '$')
	if i < 0 {
		return field, ""
	}
	var b strings.Builder
	rest := field
	for i >= 0 {
		b.WriteString(rest[:i])
		ref, name := macroRef(rest[i:])
		v, ok := macros[name]
		if !ok || name == "" {
			return field, ref
		}
		b.WriteString(v)
		rest = rest[i+len(ref):]
		i = strings.IndexByte(rest, '$')
	}
	b.WriteString(rest)
	return b.String(), ""
}

// macroRef splits off the macro reference at the start of s ($1, $$1,
// $target, $$target) and returns it with the macro's name; as in DTrace,
// $$ and $ are equivalent in probe descriptions. The name is empty when
// no valid reference follows the dollar.
func macroRef(s string) (ref, name string) {
	n := 1
	if strings.HasPrefix(s, "$$") {
		n = 2
	}
	j := n
	switch {
	case j < len(s) && isDigitByte(s[j]):
		for j < len(s) && isDigitByte(s[j]) {
			j++
		}
	case j < len(s) && isIdentStart(s[j]):
		for j < len(s) && (isIdentStart(s[j]) || isDigitByte(s[j])) {
			j++
		}
	}
	if j == n {
		return s[:1], ""
	}
	return s[:j], s[n:j]
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
