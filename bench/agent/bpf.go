package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
)

// progs are the tracing programs a process holds (through bpf-prog or
// bpf_link fds), found by the prog_id in /proc/PID/fdinfo. links is how
// many bpf_link fds it holds: a program is attached once its link exists.
type progs struct {
	list  []*ebpf.Program
	links int
}

// tracing are the program types a dataset's D or the floor attaches.
var tracing = map[ebpf.ProgramType]bool{ebpf.RawTracepoint: true, ebpf.TracePoint: true, ebpf.PerfEvent: true, ebpf.Kprobe: true}

// programsOf opens the tracing programs pid holds.
func programsOf(pid int) (*progs, error) {
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &progs{}
	seen := map[ebpf.ProgramID]bool{}
	for _, e := range ents {
		id, link, ok := fdinfoProg(filepath.Join(dir, e.Name()))
		if !ok {
			continue
		}
		if link {
			p.links++
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		prog, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // unloaded since
		}
		if !tracing[prog.Type()] {
			prog.Close()
			continue
		}
		p.list = append(p.list, prog)
	}
	return p, nil
}

// fdinfoProg is the prog_id of a bpf-prog or bpf_link fd, and whether it
// is a link.
func fdinfoProg(name string) (id ebpf.ProgramID, link, ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		switch {
		case !found:
		case k == "link_type":
			link = true
		case k == "prog_id":
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			id, ok = ebpf.ProgramID(n), err == nil
		}
	}
	return id, link, ok
}

func (p *progs) close() {
	for _, prog := range p.list {
		prog.Close()
	}
}

// runStats sums the programs' run counts and run times (BPF_ENABLE_STATS
// must be held).
func (p *progs) runStats() (runs, ns uint64, err error) {
	for _, prog := range p.list {
		st, err := prog.Stats()
		if err != nil {
			return 0, 0, err
		}
		runs += st.RunCount
		ns += uint64(st.Runtime.Nanoseconds())
	}
	return runs, ns, nil
}

// identity describes the programs as the kernel has them: name, tag (a
// hash of the instructions as loaded, map references zeroed: equal tags
// are the same code), and the sizes of the translated and JITed code.
func (p *progs) identity() string {
	var parts []string
	for _, prog := range p.list {
		info, err := prog.Info()
		if err != nil {
			parts = append(parts, err.Error())
			continue
		}
		x, _ := info.TranslatedSize()
		j, _ := info.JitedSize()
		parts = append(parts, fmt.Sprintf("%s %s tag %s, %d B translated, %d B JITed", info.Type, info.Name, info.Tag, x, j))
	}
	return strings.Join(parts, "; ")
}

// tags are the programs' tags, in the order found.
func (p *progs) tags() []string {
	var out []string
	for _, prog := range p.list {
		if info, err := prog.Info(); err == nil {
			out = append(out, info.Tag)
		}
	}
	return out
}
