package tracer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
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
	pid int
	sig string // the executable mappings last seen
	at  time.Time
	off bool
}

const lateInterval = 50 * time.Millisecond

// startLate begins following pid from the mappings its probes were
// matched against: a library it mapped since (while the probes were being
// placed, say) is placed at the first look.
func (s *Session) startLate(pid int) {
	if s.prog.user == nil || pid == 0 {
		return
	}
	s.late = &late{pid: pid, sig: s.prog.mapped}
}

// followLate places the probes of objects mapped since it last looked.
func (s *Session) followLate() {
	l := s.late
	if l == nil || l.off || time.Since(l.at) < lateInterval {
		return
	}
	l.at = time.Now()
	sig, err := execMappings(l.pid)
	if err != nil || sig == l.sig {
		return // gone, or nothing new
	}
	l.sig = sig
	p, err := s.prog.Regenerate()
	if err == nil && p != nil {
		var n int
		n, err = s.rt.AddUprobes(p)
		s.c.AddProbes(p.Probes)
		if n > 0 && s.opts.Verbose {
			s.opts.Warn(fmt.Sprintf("pid %d: %d new probe site%s placed in objects loaded since", l.pid, n, plural(n)))
		}
	}
	s.reportUnplaced(s.rt.TakeUnplaced())
	if err != nil {
		l.off = true
		if errors.Is(err, syscall.ESRCH) || exited(l.pid) {
			// it exited while its new objects were being read: there is
			// nothing to place probes in (the exit is reported)
			return
		}
		if r := s.prog.Render(err); r != "" {
			s.opts.Warn(fmt.Sprintf("pid %d mapped new objects, but the program no longer compiles against them:\n%s", l.pid, strings.TrimSuffix(r, "\n")))
			return
		}
		s.opts.Warn(fmt.Sprintf("pid %d: placing probes in objects loaded since: %v", l.pid, err))
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

// exited reports whether pid is gone or a zombie: its mappings can no
// longer be read.
func exited(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return true
	}
	st := data[i+2]
	return st == 'Z' || st == 'X' || st == 'x'
}
