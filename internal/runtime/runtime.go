// Package runtime is the one place that talks to the kernel: it checks
// privileges, creates the maps of a plan, patches kernel-dependent
// constants from BTF, loads the programs (turning verifier rejections into
// messages that name the clause), attaches them to their hooks, runs the
// BEGIN/END/ERROR programs, and detaches everything on Close.
package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// Session is a loaded, attached plan.
type Session struct {
	Plan  *plan.Plan
	Maps  map[string]*ebpf.Map
	progs []*ebpf.Program
	run   map[string][]*ebpf.Program // BEGIN, END, ERROR
	links []link.Link
	fds   []int
	// Unplaced are the uprobe sites the kernel would not probe.
	Unplaced []Unplaced
	// placed are the uprobe sites attached, by site and cookie.
	placed  map[site]bool
	kspec   *btf.Spec
	verbose bool
	// gens are the aggregations kept in generations (Flip).
	gens generations
}

// Options for Load.
type Options struct {
	Verbose bool // include the verifier log in errors
	// Follow, a session whose aggregations are kept in generations, makes
	// this one's programs take their generation from it: Follow's Flip
	// flips both at one instant, and Followed brings this session's
	// account of its generations in line. A session replacing another is
	// so started without an event counted by both or by neither.
	Follow *Session
}

// CheckPrivileges returns an error naming what is missing to trace.
func CheckPrivileges() error {
	if os.Geteuid() == 0 {
		return nil
	}
	var hdr unix.CapUserHeader
	var data [2]unix.CapUserData
	hdr.Version = unix.LINUX_CAPABILITY_VERSION_3
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("cannot read capabilities: %w", err)
	}
	has := func(c uint) bool { return data[c/32].Effective&(1<<(c%32)) != 0 }
	var missing []string
	if !has(unix.CAP_BPF) && !has(unix.CAP_SYS_ADMIN) {
		missing = append(missing, "CAP_BPF")
	}
	if !has(unix.CAP_PERFMON) && !has(unix.CAP_SYS_ADMIN) {
		missing = append(missing, "CAP_PERFMON")
	}
	if len(missing) > 0 {
		return fmt.Errorf("insufficient privileges to trace: %s required (run as root, or grant them with setcap cap_bpf,cap_perfmon+ep)", strings.Join(missing, " and "))
	}
	return nil
}

// Load creates maps and programs and attaches them. Nothing runs BEGIN yet.
func Load(p *plan.Plan, opts *Options) (_ *Session, err error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := CheckPrivileges(); err != nil {
		return nil, err
	}
	_ = rlimit.RemoveMemlock()
	s := &Session{Plan: p, Maps: map[string]*ebpf.Map{}, run: map[string][]*ebpf.Program{}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if f := opts.Follow; f != nil && f.gens.index != nil {
		s.gens.cur = f.gens.cur
	}
	for _, spec := range p.Maps {
		m, err := newMap(spec, opts.Follow)
		if err != nil {
			return nil, mapError(spec, err)
		}
		s.Maps[spec.Name] = m
		if spec.Type == ebpf.ArrayOfMaps && spec.InnerMap != nil {
			if err := s.addGeneration(m, spec); err != nil {
				return nil, err
			}
		}
	}
	s.loadGenerations()
	if err := s.initGlobals(); err != nil {
		return nil, err
	}
	s.verbose = opts.Verbose
	for _, pr := range p.Programs {
		prog, err := s.load(p, pr)
		if err != nil {
			return nil, err
		}
		if err := s.attach(pr, prog); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// load loads one program of p with the session's maps.
func (s *Session) load(p *plan.Plan, pr *plan.Program) (*ebpf.Program, error) {
	insns := append(asm.Instructions(nil), pr.Insns...)
	if err := patchOffsets(insns, &s.kspec); err != nil {
		return nil, err
	}
	for name, m := range s.Maps {
		if err := insns.AssociateMap(name, m); err != nil && !isUnreferenced(err) {
			return nil, fmt.Errorf("program %s: map %s: %w", pr.Name, name, err)
		}
	}
	if err := s.associateGenerations(insns); err != nil {
		return nil, fmt.Errorf("program %s: %w", pr.Name, err)
	}
	spec := &ebpf.ProgramSpec{Name: pr.Name, Type: pr.Type, Instructions: insns, License: "GPL"}
	if pr.Hook.Kind == provider.HookBTFTP {
		spec.AttachType, spec.AttachTo = ebpf.AttachTraceRawTp, pr.Hook.Name
	}
	if pr.Hook.Kind == provider.HookUprobe && uprobeMulti() {
		spec.AttachType = ebpf.AttachTraceUprobeMulti
	}
	prog, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogDisabled: false})
	if err != nil {
		return nil, verifierError(p, pr, err, s.verbose)
	}
	s.progs = append(s.progs, prog)
	return prog, nil
}

func isUnreferenced(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unreferenced")
}

func mapError(spec *ebpf.MapSpec, err error) error {
	if errors.Is(err, ebpf.ErrNotSupported) {
		return fmt.Errorf("this kernel does not support %s maps (needed for %s): %w", spec.Type, spec.Name, err)
	}
	if errors.Is(err, unix.EPERM) {
		return fmt.Errorf("creating BPF map %s: permission denied (CAP_BPF is required)", spec.Name)
	}
	return fmt.Errorf("creating BPF map %s: %w", spec.Name, err)
}

// initGlobals sets the wall-clock offset: realtime minus boot time.
func (s *Session) initGlobals() error {
	m := s.Maps[plan.MapGlobals]
	if m == nil {
		return nil
	}
	buf := make([]byte, m.ValueSize())
	var boot unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot)
	off := time.Now().UnixNano() - boot.Nano()
	for i := 0; i < 8; i++ {
		buf[p0(i)] = byte(uint64(off) >> (8 * i))
	}
	return m.Update(uint32(0), buf, ebpf.UpdateAny)
}

func p0(i int) int { return i }

// patchOffsets resolves FieldOffset constants from the kernel's BTF.
func patchOffsets(insns asm.Instructions, kspec **btf.Spec) error {
	for i := range insns {
		if name, ok := provider.KfuncOf(insns[i]); ok {
			id, err := kfuncID(name, kspec)
			if err != nil {
				return err
			}
			insns[i].Constant, insns[i].Offset = int64(id), 0
			continue
		}
		fo, ok := plan.FieldOffsetOf(insns[i])
		if !ok {
			continue
		}
		if *kspec == nil {
			sp, err := btf.LoadKernelSpec()
			if err != nil {
				return fmt.Errorf("reading kernel BTF (needed for %s.%s): %w", fo.Struct, fo.Field, err)
			}
			*kspec = sp
		}
		var st *btf.Struct
		if err := (*kspec).TypeByName(fo.Struct, &st); err != nil {
			return fmt.Errorf("kernel BTF has no struct %s: %w", fo.Struct, err)
		}
		// Field may be a dotted path through embedded structs: se.sum_exec_runtime.
		total := uint32(0)
		cur := st
		parts := strings.Split(fo.Field, ".")
		for j, part := range parts {
			off, typ, err := member(cur, part)
			if err != nil {
				return err
			}
			total += off
			if j < len(parts)-1 {
				next, ok := btf.UnderlyingType(typ).(*btf.Struct)
				if !ok {
					return fmt.Errorf("kernel struct %s: member %s is not a struct", cur.Name, part)
				}
				cur = next
			}
		}
		insns[i].Constant = int64(total)
	}
	return nil
}

// kfuncID returns the BTF ID of the kernel function name in vmlinux.
func kfuncID(name string, kspec **btf.Spec) (btf.TypeID, error) {
	if *kspec == nil {
		sp, err := btf.LoadKernelSpec()
		if err != nil {
			return 0, fmt.Errorf("reading kernel BTF (needed for the kernel function %s): %w", name, err)
		}
		*kspec = sp
	}
	var fn *btf.Func
	if err := (*kspec).TypeByName(name, &fn); err != nil {
		return 0, fmt.Errorf("this kernel has no kernel function %s for BPF programs: %w", name, err)
	}
	return (*kspec).TypeID(fn)
}

// member finds a member of st (looking into anonymous structs and unions)
// and returns its byte offset and type.
func member(st *btf.Struct, name string) (uint32, btf.Type, error) {
	for _, m := range st.Members {
		if m.Name == name {
			return m.Offset.Bytes(), m.Type, nil
		}
		if m.Name == "" {
			var inner *btf.Struct
			switch t := btf.UnderlyingType(m.Type).(type) {
			case *btf.Struct:
				inner = t
			case *btf.Union:
				inner = &btf.Struct{Name: t.Name, Members: t.Members}
			}
			if inner != nil {
				if off, typ, err := member(inner, name); err == nil {
					return m.Offset.Bytes() + off, typ, nil
				}
			}
		}
	}
	return 0, nil, fmt.Errorf("kernel struct %s has no member %s", st.Name, name)
}

// ClauseError is the kernel's refusal of the code of one clause.
type ClauseError struct {
	Pos token.Pos
	Msg string
	Log string // the verifier log, with -v
}

func (e *ClauseError) Error() string {
	if e.Log != "" {
		return e.Pos.String() + ": " + e.Msg + ":\n" + e.Log
	}
	return e.Pos.String() + ": " + e.Msg
}

// verifierError turns a load failure into a message naming the clause the
// verifier stopped in (or the clauses of the program); the raw log only
// with -v.
func verifierError(p *plan.Plan, pr *plan.Program, err error, verbose bool) error {
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("loading BPF program: permission denied (CAP_BPF and CAP_PERFMON are required)")
		}
		return fmt.Errorf("the kernel's BPF verifier rejected the code for %s (%s): %w", clauseList(p, pr), pr.Hook, err)
	}
	reason, insn := rejection(ve.Log)
	if reason == "" {
		reason = strings.TrimSpace(ve.Error())
	}
	if m := logTooLarge.FindStringSubmatch(reason); m != nil {
		reason = fmt.Sprintf("clause is too complex for the kernel's BPF verifier, which gave up after following %s instructions along its paths: reduce its branches (if statements, ?:, string comparisons, quantize) or split it into several clauses", m[1])
	} else {
		reason = "the kernel's BPF verifier rejected the code of this clause: " + reason
	}
	log := ""
	if verbose {
		log = fmt.Sprintf("%+v", ve)
	}
	if c := pr.ClauseAt(insn); insn >= 0 && c >= 0 && c < len(p.Records) {
		e := &ClauseError{Pos: p.Records[c].Pos, Msg: fmt.Sprintf("%s (%s)", reason, pr.Hook), Log: log}
		if !verbose {
			e.Msg += " (run with -v for the verifier log)"
		}
		return e
	}
	msg := fmt.Sprintf("the kernel's BPF verifier rejected the code for %s (%s)", clauseList(p, pr), pr.Hook)
	if verbose {
		return fmt.Errorf("%s:\n%s", msg, log)
	}
	return fmt.Errorf("%s: %s (run with -v for the verifier log)", msg, strings.TrimPrefix(reason, "the kernel's BPF verifier rejected the code of this clause: "))
}

// clauseList names the clauses of a program, the first few of them.
func clauseList(p *plan.Plan, pr *plan.Program) string {
	var where []string
	for _, s := range pr.Spans {
		if s.Clause >= 0 && s.Clause < len(p.Records) {
			where = append(where, fmt.Sprintf("clause at %s", p.Records[s.Clause].Pos))
		}
	}
	if len(where) == 0 && pr.For != "" {
		return pr.For
	}
	if len(where) == 0 {
		for _, r := range p.Records {
			for _, q := range r.Probes {
				if q.Hook == pr.Hook {
					where = append(where, fmt.Sprintf("clause at %s", r.Pos))
					break
				}
			}
		}
	}
	if len(where) > 4 {
		where = append(where[:3], fmt.Sprintf("%d more", len(where)-3))
	}
	return strings.Join(where, ", ")
}

var (
	logInsn = regexp.MustCompile(`^(\d+): `)
	logFrom = regexp.MustCompile(`from insn (\d+)`)
	// BPF_COMPLEXITY_LIMIT_INSNS reached
	logTooLarge = regexp.MustCompile(`^BPF program is too large\. Processed (\d+) insn`)
)

// rejection returns the reason a verifier log gives for its rejection
// (its last line but the statistics) and the raw offset of the last
// instruction it names, or -1.
func rejection(log []string) (string, int) {
	reason, insn := "", -1
	for _, l := range log {
		l = strings.TrimSpace(l)
		if m := logInsn.FindStringSubmatch(l); m != nil {
			insn, _ = strconv.Atoi(m[1])
		} else if m := logFrom.FindStringSubmatch(l); m != nil {
			insn, _ = strconv.Atoi(m[1])
		}
		if l != "" && !strings.HasPrefix(l, "processed ") && !strings.HasPrefix(l, "verification time") &&
			!strings.HasPrefix(l, "stack depth") && logInsn.FindString(l) == "" {
			reason = l
		}
	}
	return reason, insn
}

// attach attaches prog to its hook.
func (s *Session) attach(pr *plan.Program, prog *ebpf.Program) error {
	h := pr.Hook
	switch h.Kind {
	case provider.HookRun:
		s.run[h.Name] = append(s.run[h.Name], prog)
		return nil
	case provider.HookRawTP:
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: h.Name, Program: prog})
		if err != nil {
			return fmt.Errorf("attaching to raw tracepoint %s: %w", h.Name, err)
		}
		s.links = append(s.links, l)
		return nil
	case provider.HookTP:
		l, err := link.Tracepoint(h.Group, h.Name, prog, nil)
		if err != nil {
			return fmt.Errorf("attaching to tracepoint %s:%s: %w", h.Group, h.Name, err)
		}
		s.links = append(s.links, l)
		return nil
	case provider.HookBTFTP:
		l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
		if err != nil {
			return fmt.Errorf("attaching to BTF tracepoint %s: %w", h.Name, err)
		}
		s.links = append(s.links, l)
		return nil
	case provider.HookPerf:
		return s.attachPerf(h, prog)
	case provider.HookUprobe:
		return s.attachUprobes(pr, prog)
	}
	return fmt.Errorf("hook %s is not supported", h)
}

// attachPerf opens a perf event with period h.Period on every online CPU
// (profile, cpc) or on one (tick) and attaches prog to each: the CPU clock,
// or h.Event when it is set.
func (s *Session) attachPerf(h provider.Hook, prog *ebpf.Program) error {
	cpus := []int{0}
	switch {
	case s.Plan.OnlyCPU:
		cpus = []int{s.Plan.CPU} // the cpu option: tick fires there, profile only there
	case h.AllCPU:
		cpus = onlineCPUs()
	}
	for _, cpu := range cpus {
		attr := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: unix.PERF_COUNT_SW_CPU_CLOCK,
			Size:   uint32(unsafeSizeofPerfAttr),
			Sample: h.Period,
		}
		if e := h.Event; e.Set {
			attr.Type, attr.Config = e.Type, e.Config
			if e.ExcludeUser {
				attr.Bits |= unix.PerfBitExcludeUser
			}
			if e.ExcludeKernel {
				attr.Bits |= unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv
			}
		}
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
				return fmt.Errorf("opening perf event for %s: permission denied (CAP_PERFMON is required)", h.Name)
			}
			if h.Event.Set && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP)) {
				return fmt.Errorf("opening perf event for %s on CPU %d: %w (this CPU does not count the event)", h.Name, cpu, err)
			}
			return fmt.Errorf("opening perf event for %s on CPU %d: %w", h.Name, cpu, err)
		}
		s.fds = append(s.fds, fd)
		l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: prog, Attach: ebpf.AttachPerfEvent})
		if err != nil {
			// Older kernels: attach through the perf event ioctl.
			if err2 := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, prog.FD()); err2 != nil {
				return fmt.Errorf("attaching %s to perf event: %w", h.Name, err)
			}
		} else {
			s.links = append(s.links, l)
		}
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
			return fmt.Errorf("enabling perf event for %s: %w", h.Name, err)
		}
	}
	return nil
}

const unsafeSizeofPerfAttr = 136 // PERF_ATTR_SIZE_VER8 or later; the kernel accepts larger

func onlineCPUs() []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return []int{0}
	}
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		var lo, hi int
		if n, _ := fmt.Sscanf(part, "%d-%d", &lo, &hi); n == 2 {
			for c := lo; c <= hi; c++ {
				out = append(out, c)
			}
		} else if n, _ := fmt.Sscanf(part, "%d", &lo); n == 1 {
			out = append(out, lo)
		}
	}
	return out
}

// Run runs the programs of a dtrace probe (BEGIN, END, ERROR) once with
// args as arg0.. (ERROR's arguments).
func (s *Session) Run(name string, args ...uint64) error {
	ctx := make([]byte, 8*6)
	for i, a := range args {
		for b := 0; b < 8; b++ {
			ctx[8*i+b] = byte(a >> (8 * b))
		}
	}
	// The program runs in this thread, whose vtimestamp is its time on
	// CPU as the scheduler last accounted it: a thread Go made moments
	// ago may have none yet. Yielding first has the scheduler account it.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	_, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	for _, p := range s.run[name] {
		if _, err := p.Run(&ebpf.RunOptions{Context: ctx}); err != nil {
			return fmt.Errorf("running %s: %w", name, err)
		}
	}
	return nil
}

// HasRun reports whether the plan has programs for a dtrace probe.
func (s *Session) HasRun(name string) bool { return len(s.run[name]) > 0 }

// Close detaches and frees everything.
func (s *Session) Close() {
	for _, l := range s.links {
		l.Close()
	}
	s.links = nil
	for _, fd := range s.fds {
		unix.Close(fd)
	}
	s.fds = nil
	for _, p := range s.progs {
		p.Close()
	}
	s.progs = nil
	for _, m := range s.Maps {
		m.Close()
	}
	s.Maps = map[string]*ebpf.Map{}
	s.closeGenerations()
}

// Programs are the session's loaded BPF programs, in the order loaded
// (the session owns them).
func (s *Session) Programs() []*ebpf.Program { return s.progs }

// Cost is what the session's programs have cost so far, as the kernel's
// BPF run-time statistics count them: runs and nanoseconds, summed over
// the programs. The kernel counts only while statistics are enabled
// (EnableStats); otherwise both stay zero.
func (s *Session) Cost() (runs, ns uint64, err error) {
	for _, p := range s.progs {
		st, err := p.Stats()
		if err != nil {
			return 0, 0, fmt.Errorf("reading a program's run-time statistics: %w", err)
		}
		runs += st.RunCount
		ns += uint64(st.Runtime.Nanoseconds())
	}
	return runs, ns, nil
}

// EnableStats makes the kernel count every BPF program's runs and run
// time (BPF_STATS_RUN_TIME) until the returned Closer is closed. It costs
// two clock reads per program run while it is held. Enabling takes
// CAP_SYS_ADMIN; without it, statistics an administrator enabled with the
// sysctl kernel.bpf_stats_enabled do as well (the Closer then does
// nothing).
func EnableStats() (io.Closer, error) {
	c, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err == nil {
		return c, nil
	}
	if b, e := os.ReadFile("/proc/sys/kernel/bpf_stats_enabled"); e == nil && strings.TrimSpace(string(b)) == "1" {
		return io.NopCloser(nil), nil
	}
	return nil, fmt.Errorf("enabling BPF run-time statistics (CAP_SYS_ADMIN, or the sysctl kernel.bpf_stats_enabled=1): %w", err)
}
