package check

import (
	"errors"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/format"
)

// classOf returns the printf argument class of a type.
func classOf(t *Type) format.ArgClass {
	switch t.Kind {
	case Int:
		c := format.ArgInt
		if t.Size <= 4 {
			c |= format.ArgSmallInt
		}
		if t.Size == 8 {
			c |= format.ArgInt64
		}
		return c
	case Pointer:
		return format.ArgPointer | format.ArgInt | format.ArgInt64
	case String:
		return format.ArgString
	case Stack:
		return format.ArgStack
	case Sym:
		switch t.SymK {
		case SymKernel, SymMod:
			return format.ArgSymAddr | format.ArgInt
		}
		return format.ArgUSymAddr | format.ArgInt
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
	pf, err := format.ParsePrintf(k.Str)
	if err != nil {
		var fe *format.Error
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
			c.errorf(x.Args[i].Pos(), "D_PRINTF_AGGCONV", "%s( ) format conversion #%d: %%@ is only valid in printa( )", calleeName(x), cv.Index)
			return
		}
		need := cv.Args()
		for j := 0; j < need; j++ {
			if n >= len(args) {
				c.errorf(x.Rparen, "D_PRINTF_ARG_PROTO", "%s( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding value argument", calleeName(x), cv.Index, cv.Name)
				return
			}
			t := c.info.Types[args[n]]
			star := j < need-1 || (cv.Verb == '%')
			want := cv.Accepts
			if star {
				want = format.ArgInt
			}
			if t != nil && classOf(t)&want == 0 {
				c.errorf(args[n].Pos(), "D_PRINTF_ARG_TYPE", "%s( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s", calleeName(x), i+n+2, cv.Index, cv.Name, want, t)
				return
			}
			n++
		}
	}
	if n < len(args) {
		c.errorf(args[n].Pos(), "D_PRINTF_ARG_EXTRA", "%s( ) prototype mismatch: only %d arguments required by this format string", calleeName(x), n)
	}
}
