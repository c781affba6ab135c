package format

// This file is a small printf(3C) engine. DTrace formats every conversion by
// handing libc a rebuilt format such as "%-8lli" (dt_printf_format in
// dt_printf.c), so sonde needs C's semantics, not Go's: widths and
// precisions count bytes, '0' pads after the sign or the "0x", '#' and '+'
// and ' ' behave as in C. Where C implementations differ, glibc's behaviour
// is followed (for example the '0' flag does not zero-pad %s or %c).

import (
	"github.com/sonde-trace/sonde/internal/d/printf"
	"math"
	"strconv"
	"strings"
)

// maxWidth bounds widths and precisions (printf.MaxWidth).
const maxWidth = printf.MaxWidth

// cspec is one C conversion specification: flags, width and precision.
type cspec struct {
	alt, zero, left, plus, space bool
	width                        int // 0: none
	prec                         int // -1: none
}

// noSpec is "%s"-like: no flags, no width, no precision.
var noSpec = cspec{prec: -1}

func clampWidth(n int) int {
	if n > maxWidth {
		return maxWidth
	}
	if n < -maxWidth {
		return -maxWidth
	}
	return n
}

// padSpaces appends n spaces.
func padSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// fill appends body padded to s.width with spaces, on the right when s.left.
func fill(b []byte, s cspec, body string) []byte {
	n := s.width - len(body)
	if s.left {
		return padSpaces(append(b, body...), n)
	}
	return append(padSpaces(b, n), body...)
}

// fmtString is %s: the precision truncates (in bytes), the width pads.
func fmtString(b []byte, s cspec, str string) []byte {
	if s.prec >= 0 && len(str) > s.prec {
		str = str[:s.prec]
	}
	return fill(b, s, str)
}

// fmtChar is %c of an int: the low byte.
func fmtChar(b []byte, s cspec, c byte) []byte {
	return fill(b, s, string([]byte{c}))
}

// fmtInt is %d, %i, %u, %o, %x or %X of a C argument of 32 or 64 bits
// (is64). bits holds the argument; signed verbs reinterpret it as signed.
func fmtInt(b []byte, s cspec, verb byte, bits uint64, is64 bool) []byte {
	if !is64 {
		bits &= math.MaxUint32
	}
	var neg bool
	mag := bits
	if verb == 'd' || verb == 'i' {
		v := int64(bits)
		if !is64 {
			v = int64(int32(uint32(bits)))
		}
		if v < 0 {
			neg = true
			mag = uint64(-v) // correct for MinInt64 too, as uint64
		} else {
			mag = uint64(v)
		}
	}
	base := 10
	switch verb {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if verb == 'X' {
		digits = upper(digits)
	}
	if s.prec == 0 && mag == 0 {
		digits = ""
	}
	if s.prec > len(digits) {
		digits = strings.Repeat("0", s.prec-len(digits)) + digits
	}
	var prefix string
	switch verb {
	case 'd', 'i':
		switch {
		case neg:
			prefix = "-"
		case s.plus:
			prefix = "+"
		case s.space:
			prefix = " "
		}
	case 'o':
		if s.alt && (digits == "" || digits[0] != '0') {
			digits = "0" + digits
		}
	case 'x':
		if s.alt && mag != 0 {
			prefix = "0x"
		}
	case 'X':
		if s.alt && mag != 0 {
			prefix = "0X"
		}
	}
	if n := s.width - len(prefix) - len(digits); s.zero && !s.left && s.prec < 0 && n > 0 {
		digits = strings.Repeat("0", n) + digits
	}
	return fill(b, s, prefix+digits)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// fmtFloat is %e, %E, %f, %g or %G of a double.
func fmtFloat(b []byte, s cspec, verb byte, f float64) []byte {
	prec := s.prec
	if prec < 0 {
		prec = 6
	}
	neg := math.Signbit(f)
	if neg {
		f = -f
	}
	var body string
	finite := !math.IsInf(f, 0) && !math.IsNaN(f)
	switch {
	case math.IsNaN(f):
		body = "nan"
	case math.IsInf(f, 0):
		body = "inf"
	case verb == 'f' || verb == 'F':
		body = strconv.FormatFloat(f, 'f', prec, 64)
		if s.alt && prec == 0 {
			body += "."
		}
	case verb == 'e' || verb == 'E':
		body = cExp(f, prec, s.alt)
	default: // g, G
		body = cGeneral(f, prec, s.alt)
	}
	if verb == 'E' || verb == 'G' || verb == 'F' {
		body = upper(body)
	}
	var sign string
	switch {
	case neg:
		sign = "-"
	case s.plus:
		sign = "+"
	case s.space:
		sign = " "
	}
	if n := s.width - len(sign) - len(body); finite && s.zero && !s.left && n > 0 {
		body = strings.Repeat("0", n) + body
	}
	return fill(b, s, sign+body)
}

// cExp formats f (>= 0) as C's %e: d.ddde+XX with at least two exponent
// digits, which is also what strconv produces.
func cExp(f float64, prec int, alt bool) string {
	body := strconv.FormatFloat(f, 'e', prec, 64)
	if alt && prec == 0 {
		i := indexByte(body, 'e')
		body = body[:i] + "." + body[i:]
	}
	return body
}

// cGeneral formats f (>= 0) as C's %g: style e when the exponent X is below
// -4 or at least the precision P, style f otherwise, with trailing zeros
// removed unless '#' is given.
func cGeneral(f float64, prec int, alt bool) string {
	p := prec
	if p == 0 {
		p = 1
	}
	e := strconv.FormatFloat(f, 'e', p-1, 64)
	x, _ := strconv.Atoi(e[indexByte(e, 'e')+1:])
	var body string
	if x < -4 || x >= p {
		body = e
	} else {
		body = strconv.FormatFloat(f, 'f', p-1-x, 64)
	}
	if alt {
		if indexByte(body, '.') < 0 {
			if i := indexByte(body, 'e'); i >= 0 {
				body = body[:i] + "." + body[i:]
			} else {
				body += "."
			}
		}
		return body
	}
	mant, exp := body, ""
	if i := indexByte(body, 'e'); i >= 0 {
		mant, exp = body[:i], body[i:]
	}
	if indexByte(mant, '.') >= 0 {
		for mant[len(mant)-1] == '0' {
			mant = mant[:len(mant)-1]
		}
		if mant[len(mant)-1] == '.' {
			mant = mant[:len(mant)-1]
		}
	}
	return mant + exp
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
