package format

// trace(), the per-firing prefix, stacks and raw bytes: dt_consume_cpu,
// dt_print_bytes, dt_print_stack, dt_print_ustack, dt_print_sym and
// dt_print_mod in libdtrace/common/dt_consume.c, and chew()/chewrec() in
// cmd/dtrace/dtrace.c.

import (
	"io"
	"strconv"

	"github.com/sonde-trace/sonde/internal/value"
)

// StackIndent is DTrace's default stackindent option (_dtrace_stkindent):
// the indent of each frame of a stack traced or used as a key.
const StackIndent = 14

// ProbeHeader is the heading dtrace(1) prints before the first firing when
// not quiet: chew() prints "%3s %6s %32s\n" of "CPU", "ID", "FUNCTION:NAME".
func ProbeHeader() string {
	return "CPU     ID                    FUNCTION:NAME\n"
}

// funcNameMax is the size of chew()'s name buffer less its NUL:
// DTRACE_FUNCNAMELEN (192) + DTRACE_NAMELEN (64) + 2 - 1.
const funcNameMax = 192 + 64 + 1

// ProbePrefix is what dtrace(1) prints at the start of each firing when not
// quiet: chew()'s "%3d %6d %32s " of the CPU, the probe ID and
// "function:name". The records follow, then ProbeEnd.
func ProbePrefix(cpu int, id uint32, function, name string) string {
	fn := function + ":" + name
	if len(fn) > funcNameMax {
		fn = fn[:funcNameMax]
	}
	b := fmtInt(nil, cspec{width: 3, prec: -1}, 'd', uint64(int64(cpu)), false)
	b = append(b, ' ')
	b = fmtInt(b, cspec{width: 6, prec: -1}, 'd', uint64(id), false)
	b = append(b, ' ')
	b = fill(b, cspec{width: 32, prec: -1}, fn)
	return string(append(b, ' '))
}

// ProbeEnd is what dtrace(1) prints after the last record of a firing:
// chewrec() prints a newline unless quiet.
func ProbeEnd(quiet bool) string {
	if quiet {
		return ""
	}
	return "\n"
}

// Trace writes one trace() record as dt_consume_cpu lays it out.
//
//   - integers: "%lld", "%d" quiet or " %16lld", " %8d", " %5d", " %3d" by
//     size; records of 1 and 2 bytes print unsigned, of 4 and 8 signed
//     (tst.signedkeys.d.out: trace((char)-2) prints 254);
//   - strings: "  %-33s", or "%s" when quiet; bytes that do not look like
//     a string (and the empty string) as a hex dump (dt_print_bytes);
//   - tracemem() bytes: always the hex dump;
//   - stack(), ustack(): a newline, then each frame indented by 14 and
//     followed by a newline;
//   - sym(), mod(), usym(), umod(), uaddr(): "  %-50s".
func Trace(w io.Writer, v value.Value, quiet bool) error {
	_, err := w.Write(appendTrace(nil, v, quiet))
	return err
}

func appendTrace(b []byte, v value.Value, quiet bool) []byte {
	switch v.Kind {
	case value.Int:
		return appendTraceInt(b, v, quiet)
	case value.String:
		return appendBytes(b, stringRecord(v), -33, quiet, false)
	case value.Bytes:
		return appendBytes(b, v.Raw, -33, quiet, !v.Datum)
	case value.Stack, value.UStack:
		return appendStack(b, v.Frames, StackIndent, noSpec)
	default: // Sym, USym, Mod, UMod, UAddr
		return appendSym(b, v)
	}
}

// appendTraceInt is the size switch at the end of dt_consume_cpu.
func appendTraceInt(b []byte, v value.Value, quiet bool) []byte {
	s := noSpec
	switch v.Size {
	case 1, 2:
		if !quiet {
			s.width = 3
			if v.Size == 2 {
				s.width = 5
			}
			b = append(b, ' ')
		}
		return fmtInt(b, s, 'd', zeroExtend(v), false)
	case 4:
		if !quiet {
			s.width = 8
			b = append(b, ' ')
		}
		return fmtInt(b, s, 'd', zeroExtend(v), false)
	}
	if !quiet {
		s.width = 16
		b = append(b, ' ')
	}
	return fmtInt(b, s, 'd', uint64(v.Int), true)
}

// appendSym is dt_print_sym, dt_print_mod, dt_print_usym and dt_print_umod
// with no format: "  %-50s" of the symbolised text.
func appendSym(b []byte, v value.Value) []byte {
	b = append(b, ' ', ' ')
	return fill(b, cspec{left: true, width: 50, prec: -1}, v.Str)
}

// appendStack is dt_print_stack and dt_print_ustack: a newline, then for
// each frame the indent, the frame formatted with s and a newline.
func appendStack(b []byte, frames []string, indent int, s cspec) []byte {
	b = append(b, '\n')
	for _, f := range frames {
		b = padSpaces(b, indent)
		b = fmtString(b, s, f)
		b = append(b, '\n')
	}
	return b
}

// isprint and isspace are the C locale's.
func isprint(c byte) bool { return c >= 0x20 && c <= 0x7e }
func isspace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// appendBytes is dt_print_bytes: bytes that are printable characters up to
// a NUL followed only by NULs print as a string, " %s%*s" (a second space
// when width is negative) or "%s" when quiet; printable characters with no
// NUL print as "  %-*s"; anything else, or raw, as a hex dump with offsets
// and an ASCII column.
func appendBytes(b []byte, c []byte, width int, quiet, raw bool) []byte {
	n := len(c)
	if n == 0 {
		return b
	}
	if !raw {
		i := 0
		for ; i < n; i++ {
			ch := c[i]
			if isprint(ch) || isspace(ch) || ch == '\b' || ch == '\a' {
				continue
			}
			if ch == 0 && i > 0 {
				j := i + 1
				for j < n && c[j] == 0 {
					j++
				}
				if j != n {
					break
				}
				if quiet {
					return append(b, c[:i]...)
				}
				b = append(b, ' ')
				if width < 0 {
					b = append(b, ' ')
				}
				return fill(b, cspec{left: width < 0, width: abs(width), prec: -1}, string(c[:i]))
			}
			break
		}
		if i == n {
			// "  %-*s": left-justified whatever the sign of width.
			b = append(b, ' ', ' ')
			return fill(b, cspec{left: true, width: abs(width), prec: -1}, string(c))
		}
	}
	const margin = 5
	b = append(b, '\n')
	b = padSpaces(b, margin+6)
	for i := 0; i < 16; i++ {
		b = append(b, ' ', ' ', "0123456789abcdef"[i])
	}
	b = append(b, "  0123456789abcdef\n"...)
	for i := 0; i < n; i += 16 {
		b = padSpaces(b, margin)
		b = fill(b, cspec{width: 5, prec: -1}, strconv.FormatInt(int64(i), 16))
		b = append(b, ':')
		j := i
		for ; j < i+16 && j < n; j++ {
			b = append(b, ' ', "0123456789abcdef"[c[j]>>4], "0123456789abcdef"[c[j]&15])
		}
		for ; j%16 != 0; j++ {
			b = append(b, ' ', ' ', ' ')
		}
		b = append(b, ' ', ' ')
		for j = i; j < i+16 && j < n; j++ {
			if c[j] < ' ' || c[j] > '~' {
				b = append(b, '.')
			} else {
				b = append(b, c[j])
			}
		}
		b = append(b, '\n')
	}
	return b
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
