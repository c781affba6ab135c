package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/sonde-trace/sonde/internal/usdt"
	"github.com/sonde-trace/sonde/internal/usdt/header"
)

// genObject is -G: the object file build systems link with the objects
// (the arguments after the options) whose probes the -s scripts' providers
// define, as SystemTap's dtrace -G writes it on Linux: the probes'
// semaphores (package header, object.go). The objects are read, not
// changed: each must be an ELF object of one kind, which the output
// takes, and a probe they hold of a provider the scripts define must be
// one it defines. As dtrace -G, the output is -o's file, or d.out.
func (d *driver) genObject() int {
	if len(d.cfg.sources) == 0 {
		warnf(d.stderr, "-G requires one or more scripts or enabling options")
		return 2
	}
	progs, ok := d.parseDefinitions()
	if !ok {
		return 1
	}
	defined, err := header.Defined(progs)
	if err != nil {
		warnf(d.stderr, "failed to link script %s: %v", d.cfg.sources[0].Text, err)
		return 1
	}
	t := hostTarget()
	for i, path := range d.cfg.macroArgs {
		ot, err := checkObject(path, defined)
		if err != nil {
			warnf(d.stderr, "failed to link script %s: %v", d.cfg.sources[0].Text, err)
			return 1
		}
		if i == 0 {
			t = ot
		} else if ot != t {
			warnf(d.stderr, "failed to link script %s: %s is not the same kind of object as %s", d.cfg.sources[0].Text, path, d.cfg.macroArgs[0])
			return 1
		}
	}
	switch d.cfg.model {
	case 32:
		t.Class = elf.ELFCLASS32
		if t.Machine == elf.EM_X86_64 {
			t.Machine = elf.EM_386
		}
	case 64:
		t.Class = elf.ELFCLASS64
		if t.Machine == elf.EM_386 {
			t.Machine = elf.EM_X86_64
		}
	}
	out := d.cfg.output
	if out == "" {
		out = "d.out"
	}
	var b bytes.Buffer
	if err := header.Object(&b, progs, t); err != nil {
		warnf(d.stderr, "failed to link script %s: %v", d.cfg.sources[0].Text, err)
		return 1
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		warnf(d.stderr, "failed to write %s: %v", out, err)
		return 1
	}
	return 0
}

// hostTarget is the kind of object of the machine sonde runs on.
func hostTarget() header.Target {
	t := header.Target{Class: elf.ELFCLASS64, Data: elf.ELFDATA2LSB, Machine: elf.EM_X86_64}
	if runtime.GOARCH == "arm64" {
		t.Machine = elf.EM_AARCH64
	}
	return t
}

// checkObject reads an object given to -G: its kind, and its probes of
// the providers defined, which must be defined.
func checkObject(path string, defined map[string]map[string]bool) (header.Target, error) {
	f, err := elf.Open(path)
	if err != nil {
		return header.Target{}, fmt.Errorf("failed to process %s: not an ELF object (%w)", path, err)
	}
	defer f.Close()
	t := header.Target{Class: f.Class, Data: f.Data, Machine: f.Machine}
	sec := f.Section(".note.stapsdt")
	if sec == nil {
		return t, nil
	}
	data, err := sec.Data()
	if err != nil {
		return t, fmt.Errorf("failed to process %s: %w", path, err)
	}
	notes, err := usdt.ParseNotes(data, f.ByteOrder, sec.Addralign)
	if err != nil {
		return t, fmt.Errorf("failed to process %s: %w", path, err)
	}
	size := 8
	if f.Class == elf.ELFCLASS32 {
		size = 4
	}
	var errs []error
	for _, n := range notes {
		if n.Owner != "stapsdt" || n.Type != 3 {
			continue
		}
		p, err := usdt.ParseStapsdt(n.Desc, f.ByteOrder, size)
		if err != nil {
			return t, fmt.Errorf("failed to process %s: %w", path, err)
		}
		if names, ok := defined[p.Provider]; ok && !names[p.Name] {
			errs = append(errs, fmt.Errorf("%s: probe %s:::%s is not defined by provider %s", path, p.Provider, usdt.DTraceName(p.Name), p.Provider))
		}
	}
	return t, errors.Join(errs...)
}
