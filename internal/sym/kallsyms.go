// Package sym turns addresses into symbols: kernel addresses through
// /proc/kallsyms (loaded once, on first use), printed as DTrace prints them:
// module`function+0xoffset, with vmlinux as the module of the core kernel.
package sym

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

type ksym struct {
	addr uint64
	name string
	mod  string
}

// Kernel resolves kernel addresses.
type Kernel struct {
	once sync.Once
	syms []ksym
	err  error

	modOnce sync.Once
	modules [][2]uint64 // TracerRanges' modules, for IsTracer
	textEnd uint64
}

// shared is the process's table of the kernel's symbols.
var shared = new(Kernel)

// Shared returns the process's table of the kernel's symbols, read once:
// /proc/kallsyms takes the kernel a quarter of a second to write out, so
// the code generator (stackdepth) and the consumer (stack()) share it.
func Shared() *Kernel { return shared }

// Load reads /proc/kallsyms (text and weak symbols only).
func (k *Kernel) load() {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		k.err = err
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		switch fields[1] {
		case "t", "T", "w", "W":
		default:
			continue
		}
		a, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil || a == 0 {
			continue
		}
		mod := "vmlinux"
		if len(fields) > 3 {
			mod = strings.Trim(fields[3], "[]")
		}
		k.syms = append(k.syms, ksym{a, fields[2], mod})
	}
	sort.SliceStable(k.syms, func(i, j int) bool { return k.syms[i].addr < k.syms[j].addr })
}

// Lookup returns the symbol containing addr and the offset into it.
func (k *Kernel) Lookup(addr uint64) (mod, name string, off uint64, ok bool) {
	k.once.Do(k.load)
	i := sort.Search(len(k.syms), func(i int) bool { return k.syms[i].addr > addr }) - 1
	if i < 0 {
		return "", "", 0, false
	}
	s := k.syms[i]
	return s.mod, s.name, addr - s.addr, true
}

// Format prints addr as module`function+0xoff (no offset when exact), or
// as hex when unknown.
func (k *Kernel) Format(addr uint64) string {
	mod, name, off, ok := k.Lookup(addr)
	if !ok {
		return fmt.Sprintf("0x%x", addr)
	}
	if off == 0 {
		return mod + "`" + name
	}
	return fmt.Sprintf("%s`%s+0x%x", mod, name, off)
}

// Func prints the function containing addr (func(), sym() without offset).
func (k *Kernel) Func(addr uint64) string {
	mod, name, _, ok := k.Lookup(addr)
	if !ok {
		return fmt.Sprintf("0x%x", addr)
	}
	return mod + "`" + name
}

// Module prints the module containing addr (mod()).
func (k *Kernel) Module(addr uint64) string {
	mod, _, _, ok := k.Lookup(addr)
	if !ok {
		return fmt.Sprintf("0x%x", addr)
	}
	return mod
}

// ErrNoKernelAddresses says that /proc/kallsyms names the kernel's symbols
// but hides their addresses: the kernel (kptr_restrict) shows them only to a
// reader with CAP_SYSLOG.
var ErrNoKernelAddresses = errors.New("/proc/kallsyms shows no addresses: reading them needs CAP_SYSLOG")

// KallsymsReadable reports whether /proc/kallsyms gives the kernel's
// addresses to this process: it reads until the first text symbol.
func KallsymsReadable() error {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return fmt.Errorf("kernel symbols: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || (fields[1] != "t" && fields[1] != "T") {
			continue
		}
		if a, err := strconv.ParseUint(fields[0], 16, 64); err == nil && a != 0 {
			return nil
		}
		return ErrNoKernelAddresses
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("kernel symbols: %w", err)
	}
	return ErrNoKernelAddresses
}

// TracerFunc reports whether the kernel function name of module mod is
// part of the machinery that runs a BPF program rather than of the traced
// code: the program itself (and the kernel's other generated code,
// such as ftrace's trampolines, module __builtin__*), the raw tracepoint glue (bpf_trace_run*,
// __bpf_trace_*, a tracepoint's __traceiter_*), trace_call_bpf, the
// system calls' perf-event glue (perf_syscall_enter/exit and the
// perf_call_bpf_enter/exit between them and trace_call_bpf). A stack's
// leading frames in these functions are not the traced code's.
func TracerFunc(mod, name string) bool {
	return mod == "bpf" || strings.HasPrefix(mod, "__builtin__") || strings.HasPrefix(name, "bpf_trace_run") || strings.HasPrefix(name, "__bpf_trace_") ||
		strings.HasPrefix(name, "bpf_prog_") || strings.HasPrefix(name, "__traceiter_") || strings.HasPrefix(name, "trace_call_bpf") ||
		strings.HasPrefix(name, "perf_syscall_") || strings.HasPrefix(name, "perf_call_bpf_")
}

// TracerRanges returns the address ranges [lo, hi) of the kernel's text
// that TracerFunc classifies as tracer code, generated code (BPF programs,
// trampolines: they come and go) excepted, merged where such functions are
// adjacent (a function's __pfx_ padding counts as the function's), in
// address order; and those of the loaded modules' code. A function ends
// where the next symbol starts; the last one of a region (more than 1 MiB
// to the next symbol) is left out. Both are empty when /proc/kallsyms
// shows no addresses.
func (k *Kernel) TracerRanges() (tracer, modules [][2]uint64) {
	k.once.Do(k.load)
	add := func(out [][2]uint64, lo, hi uint64) [][2]uint64 {
		if n := len(out); n > 0 && out[n-1][1] == lo {
			out[n-1][1] = hi
			return out
		}
		return append(out, [2]uint64{lo, hi})
	}
	for i := 0; i+1 < len(k.syms); i++ {
		s, next := k.syms[i], k.syms[i+1].addr
		if s.mod == "bpf" || strings.HasPrefix(s.mod, "__builtin__") || next-s.addr > 1<<20 || next == s.addr {
			continue
		}
		if s.mod != "vmlinux" {
			modules = add(modules, s.addr, next)
		}
		if TracerFunc(s.mod, strings.TrimPrefix(s.name, "__pfx_")) {
			tracer = add(tracer, s.addr, next)
		}
	}
	return tracer, modules
}

// IsTracer reports whether the kernel address pc is in tracer code: a
// function TracerFunc names, or code above the core kernel's text that no
// module owns (BPF programs, trampolines; BPF programs have no symbols
// when the kernel's bpf_jit_kallsyms is off). It is the test codegen's
// stackdepth and caller make from TracerRanges and TextEnd.
func (k *Kernel) IsTracer(pc uint64) bool {
	mod, name, _, ok := k.Lookup(pc)
	if !ok {
		return false
	}
	if TracerFunc(mod, strings.TrimPrefix(name, "__pfx_")) {
		return true // a function's __pfx_ padding is the function's, as in TracerRanges
	}
	k.modOnce.Do(func() { _, k.modules = k.TracerRanges(); k.textEnd = k.TextEnd() })
	if k.textEnd == 0 || pc <= k.textEnd {
		return false
	}
	i := sort.Search(len(k.modules), func(i int) bool { return k.modules[i][1] > pc })
	return i == len(k.modules) || pc < k.modules[i][0]
}

// TextEnd returns the address of the core kernel's last text symbol:
// above it are the modules and the code the kernel generates (BPF
// programs, trampolines). It is 0 when /proc/kallsyms shows no addresses.
func (k *Kernel) TextEnd() uint64 {
	k.once.Do(k.load)
	var end uint64
	for _, s := range k.syms {
		if s.mod == "vmlinux" && s.addr > end {
			end = s.addr
		}
	}
	return end
}
