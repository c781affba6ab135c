package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/codegen"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/runtime"
)

// late follows the objects a traced process (-p or -c) maps after the
// probes were placed, as dtrace does with the dynamic linker's events:
// when its executable mappings change (dlopen), the program is checked
// and generated again against the same registry, so probes already known
// keep their IDs and new ones (functions and USDT probes of the new
// library) get theirs, and the sites not yet placed are attached.
//
// dtrace stops the process at the dynamic linker's breakpoint; sonde does
// not stop it, and looks every lateInterval: calls into a library in the
// first moments after it was loaded can be missed.
type late struct {
	pid   int
	progs []*ast.Program
	cfg   check.Config
	gen   codegen.Options
	sig   string // the executable mappings last seen
	at    time.Time
	off   bool
}

const lateInterval = 50 * time.Millisecond

// startLate begins following pid, whose mappings are those the probes
// were placed for.
func (d *driver) startLate(pid int, gen codegen.Options) {
	if d.late == nil || pid == 0 {
		d.late = nil
		return
	}
	d.late.pid, d.late.gen = pid, gen
	d.late.sig, _ = execMappings(pid)
	d.late.at = time.Now()
}

// followLate places the probes of objects the target has mapped since the
// last look. Errors are reported once, and following stops.
func (d *driver) followLate(sess *runtime.Session) {
	l := d.late
	if l == nil || l.off || time.Since(l.at) < lateInterval {
		return
	}
	l.at = time.Now()
	sig, err := execMappings(l.pid)
	if err != nil || sig == l.sig {
		return // gone, or nothing new
	}
	l.sig = sig
	info, errs := check.Check(l.progs, l.cfg)
	if len(errs) > 0 {
		l.off = true
		warnf(d.stderr, "pid %d mapped new objects, but the program no longer compiles against them:", l.pid)
		d.report(errs)
		return
	}
	p, err := codegen.Generate(info, l.gen)
	if err == nil {
		var n int
		n, err = sess.AddUprobes(p)
		if d.consumer != nil {
			d.consumer.AddProbes(p.Probes)
		}
		if n > 0 && d.cfg.verbose {
			warnf(d.stderr, "pid %d: %d new probe site%s placed in objects loaded since", l.pid, n, plural(n))
		}
	}
	d.reportUnplaced(sess.TakeUnplaced())
	if err != nil {
		l.off = true
		var ce *codegen.Error
		if errors.As(err, &ce) {
			err = fmt.Errorf("%s", ce.Msg)
		}
		warnf(d.stderr, "pid %d: placing probes in objects loaded since: %v", l.pid, err)
	}
}

// execMappings describes the executable file mappings of pid: what
// changes when it loads or unloads a library.
func execMappings(pid int) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// start-end perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) < 6 || len(f[1]) < 3 || f[1][2] != 'x' || f[4] == "0" {
			continue
		}
		b.WriteString(f[3])
		b.WriteByte(' ')
		b.WriteString(f[4])
		b.WriteByte(' ')
		b.WriteString(f[0])
		b.WriteByte('\n')
	}
	return b.String(), nil
}
