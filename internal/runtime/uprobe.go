package runtime

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/arch/x86/x86asm"
	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// uprobeMulti reports whether the kernel attaches many uprobes with one
// uprobe_multi link (Linux 6.6): then a program placed on thousands of
// functions costs one system call per object, not one per function.
var uprobeMulti = sync.OnceValue(func() bool {
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceUprobeMulti, License: "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	})
	if err != nil {
		return false
	}
	defer prog.Close()
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	ex, err := link.OpenExecutable(exe)
	if err != nil {
		return false
	}
	// For a process that does not exist, a kernel with uprobe_multi says
	// ESRCH; one without says it does not know the link type.
	l, err := ex.UprobeMulti(nil, prog, &link.UprobeMultiOptions{Addresses: []uint64{0x1000}, PID: 1 << 30})
	if err == nil {
		l.Close()
		return true
	}
	return errors.Is(err, unix.ESRCH) || errors.Is(err, os.ErrNotExist)
})

// site is a uprobe placement with its cookie.
type site struct {
	provider.Site
	cookie uint64
}

// attachUprobes places prog on every site of the program's probes: one
// uprobe_multi link per object and process where the kernel has them,
// else a uprobe (a perf event) per site.
func (s *Session) attachUprobes(pr *plan.Program, prog *ebpf.Program) error {
	type group struct {
		path string
		pid  int
	}
	groups := map[group][]site{}
	var order []group
	if s.placed == nil {
		s.placed = map[site]bool{}
	}
	var code codeReader
	defer code.close()
	for _, p := range pr.Probes {
		for _, st := range p.Sites {
			g := group{st.Path, st.PID}
			x := site{st, uint64(st.Extra)<<32 | uint64(p.ID)}
			if s.placed[x] {
				continue
			}
			s.placed[x] = true
			if p.Hook.Name != "entry" && code.callRewritten(st.Path, st.Offset) {
				s.Unplaced = append(s.Unplaced, Unplaced{Path: st.Path, Offset: st.Offset, ProbeID: p.ID, Why: WhyRedZone})
				continue
			}
			if groups[g] == nil {
				order = append(order, g)
			}
			groups[g] = append(groups[g], x)
		}
	}
	for _, g := range order {
		sites := groups[g]
		sort.Slice(sites, func(i, j int) bool { return sites[i].Offset < sites[j].Offset })
		ex, err := link.OpenExecutable(g.path)
		if err != nil {
			return fmt.Errorf("placing uprobes in %s: %w", g.path, err)
		}
		if uprobeMulti() {
			if err := s.attachMulti(g.path, ex, prog, g.pid, sites); err != nil {
				return uprobeError(g.path, g.pid, err)
			}
			continue
		}
		for _, st := range sites {
			l, err := ex.Uprobe("", prog, &link.UprobeOptions{Address: st.Offset, PID: g.pid, RefCtrOffset: st.RefCtr, Cookie: st.cookie})
			if errors.Is(err, ebpf.ErrNotSupported) || errors.Is(err, syscall.Errno(524)) || errors.Is(err, unix.EOPNOTSUPP) {
				s.Unplaced = append(s.Unplaced, Unplaced{Path: g.path, Offset: st.Offset, ProbeID: uint32(st.cookie)})
				continue
			}
			if err != nil {
				return uprobeError(g.path, g.pid, err)
			}
			s.links = append(s.links, l)
		}
	}
	return nil
}

// Unplaced is a uprobe site left out: the probe fires at its other sites
// only.
type Unplaced struct {
	Path    string
	Offset  uint64
	ProbeID uint32
	// Why says why: "" for an instruction the kernel refused (one it
	// cannot single-step or emulate), else WhyRedZone.
	Why string
}

// WhyRedZone is why sonde leaves out a site where a uprobe would write
// below the traced function's stack pointer (see callRewritten).
const WhyRedZone = "the instruction there is a 5-byte nop, which Linux 6.18 rewrites into a call that writes below %rsp, " +
	"over a leaf function's locals; a USDT probe from an older sonde -h header needs the header made again"

// attachMulti places sites with uprobe_multi links. The kernel refuses a
// whole link when one instruction cannot be probed: the set is halved
// until the refused sites are found, and those are left out.
func (s *Session) attachMulti(path string, ex *link.Executable, prog *ebpf.Program, pid int, sites []site) error {
	opts := &link.UprobeMultiOptions{PID: uint32(pid)}
	refs := false
	for _, st := range sites {
		opts.Addresses = append(opts.Addresses, st.Offset)
		opts.Cookies = append(opts.Cookies, st.cookie)
		opts.RefCtrOffsets = append(opts.RefCtrOffsets, st.RefCtr)
		refs = refs || st.RefCtr != 0
	}
	if !refs {
		opts.RefCtrOffsets = nil
	}
	l, err := ex.UprobeMulti(nil, prog, opts)
	if err == nil {
		s.links = append(s.links, l)
		return nil
	}
	if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, syscall.Errno(524)) && !errors.Is(err, unix.EOPNOTSUPP) {
		return err
	}
	if len(sites) == 1 {
		s.Unplaced = append(s.Unplaced, Unplaced{Path: path, Offset: sites[0].Offset, ProbeID: uint32(sites[0].cookie)})
		return nil
	}
	h := len(sites) / 2
	if err := s.attachMulti(path, ex, prog, pid, sites[:h]); err != nil {
		return err
	}
	return s.attachMulti(path, ex, prog, pid, sites[h:])
}

func uprobeError(path string, pid int, err error) error {
	if errors.Is(err, os.ErrNotExist) && pid > 0 {
		if _, e := os.Stat(fmt.Sprintf("/proc/%d", pid)); e != nil {
			return fmt.Errorf("placing uprobes in pid %d: the process has exited", pid)
		}
	}
	return fmt.Errorf("placing uprobes in %s: %w", path, err)
}

// AddUprobes places the uprobe sites of p (a plan compiled again from the
// same program, now that a traced process has mapped more objects) that
// the session has not placed yet: each hook with new sites gets its
// program loaded again, with the session's maps, and attached to those
// sites only. It returns how many sites were new.
func (s *Session) AddUprobes(p *plan.Plan) (int, error) {
	if err := s.sameMaps(p); err != nil {
		return 0, err
	}
	n := 0
	for _, pr := range p.Programs {
		if pr.Hook.Kind != provider.HookUprobe {
			continue
		}
		var fresh []*provider.Probe
		for _, q := range pr.Probes {
			var sites []provider.Site
			for _, st := range q.Sites {
				if !s.placed[site{st, uint64(st.Extra)<<32 | uint64(q.ID)}] {
					sites = append(sites, st)
				}
			}
			if len(sites) > 0 {
				c := *q
				c.Sites = sites
				fresh = append(fresh, &c)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		prog, err := s.load(p, pr)
		if err != nil {
			return n, err
		}
		sub := *pr
		sub.Probes = fresh
		for _, q := range fresh {
			n += len(q.Sites)
		}
		if err := s.attachUprobes(&sub, prog); err != nil {
			return n, err
		}
	}
	return n, nil
}

// sameMaps checks that the programs of p can run with the session's maps:
// the same maps, of the same shapes (the scratch map may be larger).
func (s *Session) sameMaps(p *plan.Plan) error {
	for _, spec := range p.Maps {
		m := s.Maps[spec.Name]
		if m == nil {
			return fmt.Errorf("the program needs a map it did not have (%s)", spec.Name)
		}
		info, err := m.Info()
		if err != nil {
			return err
		}
		size := info.ValueSize == spec.ValueSize ||
			(spec.Name == plan.MapScratch && info.ValueSize >= spec.ValueSize)
		if spec.Name == plan.MapScratch && info.MaxEntries < spec.MaxEntries {
			return fmt.Errorf("the program needs %d scratch entries, the session has %d", spec.MaxEntries, info.MaxEntries)
		}
		if info.Type != spec.Type || info.KeySize != spec.KeySize || !size {
			return fmt.Errorf("the program's map %s changed shape (%d-byte values, was %d)", spec.Name, spec.ValueSize, info.ValueSize)
		}
	}
	return nil
}

// TakeUnplaced returns the sites the kernel refused since the last call.
func (s *Session) TakeUnplaced() []Unplaced {
	u := s.Unplaced
	s.Unplaced = nil
	return u
}

// codeReader reads the instructions of uprobe sites from the objects that
// hold them, keeping the last object open.
type codeReader struct {
	path  string
	f     *os.File
	amd64 bool
}

// callRewritten reports whether a uprobe at off in the object at path may
// be rewritten by the kernel into a call: Linux 6.18 does so, after the
// first hit, for a 5-byte instruction that does nothing, in a 64-bit
// process, and the call pushes its return address (and the trampoline
// three registers) below %rsp, over the red zone where a leaf function
// keeps its locals. sonde does not place such a uprobe, whatever the
// kernel (one may have the rewrite backported). Function entries are
// exempt: nothing is live below %rsp when a function is entered.
// Unreadable code is left to the kernel, which refuses it.
func (c *codeReader) callRewritten(path string, off uint64) bool {
	if path != c.path {
		c.close()
		c.path = path
		c.f, _ = os.Open(path)
		c.amd64 = c.f != nil && isAMD64(c.f)
	}
	if !c.amd64 {
		return false
	}
	var b [15]byte
	n, _ := c.f.ReadAt(b[:], int64(off))
	in, err := x86asm.Decode(b[:n], 64)
	return err == nil && in.Len == 5 && doesNothing(in)
}

func (c *codeReader) close() {
	if c.f != nil {
		c.f.Close()
	}
	c.f, c.path = nil, ""
}

// isAMD64 reports whether r is a 64-bit x86 ELF object.
func isAMD64(r io.ReaderAt) bool {
	f, err := elf.NewFile(r)
	return err == nil && f.Class == elf.ELFCLASS64 && f.Machine == elf.EM_X86_64
}

// doesNothing reports whether in is one of the instructions the kernel
// takes for a nop (insn_is_nop): nop and nopl, "jmp .+0", a register moved
// to itself, "lea 0(%reg), %reg".
func doesNothing(in x86asm.Inst) bool {
	switch in.Op {
	case x86asm.NOP:
		return true
	case x86asm.JMP:
		rel, ok := in.Args[0].(x86asm.Rel)
		return ok && rel == 0
	case x86asm.MOV:
		return in.Args[0] != nil && in.Args[0] == in.Args[1]
	case x86asm.LEA:
		m, ok := in.Args[1].(x86asm.Mem)
		return ok && m.Base == in.Args[0] && m.Index == 0 && m.Disp == 0 && m.Segment == 0
	}
	return false
}
