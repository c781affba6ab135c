package main

import (
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/lib"
)

// loadLibs reads the D libraries (package lib describes the search path:
// -L, -x libdir, $SONDE_LIBDIR, the built-in directory) unless -x nolibs
// is set; their texts join d.srcs for error messages. It reports false
// after printing errors.
func (d *driver) loadLibs() ([]*lib.Library, bool) {
	var optDirs []string
	for _, x := range d.cfg.xopts {
		name, val, _ := strings.Cut(x, "=")
		switch name {
		case "nolibs":
			return nil, true
		case "libdir":
			optDirs = append(optDirs, val)
		}
	}
	libs, errs, err := lib.Load(lib.Path(d.cfg.libdirs, optDirs))
	if err != nil {
		warnf(d.stderr, "%v", err)
		return nil, false
	}
	for _, l := range libs {
		d.srcs[l.Path] = l.Text
	}
	if len(errs) > 0 {
		d.report(errs)
		return nil, false
	}
	return libs, true
}

// libPrograms returns the programs of the libraries that apply: those
// whose depends_on providers have probes (d.reg must be set).
func (d *driver) libPrograms(libs []*lib.Library) []*ast.Program {
	return lib.Programs(lib.Select(libs, func(name string) bool {
		return check.ProviderExists(d.reg, name)
	}))
}
