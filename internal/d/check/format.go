package check

import (
	"errors"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/printf"
)

// classOf returns the printf argument class of a type.
func classOf(t *Type) printf.ArgClass {
	switch t.Kind {
	case Int:
		c := printf.ArgInt
		if t.Size <= 4 {
			c |= printf.ArgSmallInt
		}
		if t.Size == 8 {
			c |= printf.ArgInt64
		}
		return c
	case Pointer:
		return printf.ArgPointer | printf.ArgInt | printf.ArgInt64
	case String:
		return printf.ArgString
	case Stack:
		return printf.ArgStack
	case Sym:
		switch t.SymK {
		case SymKernel, SymMod:
			return printf.ArgSymAddr | printf.ArgInt
		}
		return printf.ArgUSymAddr | printf.ArgInt
	}
	return 0
}

// checkFormat validates a printf-style format (argument i of x) against
// the arguments that follow it, as dt_printf_validate does.
func (c *checker) checkFormat(x *ast.CallExpr, i int) {
	k, ok := c.info.Consts[ast.Unparen(x.Args[i])]
	if !ok || !k.IsStr {
		return
	}
	if k.Str == "" {
		c.errorf(x.Args[i].Pos(), "D_PRINTF_FMT_EMPTY", "%s( ) format string is empty", calleeName(x))
		return
	}
	pf, err := printf.Parse(k.Str)
	if err != nil {
		var fe *printf.Error
		tag := "D_PRINTF_FMT"
		if errors.As(err, &fe) && fe.Tag != "" {
			tag = fe.Tag
		}
		c.errorf(x.Args[i].Pos(), tag, "%s( ) %v", calleeName(x), err)
		return
	}
	args := x.Args[i+1:]
	n := 0
	for _, cv := range pf.Convs {
		if cv.Agg {
			c.errorf(x.Args[i].Pos(), "D_PRINTF_AGG_CONV", "%%@ conversion requires an aggregation and is not for use with %s( )", calleeName(x))
			return
		}
		need := cv.Args()
		for j := 0; j < need; j++ {
			star := j < need-1 || (cv.Verb == '%')
			dyn := "*" // the width's argument comes first, then the precision's
			if cv.PrecStar && (!cv.WidthStar || j == 1) {
				dyn = ".*"
			}
			if n >= len(args) {
				if star {
					c.errorf(x.Rparen, "D_PRINTF_DYN_PROTO", "%s( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding \"%s\" argument", calleeName(x), cv.Index, cv.Name, dyn)
					return
				}
				c.errorf(x.Rparen, "D_PRINTF_ARG_PROTO", "%s( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding value argument", calleeName(x), cv.Index, cv.Name)
				return
			}
			t := c.info.Types[args[n]]
			want := cv.Accepts
			if cv.Print == printf.UAddr && !c.hasTarget() {
				// pfcheck_uaddr: an integer names a user address only
				// in the process -c or -p gives
				want &^= printf.ArgInt | printf.ArgPointer
			}
			if star {
				if t != nil && t.Kind != Int {
					c.errorf(args[n].Pos(), "D_PRINTF_DYN_TYPE", "%s( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %% %s %s\n\t prototype: int\n\t  argument: %s", calleeName(x), i+n+2, cv.Index, dyn, cv.Name, t)
					return
				}
				n++
				continue
			}
			if t != nil && classOf(t)&want != 0 && !sizedOK(cv, t) {
				want = 0
			}
			if t != nil && classOf(t)&want == 0 {
				c.errorf(args[n].Pos(), "D_PRINTF_ARG_TYPE", "%s( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s", calleeName(x), i+n+2, cv.Index, cv.Name, cv.Proto, t)
				return
			}
			n++
		}
	}
	if n < len(args) {
		c.errorf(args[n].Pos(), "D_PRINTF_ARG_EXTRA", "%s( ) prototype mismatch: only %d arguments required by this format string", calleeName(x), n)
	}
}

// sizedOK applies the exact checks of the sized integer conversions
// (pfcheck_type, pfcheck_xshort, pfcheck_xlong, pfcheck_xlonglong): %hd,
// %ld and %lld want a signed integer of that size, %hu, %lu and %llu an
// unsigned one, %hx, %lx and %llx either; "hh" is char.
func sizedOK(cv printf.Conv, t *Type) bool {
	size := map[string]int{"h": 2, "hh": 1, "l": 8, "ll": 8}[cv.Size]
	if size == 0 {
		return true
	}
	switch cv.Verb {
	case 'd', 'i', 'o', 'u', 'x', 'X':
	default:
		return true
	}
	if t.Kind != Int || t.Size != size {
		return false
	}
	switch cv.Verb {
	case 'd', 'i':
		return t.Signed
	case 'o', 'u':
		return !t.Signed
	}
	return true
}

// hasTarget reports whether -c or -p gave a process ($target is not 0).
func (c *checker) hasTarget() bool {
	v := c.cfg.Macros["target"]
	return v != "" && v != "0"
}

// checkAggFormat validates printa()'s format (argument #1 of x) against
// the keys of the aggregation v, as dt_printf_validate does for
// DT_PRINTF_AGGREGATION: each conversion but %@ takes the next key, which
// must exist and suit it. Keys left over are printed by nothing, which is
// allowed.
func (c *checker) checkAggFormat(x *ast.CallExpr, v *Var) {
	k, ok := c.info.Consts[ast.Unparen(x.Args[0])]
	if !ok || !k.IsStr || k.Str == "" || !v.HasFunc {
		return
	}
	pf, err := printf.Parse(k.Str)
	if err != nil {
		return // reported by checkFormat's rules where printf parses it
	}
	n := 0
	for _, cv := range pf.Convs {
		if cv.Agg || cv.Verb == '%' {
			continue
		}
		if cv.WidthStar || cv.PrecStar {
			return // widths from keys: left to the run time
		}
		if n >= len(v.Keys) {
			c.errorf(x.Args[0].Pos(), "D_PRINTF_ARG_PROTO", "printa( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding value argument", cv.Index, cv.Name)
			return
		}
		t := v.Keys[n]
		want := cv.Accepts
		if cv.Print == printf.UAddr && !c.hasTarget() {
			want &^= printf.ArgInt | printf.ArgPointer
		}
		if t != nil && classOf(t)&want == 0 {
			c.errorf(x.Args[0].Pos(), "D_PRINTF_ARG_TYPE", "printa( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s", n+2, cv.Index, cv.Name, cv.Proto, t)
			return
		}
		n++
	}
}
