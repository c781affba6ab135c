package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/usdt/header"
)

// genHeader is -h: the provider definitions of the -s scripts become a C
// header of PROVIDER_PROBE() and PROVIDER_PROBE_ENABLED() macros emitting
// standard .note.stapsdt probes with semaphores. As dtrace -h, the output
// is -o's file, or the script's name with .d replaced by .h.
func (d *driver) genHeader() int {
	var scripts []tracer.Source
	for _, s := range d.cfg.sources {
		if s.Kind != tracer.File {
			warnf(d.stderr, "-h takes provider definitions from -s scripts, not -%c", flagOf(s.Kind))
			return 2
		}
		scripts = append(scripts, s)
	}
	if len(scripts) == 0 {
		warnf(d.stderr, "-h requires one or more scripts or enabling options")
		return 2
	}
	out := d.cfg.output
	if out == "" {
		if len(scripts) > 1 {
			warnf(d.stderr, "-h requires an output file if multiple scripts are specified")
			return 2
		}
		base := filepath.Base(scripts[0].Text)
		if !strings.HasSuffix(base, ".d") {
			warnf(d.stderr, "-h requires an output file if no scripts are specified")
			return 2
		}
		out = strings.TrimSuffix(base, ".d") + ".h"
	}
	progs, ok := d.parseDefinitions()
	if !ok {
		return 1
	}
	var b bytes.Buffer
	if err := header.Generate(&b, progs, header.Options{Source: scripts[0].Text, Guard: header.GuardFromPath(out)}); err != nil {
		warnf(d.stderr, "failed to create header file %s: %v", out, err)
		return 1
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		warnf(d.stderr, "failed to create header file %s: %v", out, err)
		return 1
	}
	return 0
}

// parseDefinitions parses the -s scripts (their provider definitions, for
// -h and -G), reporting errors.
func (d *driver) parseDefinitions() ([]*ast.Program, bool) {
	srcs := diag.Sources{}
	var progs []*ast.Program
	var errs diag.List
	for _, s := range d.cfg.sources {
		name, text, orig, err := s.LoadCpp(d.cfg.cpp, d.cfg.cppArgs)
		if err != nil {
			warnf(d.stderr, "%v", err)
			return nil, false
		}
		srcs[name] = orig
		prog, perrs := parser.ParseFile(name, []byte(text), &parser.Options{})
		errs = append(errs, perrs...)
		if prog != nil {
			progs = append(progs, prog)
		}
	}
	for _, e := range errs {
		fmt.Fprint(d.stderr, diag.Render(e, srcs, errtags(d.cfg.xopts)))
	}
	return progs, len(errs) == 0
}

// errtags reports whether -x errtags is among the options.
func errtags(xopts []string) bool {
	for _, x := range xopts {
		if x == "errtags" {
			return true
		}
	}
	return false
}
