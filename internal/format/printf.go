package format

import (
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/d/printf"
)

// Printf is a parsed format ready to render values.
type Printf struct {
	*printf.Spec
	// Location is the time zone of %Y and %T (DTrace uses local time);
	// nil means time.Local.
	Location *time.Location
}

// ParsePrintf parses a format (see printf.Parse) for rendering.
func ParsePrintf(src string) (*Printf, error) {
	f, err := printf.Parse(src)
	if err != nil {
		return nil, err
	}
	return &Printf{Spec: f}, nil
}

// spec builds the libc conversion DTrace hands to printf (dt_printf_format):
// the flags, then the width unless it is 0, then the precision only when it
// is positive. A negative dynamic width means '-' and its absolute value.
func spec(c *printf.Conv, width, prec int) cspec {
	s := cspec{prec: -1}
	for i := 0; i < len(c.Flags); i++ {
		switch c.Flags[i] {
		case '#':
			s.alt = true
		case '0':
			s.zero = true
		case '-':
			s.left = true
		case '+':
			s.plus = true
		case ' ':
			s.space = true
		}
	}
	width, prec = clampWidth(width), clampWidth(prec)
	if width < 0 {
		s.left = true
		width = -width
	}
	s.width = width
	if prec > 0 {
		s.prec = prec
	}
	return s
}

// hasFlag reports whether the conversion carries the flag.
func hasFlag(c *printf.Conv, f byte) bool { return strings.IndexByte(c.Flags, f) >= 0 }
