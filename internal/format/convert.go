package format

// Formatting of printf()/printa() conversions: dt_printf_format() and the
// pfprint_* functions of dt_printf.c.

import (
	"errors"
	"fmt"
	"github.com/sonde-trace/sonde/internal/d/printf"
	"io"
	"strconv"
	"time"

	"github.com/sonde-trace/sonde/internal/value"
)

// errNoArg is returned when a format has more conversions than arguments
// (DTrace's EDT_DMISMATCH; the D compiler prevents it for printf()).
var errNoArg = errors.New("format: more conversions than arguments")

// aggDatum is the value a %@ conversion formats: one aggregation's result
// for the row being printed.
type aggDatum struct {
	fn     value.AggFunc
	params value.AggParams
	val    value.AggValue
	normal uint64
}

// source feeds a format its operands: printf()'s arguments, or for
// printa() the row's keys followed, for each %@, by the next aggregation.
type source struct {
	names value.Namer // for %a and %A of integers; nil: print numbers
	args  []value.Value
	next  int
	aggs  []aggDatum
	cur   int // next %@ takes aggs[cur]; it sticks on the last one
}

func (s *source) arg() (value.Value, error) {
	if s.next >= len(s.args) {
		return value.Value{}, errNoArg
	}
	v := s.args[s.next]
	s.next++
	return v, nil
}

func (s *source) agg() (aggDatum, error) {
	if len(s.aggs) == 0 {
		return aggDatum{}, errors.New("format: %@ conversion without an aggregation")
	}
	d := s.aggs[s.cur]
	// dt_printf_format: "We increment the current aggregation variable,
	// but not beyond the number of aggregation variables that we're
	// printing", so extra %@ repeat the last aggregation.
	if s.cur < len(s.aggs)-1 {
		s.cur++
	}
	return d, nil
}

// Format writes the format with its arguments, in order; arguments for
// '*' widths and precisions come before the value they apply to, as in C.
// It is printf(); %@ conversions are an error here (printa() only).
func (p *Printf) Format(w io.Writer, args []value.Value) error {
	return p.FormatNamed(w, args, nil)
}

// FormatNamed is Format with names for the integers %a and %A print.
func (p *Printf) FormatNamed(w io.Writer, args []value.Value, names value.Namer) error {
	b, err := p.render(nil, &source{args: args, names: names})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Sprint is Format into a string (for sprintf-like uses and tests).
func (p *Printf) Sprint(args []value.Value) (string, error) {
	b, err := p.render(nil, &source{args: args})
	return string(b), err
}

func (p *Printf) loc() *time.Location {
	if p.Location != nil {
		return p.Location
	}
	return time.Local
}

// render appends the formatted text.
func (p *Printf) render(b []byte, src *source) ([]byte, error) {
	for _, pc := range p.Pieces {
		b = append(b, pc.Text...)
		if pc.Conv < 0 {
			continue
		}
		var err error
		if b, err = p.conv(b, &p.Convs[pc.Conv], src); err != nil {
			return b, err
		}
	}
	return b, nil
}

// conv appends one conversion.
func (p *Printf) conv(b []byte, c *printf.Conv, src *source) ([]byte, error) {
	if c.Print == printf.Pct {
		return append(b, '%'), nil
	}
	width, prec := c.Width, c.Prec
	dynwidth := 0
	if c.WidthStar {
		v, err := src.arg()
		if err != nil {
			return b, err
		}
		width = getint(v)
		dynwidth = width
	}
	if c.PrecStar {
		v, err := src.arg()
		if err != nil {
			return b, err
		}
		prec = getint(v)
	}
	if c.Agg {
		d, err := src.agg()
		if err != nil {
			return b, err
		}
		return p.aggConv(b, c, d, width, prec)
	}
	v, err := src.arg()
	if err != nil {
		return b, err
	}
	return p.valueConv(b, c, v, src.names, 1, width, prec, dynwidth)
}

// getint is dt_printf_getint: a '*' argument read as a C int.
func getint(v value.Value) int {
	if v.Kind != value.Int {
		return 0
	}
	return int(int32(signExtend(v)))
}

// signExtend returns an integer value sign-extended from its size.
func signExtend(v value.Value) int64 {
	switch v.Size {
	case 1:
		return int64(int8(v.Int))
	case 2:
		return int64(int16(v.Int))
	case 4:
		return int64(int32(v.Int))
	}
	return v.Int
}

// zeroExtend returns an integer value zero-extended from its size.
func zeroExtend(v value.Value) uint64 {
	switch v.Size {
	case 1:
		return uint64(uint8(v.Int))
	case 2:
		return uint64(uint16(v.Int))
	case 4:
		return uint64(uint32(v.Int))
	}
	return uint64(v.Int)
}

// is64 reports whether DTrace passes the value to libc as a 64-bit
// argument ("ll" prefix): records of 8 bytes. Smaller ones go as 32 bits.
func is64(v value.Value) bool { return v.Size != 1 && v.Size != 2 && v.Size != 4 }

// sintArg is pfprint_sint's argument: sign-extended, then divided by the
// normalization (as int32 for records up to 4 bytes, as in C).
func sintArg(v value.Value, normal uint64) uint64 {
	x := signExtend(v)
	if is64(v) {
		if n := int64(normal); n != 0 {
			x /= n
		}
		return uint64(x)
	}
	y := int32(x)
	if n := int32(normal); n != 0 {
		y /= n
	}
	return uint64(uint32(y))
}

// uintArg is pfprint_uint's argument: zero-extended, divided unsigned.
func uintArg(v value.Value, normal uint64) uint64 {
	x := zeroExtend(v)
	if is64(v) {
		if normal != 0 {
			x /= normal
		}
		return x
	}
	y := uint32(x)
	if n := uint32(normal); n != 0 {
		y /= n
	}
	return uint64(y)
}

// valueConv formats a printf() argument or a printa() key.
func (p *Printf) valueConv(b []byte, c *printf.Conv, v value.Value, names value.Namer, normal uint64, width, prec, dynwidth int) ([]byte, error) {
	s := spec(c, width, prec)
	switch v.Kind {
	case value.Mod, value.UMod:
		// dt_printf_format uses pfprint_mod/pfprint_umod for mod() and
		// umod() records, whatever the conversion.
		return fmtString(b, s, v.Str), nil
	}
	switch c.Print {
	case printf.Sint, printf.Uint, printf.Dint:
		if !isInteger(v) {
			return b, mismatch(c, v)
		}
		u := uintArg(intOf(v), normal)
		verb := c.Ofmt
		switch {
		case c.Print == printf.Sint || (c.Print == printf.Dint && v.Signed):
			// %d of a signed type sign-extends: "%d" of (char)0xef
			// prints -17 (tst.ints.d.out).
			u = sintArg(intOf(v), normal)
			if verb == 'd' {
				verb = 'i'
			}
		case c.Print == printf.Dint:
			verb = 'u' // pfcheck_dint: unsigned types print as %u
		}
		if verb == 'c' {
			return fmtChar(b, s, byte(u)), nil
		}
		return fmtInt(b, s, verb, u, is64(intOf(v))), nil
	case printf.Float:
		if !isInteger(v) {
			return b, mismatch(c, v)
		}
		f := float64(uintArg(intOf(v), 1))
		if v.Signed {
			f = float64(signExtend(intOf(v)))
		}
		return fmtFloat(b, s, c.Ofmt, f/float64(normal)), nil
	case printf.Addr, printf.UAddr:
		switch v.Kind {
		case value.Sym, value.USym, value.UAddr:
			return fmtString(b, s, v.Str), nil
		case value.Int:
			return fmtString(b, s, addrName(names, c.Print, zeroExtend(v))), nil
		}
		return b, mismatch(c, v)
	case printf.Stack:
		if v.Kind != value.Stack && v.Kind != value.UStack {
			return b, mismatch(c, v)
		}
		return stackConv(b, c, v, s, dynwidth), nil
	case printf.Time, printf.Time822:
		if v.Kind != value.Int {
			return b, mismatch(c, v)
		}
		t := time.Unix(signExtend(v)/1e9, 0).In(p.loc())
		if c.Print == printf.Time {
			return fmtString(b, s, ctimeY(t)), nil
		}
		return fmtString(b, s, time822(t)), nil
	case printf.Cstr:
		if !isText(v) {
			return b, mismatch(c, v)
		}
		return fmtString(b, s, cstring(v.Str)), nil
	case printf.Estr:
		if !isText(v) {
			return b, mismatch(c, v)
		}
		rec := []byte(v.Str)
		if v.Size > len(v.Str) {
			rec = stringRecord(v)
		}
		return fmtString(b, s, strchr2esc(rec)), nil
	case printf.Echr:
		if !isInteger(v) {
			return b, mismatch(c, v)
		}
		return fmtString(b, s, strchr2esc([]byte{byte(signExtend(intOf(v)))})), nil
	}
	return b, mismatch(c, v)
}

// aggConv formats a %@ conversion: the aggregation's result, or its whole
// plot for the quantizing functions (dt_printf_format picks
// pfprint_average, pfprint_stddev or pfprint_*quantize by the record's
// action, whatever the conversion).
func (p *Printf) aggConv(b []byte, c *printf.Conv, d aggDatum, width, prec int) ([]byte, error) {
	switch d.fn {
	case value.Quantize, value.Lquantize, value.Llquantize:
		return appendPlot(b, d.fn, d.params, d.val.Buckets, d.normal)
	case value.Avg, value.Stddev:
		var r uint64
		if d.fn == value.Avg {
			// pfprint_average divides unsigned: data[1] / normal / data[0].
			if d.val.Count != 0 && d.normal != 0 {
				r = uint64(d.val.Sum) / d.normal / uint64(d.val.Count)
			}
		} else {
			r = stddev(d.val, d.normal)
		}
		return aggScalar(b, c, d.fn, r, spec(c, width, prec)), nil
	}
	v := aggResult(d.fn, d.val)
	c2 := *c
	c2.Agg = false
	return p.valueConv(b, &c2, v, nil, d.normal, width, prec, 0)
}

// aggScalar formats the 64-bit result of avg() or stddev() with the
// conversion's libc letter (%d is %lli, or %llu for count()).
func aggScalar(b []byte, c *printf.Conv, fn value.AggFunc, r uint64, s cspec) []byte {
	verb := c.Ofmt
	if c.Print == printf.Dint {
		verb = 'i'
		if fn == value.Count {
			verb = 'u'
		}
	}
	switch verb {
	case 'c':
		return fmtChar(b, s, byte(r))
	case 'd', 'i', 'u', 'o', 'x', 'X':
		return fmtInt(b, s, verb, r, true)
	case 'e', 'E', 'f', 'g', 'G':
		return fmtFloat(b, s, verb, float64(int64(r)))
	}
	return fmtString(b, s, strconv.FormatUint(r, 10))
}

// aggResult is the record an aggregating function leaves for %@: count()
// is a uint64_t, the others int64_t (dt_printf_validate's aggnode).
func aggResult(fn value.AggFunc, v value.AggValue) value.Value {
	switch fn {
	case value.Count:
		return value.UintValue(uint64(v.Count))
	case value.Sum:
		return value.IntValue(v.Sum)
	case value.Min:
		return value.IntValue(v.Min)
	case value.Max:
		return value.IntValue(v.Max)
	}
	return value.IntValue(0)
}

func isInteger(v value.Value) bool {
	switch v.Kind {
	case value.Int, value.Sym, value.USym, value.UAddr:
		return true
	}
	return false
}

// intOf returns v as an integer record: symbol addresses are 8 bytes.
func intOf(v value.Value) value.Value {
	if v.Kind == value.Int {
		return v
	}
	return value.UintValue(v.Addr)
}

func isText(v value.Value) bool {
	switch v.Kind {
	case value.String, value.Sym, value.USym, value.UAddr:
		return true
	}
	return false
}

// cstring cuts a string at its first NUL, as libc does.
func cstring(s string) string {
	if i := indexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func mismatch(c *printf.Conv, v value.Value) error {
	return fmt.Errorf("format: conversion #%d (%%%s) cannot format a %s value", c.Index, c.Name, kindName(v.Kind))
}

func kindName(k value.Kind) string {
	names := [...]string{"integer", "string", "stack", "user stack", "symbol", "user symbol",
		"module", "user module", "user address", "bytes"}
	if int(k) >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// stackConv is pfprint_stack: "%k" prints the stack with no indent, each
// frame formatted with the conversion; with the '-' flag the width becomes
// the indent instead ("%-#k" in DTrace's words), as does a negative '*'.
func stackConv(b []byte, c *printf.Conv, v value.Value, s cspec, dynwidth int) []byte {
	indent := 0
	switch {
	case dynwidth < 0:
		indent = -dynwidth
	case hasFlag(c, '-'):
		indent = s.width
		if dynwidth != 0 {
			indent = dynwidth
		}
		s.width = 0 // dt_printf_format: no width for a left-aligned stack
	}
	return appendStack(b, v.Frames, clampWidth(indent), s)
}

// ctimeY is pfprint_time: ctime(3C)'s "Dec  3 17:20:00 1973" turned into
// "1973 Dec  3 17:20:00" by taking bytes 20-23 and then 3-18.
func ctimeY(t time.Time) string {
	src := t.Format("Mon Jan _2 15:04:05 2006")
	if len(src) < 24 {
		return src
	}
	return src[20:24] + src[3:19]
}

// time822 is pfprint_time822: strftime "%a, %d %b %G %T %Z".
func time822(t time.Time) string {
	y, _ := t.ISOWeek()
	return t.Format("Mon, 02 Jan ") + strconv.Itoa(y) + t.Format(" 15:04:05 MST")
}

// strchr2esc is dt_string.c's: C escapes for NUL, \a \b \f \n \r \t \v, '"'
// and '\\'; other bytes outside '!'..'~' (except space) as three octal
// digits.
func strchr2esc(s []byte) string {
	var b []byte
	for _, c := range s {
		switch c {
		case 0:
			b = append(b, '\\', '0')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\v':
			b = append(b, '\\', 'v')
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case ' ':
			b = append(b, c)
		default:
			if c < '!' || c > '~' {
				b = append(b, '\\', '0'+(c>>6)&3, '0'+(c>>3)&7, '0'+c&7)
			} else {
				b = append(b, c)
			}
		}
	}
	return string(b)
}

// stringRecord returns a string as DTrace records it: its bytes, NUL
// padded to the record size (value.Value.Size, strsize in DTrace) when that
// is known, else followed by a single NUL.
func stringRecord(v value.Value) []byte {
	n := len(v.Str) + 1
	if v.Size > n {
		n = v.Size
	}
	if n > 1<<20 {
		n = 1 << 20
	}
	b := make([]byte, n)
	copy(b, v.Str)
	return b
}

// addrName is dtrace_addr2str (%a) or dtrace_uaddr2str (%A) of an integer:
// the symbol containing it and the offset, or the raw address when there
// are no names or no process to look in.
func addrName(names value.Namer, print printf.Kind, a uint64) string {
	if names != nil {
		if print == printf.Addr {
			return names.KernelAddr(a)
		}
		if s, ok := names.UserAddr(a); ok {
			return s
		}
	}
	return "0x" + strconv.FormatUint(a, 16)
}
