package stats

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// SpecError is a dataset name that does not parse: what is wrong and at
// which byte (counted from 1). errors.As finds it as an *analytics.Error
// with Status 400 too.
type SpecError struct {
	Name string
	Byte int // 1-based offset of the offending byte; len(Name)+1 at the end
	Msg  string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("dataset %q, byte %d: %s", e.Name, e.Byte, e.Msg)
}

// As lets errors.As see a SpecError as the caller's error it is (400).
func (e *SpecError) As(target any) bool {
	if p, ok := target.(**analytics.Error); ok {
		*p = &analytics.Error{Status: http.StatusBadRequest, Message: e.Error()}
		return true
	}
	return false
}

// MaxNameLen bounds a dataset's name.
const MaxNameLen = 1024

// Parse parses a dataset name: a statistic, then [breakdown=value]
// filters and [breakdown] breakdowns in any order ("syscall.ops[execname=
// postgres][name]"). Values may be quoted ("[execname=\"a b\"]", with \"
// and \\ as the only escapes). Errors say what is wrong, at which byte.
// A breakdown named twice, or filtered twice, is an error; a dimension
// may be both filtered and broken down.
func Parse(name string) (*Spec, error) {
	p := &specParser{s: name}
	if len(name) > MaxNameLen {
		return nil, p.errorf(MaxNameLen, "longer than %d bytes", MaxNameLen)
	}
	spec := &Spec{}
	i := 0
	for i < len(name) && isStatByte(name[i]) {
		i++
	}
	if i == 0 {
		if i == len(name) {
			return nil, p.errorf(0, "empty name: a statistic is expected (syscall.ops, io.ops[device]...)")
		}
		return nil, p.errorf(0, "a statistic's name is expected, found %s", quoteByte(name[0]))
	}
	spec.Statistic = name[:i]
	seenF, seenB := map[string]bool{}, map[string]bool{}
	for i < len(name) {
		if name[i] != '[' {
			return nil, p.errorf(i, "expected '[' (a breakdown or filter), found %s", quoteByte(name[i]))
		}
		start := i + 1
		j := start
		for j < len(name) && isIdentByte(name[j], j == start) {
			j++
		}
		if j == start {
			if j == len(name) {
				return nil, p.errorf(j, "expected a breakdown's name after '['")
			}
			return nil, p.errorf(j, "expected a breakdown's name, found %s", quoteByte(name[j]))
		}
		dim := name[start:j]
		if j == len(name) {
			return nil, p.errorf(j, "missing ']'")
		}
		switch name[j] {
		case ']':
			if seenB[dim] {
				return nil, p.errorf(start, "breakdown %q given twice", dim)
			}
			seenB[dim] = true
			spec.Breakdowns = append(spec.Breakdowns, dim)
			i = j + 1
		case '=':
			val, next, err := p.value(j + 1)
			if err != nil {
				return nil, err
			}
			if seenF[dim] {
				return nil, p.errorf(start, "filter on %q given twice", dim)
			}
			seenF[dim] = true
			spec.Filters = append(spec.Filters, analytics.Filter{Breakdown: dim, Value: val})
			i = next
		default:
			return nil, p.errorf(j, "expected ']' or '=' after %q, found %s", dim, quoteByte(name[j]))
		}
	}
	return spec, nil
}

type specParser struct{ s string }

func (p *specParser) errorf(off int, format string, args ...any) error {
	return &SpecError{Name: p.s, Byte: off + 1, Msg: fmt.Sprintf(format, args...)}
}

// value parses a filter's value at i, through its closing ']', and
// returns the value and the offset after the ']'.
func (p *specParser) value(i int) (string, int, error) {
	s := p.s
	if i < len(s) && s[i] == '"' {
		return p.quoted(i)
	}
	j := i
	for j < len(s) && s[j] != ']' {
		if !isBareByte(s[j]) {
			return "", 0, p.errorf(j, "%s in a value: quote the value (\"...\")", quoteByte(s[j]))
		}
		j++
	}
	if j == len(s) {
		return "", 0, p.errorf(j, "missing ']'")
	}
	if j == i {
		return "", 0, p.errorf(j, "empty value: write \"\" for the empty string")
	}
	return s[i:j], j + 1, nil
}

// quoted parses "..." at i (the opening quote), then the ']'.
func (p *specParser) quoted(i int) (string, int, error) {
	s := p.s
	var b strings.Builder
	j := i + 1
	for {
		if j == len(s) {
			return "", 0, p.errorf(j, "unterminated quoted value (opened at byte %d)", i+1)
		}
		c := s[j]
		switch {
		case c == '"':
			j++
			if j == len(s) {
				return "", 0, p.errorf(j, "missing ']'")
			}
			if s[j] != ']' {
				return "", 0, p.errorf(j, "expected ']' after the quoted value, found %s", quoteByte(s[j]))
			}
			return b.String(), j + 1, nil
		case c == '\\':
			if j+1 == len(s) {
				return "", 0, p.errorf(j, "unterminated quoted value (opened at byte %d)", i+1)
			}
			if e := s[j+1]; e != '"' && e != '\\' {
				return "", 0, p.errorf(j, "invalid escape \\%c: only \\\" and \\\\ are escapes", e)
			}
			b.WriteByte(s[j+1])
			j += 2
		case c < 0x20 || c == 0x7f:
			return "", 0, p.errorf(j, "control character %s in a value", quoteByte(c))
		default:
			b.WriteByte(c)
			j++
		}
	}
}

// String is the canonical name: filters first, in the order given, then
// breakdowns ("syscall.ops[execname=dd][name]"). A value that is empty or
// has bytes a bare value cannot have is quoted. Parse(s.String()) gives s
// back (filters first).
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Statistic)
	for _, f := range s.Filters {
		b.WriteString("[" + f.Breakdown + "=" + quoteValue(f.Value) + "]")
	}
	for _, d := range s.Breakdowns {
		b.WriteString("[" + d + "]")
	}
	return b.String()
}

// quoteValue writes v bare when it can be, else quoted.
func quoteValue(v string) string {
	bare := v != ""
	for i := 0; bare && i < len(v); i++ {
		bare = isBareByte(v[i])
	}
	if bare {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(v) + `"`
}

// isStatByte: statistics are named with letters, digits, '.', '_', '-'.
func isStatByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// isIdentByte: breakdowns are identifiers.
func isIdentByte(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || !first && c >= '0' && c <= '9'
}

// isBareByte: an unquoted value has no space, bracket, quote, backslash
// or control byte (bytes >= 0x80, UTF-8, are allowed).
func isBareByte(c byte) bool {
	return c > ' ' && c != 0x7f && c != '[' && c != ']' && c != '"' && c != '\\'
}

func quoteByte(c byte) string {
	if c >= ' ' && c < 0x7f {
		return fmt.Sprintf("'%c'", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
