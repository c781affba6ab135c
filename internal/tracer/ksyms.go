package tracer

import (
	"github.com/sonde-trace/sonde/internal/d/printf"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/sym"
	"github.com/sonde-trace/sonde/internal/value"
)

// warnKernelSymbols says, once at start, when the program names kernel
// addresses (stack(), sym(), func(), mod(), printf's %a) and this process
// cannot read the kernel's symbol addresses: its frames would otherwise
// print as bare hexadecimal with no word of why.
func (s *Session) warnKernelSymbols(p *plan.Plan, readable func() error) {
	if !namesKernelAddresses(p) {
		return
	}
	if err := readable(); err != nil {
		s.opts.Warn("kernel addresses will print as hexadecimal: " + err.Error())
	}
}

// namesKernelAddresses reports whether any record or aggregation key of the
// plan is shown through the kernel's symbol table.
func namesKernelAddresses(p *plan.Plan) bool {
	for _, r := range p.Records {
		for _, a := range r.Actions {
			if fieldsNameKernel(a.Fields) || formatNamesKernel(a.Format) {
				return true
			}
		}
	}
	for _, a := range p.Aggs {
		if fieldsNameKernel(a.Keys) {
			return true
		}
	}
	return false
}

func fieldsNameKernel(fs []plan.Field) bool {
	for _, f := range fs {
		if f.Kind == plan.FKStack || (f.Kind == plan.FSym && (f.SymKind == value.Sym || f.SymKind == value.Mod)) {
			return true
		}
	}
	return false
}

// formatNamesKernel reports whether a printf()/printa() format has a %a
// conversion (a kernel address named as module`symbol+offset).
func formatNamesKernel(format string) bool {
	if format == "" {
		return false
	}
	spec, err := printf.Parse(format)
	if err != nil {
		return false
	}
	for _, c := range spec.Convs {
		if c.Verb == 'a' {
			return true
		}
	}
	return false
}

var kallsymsReadable = sym.KallsymsReadable
