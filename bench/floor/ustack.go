package main

// -mode ustack: profile-997 { @[ustack()] = count(); } by hand. A BPF
// program on a CPU-clock perf event on every online CPU, at 997 Hz, takes
// the user stack with bpf_get_stackid into a stack map and counts it in a
// preallocated per-CPU hash keyed by (pid, stack id), incremented in place.
// At exit it reads the counts and the stacks and symbolises them as simply
// as it can: /proc/PID/maps, and the functions of each object's .symtab and
// .dynsym (no debug files, no demangling, no cache across processes).

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

const (
	stackDepth    = 127 // PERF_MAX_STACK_DEPTH
	stackEntries  = 4096
	countEntries  = 4096
	bpfFUserStack = 256 // BPF_F_USER_STACK
	profileHz     = 997
	pairStack     = int16(-8) // {u32 pid; s32 stack id} on the stack
)

func runUstack(d time.Duration) error {
	stacks, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.StackTrace, KeySize: 4, ValueSize: stackDepth * 8, MaxEntries: stackEntries})
	if err != nil {
		return fmt.Errorf("create stack map: %w", err)
	}
	defer stacks.Close()
	// perf_event programs may only use preallocated hashes.
	counts, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: countEntries})
	if err != nil {
		return fmt.Errorf("create count map: %w", err)
	}
	defer counts.Close()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "floor_ustack", Type: ebpf.PerfEvent, License: "GPL",
		Instructions: ustackProg(stacks.FD(), counts.FD()),
	})
	if err != nil {
		return fmt.Errorf("load ustack program: %w", err)
	}
	defer prog.Close()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	var links []link.Link
	var fds []int
	defer func() {
		for _, l := range links {
			l.Close()
		}
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, cpu := range onlineCPUs() {
		attr := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: unix.PERF_COUNT_SW_CPU_CLOCK,
			Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Sample: uint64(time.Second) / profileHz,
		}
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("perf_event_open on CPU %d: %w", cpu, err)
		}
		fds = append(fds, fd)
		l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: prog, Attach: ebpf.AttachPerfEvent})
		if err != nil {
			return fmt.Errorf("attach to perf event on CPU %d: %w", cpu, err)
		}
		links = append(links, l)
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
			return fmt.Errorf("enable perf event on CPU %d: %w", cpu, err)
		}
	}
	fmt.Println("attached")
	links = waitDetach(sig, d, links)
	return printStacks(counts, stacks)
}

// ustackProg: key = {pid, bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK)};
// a failed stackid (a kernel thread has no user stack) is counted as such.
func ustackProg(stacksFD, countsFD int) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(asm.RFP, pairStack, asm.R0, asm.Word),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.LoadMapPtr(asm.R2, stacksFD),
		asm.Mov.Imm(asm.R3, bpfFUserStack),
		asm.FnGetStackid.Call(),
		asm.StoreMem(asm.RFP, pairStack+4, asm.R0, asm.Word),
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(pairStack)),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "miss"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("miss"),
		asm.StoreMem(asm.RFP, valueStack, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(pairStack)),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, int32(valueStack)),
		asm.Mov.Imm(asm.R4, bpfAny),
		asm.FnMapUpdateElem.Call(),
	}
	return append(insns, epilogue()...)
}

// printStacks prints "count frame;frame;..." (leaf first) per key, sorted
// by count, and the total.
func printStacks(counts, stacks *ebpf.Map) error {
	type row struct {
		n   uint64
		key string
	}
	var rows []row
	var total uint64
	sym := &symboliser{procs: map[uint32][]mapping{}, objs: map[string]*object{}}
	var key [8]byte
	var values []uint64
	var pcs [stackDepth]uint64
	it := counts.Iterate()
	for it.Next(&key, &values) {
		var n uint64
		for _, v := range values {
			n += v
		}
		total += n
		pid := binary.NativeEndian.Uint32(key[:4])
		id := binary.NativeEndian.Uint32(key[4:])
		var frames []string
		if int32(id) >= 0 && stacks.Lookup(id, &pcs) == nil {
			for _, pc := range pcs {
				if pc == 0 {
					break
				}
				frames = append(frames, sym.frame(pid, pc))
			}
		}
		rows = append(rows, row{n, strings.Join(frames, ";")})
	}
	if err := it.Err(); err != nil {
		return err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].n < rows[j].n })
	w := bufio.NewWriter(os.Stdout)
	for _, r := range rows {
		fmt.Fprintf(w, "%d %s\n", r.n, r.key)
	}
	fmt.Fprintf(w, "count: %d keys: %d\n", total, len(rows))
	return w.Flush()
}

type mapping struct {
	start, end, off uint64
	path            string
}

type object struct {
	loads []elf.ProgHeader
	funcs []elf.Symbol // sorted by Value
}

type symboliser struct {
	procs map[uint32][]mapping
	objs  map[string]*object
}

// frame names pc as "module`func+0xoff", "module`0xpc" or "0xpc".
func (s *symboliser) frame(pid uint32, pc uint64) string {
	maps, ok := s.procs[pid]
	if !ok {
		maps = readMaps(pid)
		s.procs[pid] = maps
	}
	i := sort.Search(len(maps), func(i int) bool { return maps[i].end > pc })
	if i == len(maps) || pc < maps[i].start || !strings.HasPrefix(maps[i].path, "/") {
		return fmt.Sprintf("0x%x", pc)
	}
	m := maps[i]
	mod := filepath.Base(m.path)
	o, ok := s.objs[m.path]
	if !ok {
		o = loadObject(m.path)
		s.objs[m.path] = o
	}
	fileOff := pc - m.start + m.off
	for _, p := range o.loads {
		if fileOff < p.Off || fileOff >= p.Off+p.Filesz {
			continue
		}
		addr := fileOff - p.Off + p.Vaddr
		j := sort.Search(len(o.funcs), func(j int) bool { return o.funcs[j].Value > addr }) - 1
		if j >= 0 && addr < o.funcs[j].Value+o.funcs[j].Size {
			return fmt.Sprintf("%s`%s+0x%x", mod, o.funcs[j].Name, addr-o.funcs[j].Value)
		}
	}
	return fmt.Sprintf("%s`0x%x", mod, pc)
}

func readMaps(pid uint32) []mapping {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.Contains(fields[1], "x") {
			continue
		}
		var m mapping
		if _, err := fmt.Sscanf(fields[0], "%x-%x", &m.start, &m.end); err != nil {
			continue
		}
		fmt.Sscanf(fields[2], "%x", &m.off)
		m.path = fields[5]
		out = append(out, m)
	}
	return out
}

func loadObject(path string) *object {
	o := &object{}
	f, err := elf.Open(path)
	if err != nil {
		return o
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			o.loads = append(o.loads, p.ProgHeader)
		}
	}
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && s.Size > 0 {
			o.funcs = append(o.funcs, s)
		}
	}
	sort.Slice(o.funcs, func(i, j int) bool { return o.funcs[i].Value < o.funcs[j].Value })
	return o
}

func onlineCPUs() []int {
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return []int{0}
	}
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(string(data)), ",") {
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
