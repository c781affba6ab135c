// Package compile runs the front end and the code generator over D
// sources: parse, check, generate. It is what cmd/sonde, the agent and the
// tests share to turn text into a plan.
package compile

import (
	"errors"

	"github.com/sonde-trace/sonde/internal/codegen"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// Source is one D program text and the name its positions carry.
type Source struct {
	Name string
	Text string
}

// Options for Compile.
type Options struct {
	Resolver    check.Resolver
	Macros      map[string]string
	ZeroMatches bool
	Destructive bool
	Codegen     codegen.Options
}

// Result is a compiled program.
type Result struct {
	Info *check.Info
	Plan *plan.Plan
}

// Parse parses every source; errors are returned as a diag.List.
func Parse(srcs []Source, macros map[string]string) ([]*ast.Program, error) {
	var progs []*ast.Program
	var errs diag.List
	for _, s := range srcs {
		p, perrs := parser.ParseFile(s.Name, []byte(s.Text), &parser.Options{Macros: macros})
		errs = append(errs, perrs...)
		if p != nil {
			progs = append(progs, p)
		}
	}
	return progs, errs.Err()
}

// Compile parses, checks and generates code.
func Compile(srcs []Source, o Options) (*Result, error) {
	progs, err := Parse(srcs, o.Macros)
	if err != nil {
		return nil, err
	}
	info, errs := check.Check(progs, check.Config{Resolver: o.Resolver, Macros: o.Macros,
		ZeroMatches: o.ZeroMatches, Destructive: o.Destructive, StrSize: o.Codegen.StrSize})
	if err := errs.Err(); err != nil {
		return &Result{Info: info}, err
	}
	if ow, ok := o.Resolver.(provider.Owners); ok && o.Codegen.Providers == nil {
		o.Codegen.Providers = ow
	}
	p, err := codegen.Generate(info, o.Codegen)
	if err != nil {
		var ce *codegen.Error
		if errors.As(err, &ce) {
			return &Result{Info: info}, diag.List{{Pos: ce.Pos, Msg: ce.Msg}}
		}
		return &Result{Info: info}, err
	}
	return &Result{Info: info, Plan: p}, nil
}
