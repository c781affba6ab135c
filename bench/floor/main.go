// Command floor is the least a tracer can do for the programs the benchmark
// measures: hand-written BPF on the raw tracepoint raw_syscalls:sys_enter
// (and sys_exit), counting into per-CPU maps. sonde's generated code is
// compared with it.
//
//	-mode array     @ = count()          a per-CPU array of one counter
//	-mode hash-pid  @[pid] = count()     a per-CPU hash keyed by pid, incremented in
//	                                     place through the looked-up pointer and
//	                                     updated only on a miss
//	-mode hash-comm @[execname] = count() a per-CPU hash keyed by the 16-byte comm
//	                                     (bpf_get_current_comm), incremented in place
//	                                     and updated only on a miss
//	-mode syscalls  syscall:::entry,syscall:::return { @[probefunc] = count(); }
//	                                     sys_enter and sys_exit, a per-CPU array
//	                                     indexed by syscall number
//	-mode ustack    profile-997 { @[ustack()] = count(); }
//	                                     on CPU-clock perf events (see ustack.go)
//
// -syscall NAME keeps only that call's events (syscall::NAME:entry). floor
// prints "attached" once its programs are attached, and the merged count when
// it is interrupted (SIGINT, SIGTERM) or -duration has passed.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/sonde-trace/sonde/internal/syscalls"
)

var printKeys bool

const (
	maxNr          = 512        // syscall numbers counted in -mode syscalls
	returnBase     = maxNr      // return counters follow the entry counters
	bpfAny         = 0          // BPF_ANY
	bpfFNoPrealloc = uint32(1)  // BPF_F_NO_PREALLOC
	noFilter       = int64(-1)  // -syscall not given
	keyStack       = int16(-4)  // u32 map key on the stack
	valueStack     = int16(-16) // u64 value or scratch on the stack
	commKeyStack   = int16(-16) // -mode hash-comm: the 16-byte comm key
	commValStack   = int16(-24) // -mode hash-comm: the u64 value inserted on a miss
	commLen        = 16         // TASK_COMM_LEN
	countersSize   = 2 * maxNr  // entries of the -mode syscalls array
	hashPIDEntries = uint32(4096)
)

func main() {
	mode := flag.String("mode", "array", "array, hash-pid, hash-comm, syscalls or ustack")
	call := flag.String("syscall", "", "count only this system call's entries (e.g. getppid)")
	duration := flag.Duration("duration", 0, "stop after this long (0: at SIGINT or SIGTERM)")
	entries := flag.Uint("entries", uint(hashPIDEntries), "hash-pid, hash-comm: maximum number of keys")
	prealloc := flag.Bool("prealloc", false, "hash-pid, hash-comm: preallocate the hash map")
	flag.BoolVar(&printKeys, "keys", false, "print each key's count at exit")
	flag.Parse()
	if err := run(*mode, *call, *duration, uint32(*entries), *prealloc); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(mode, call string, d time.Duration, entries uint32, prealloc bool) error {
	nr := noFilter
	if call != "" {
		n, ok := syscalls.Number(call)
		if !ok {
			return fmt.Errorf("unknown system call %q", call)
		}
		nr = int64(n)
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return err
	}
	if mode == "ustack" {
		return runUstack(d)
	}
	var (
		m     *ebpf.Map
		progs map[string]asm.Instructions
		err   error
	)
	switch mode {
	case "array":
		m, err = ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 1})
		if err == nil {
			progs = map[string]asm.Instructions{"sys_enter": arrayProg(m.FD(), nr)}
		}
	case "hash-pid":
		spec := &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 4, ValueSize: 8, MaxEntries: entries}
		if !prealloc {
			spec.Flags = bpfFNoPrealloc
		}
		m, err = ebpf.NewMap(spec)
		if err == nil {
			progs = map[string]asm.Instructions{"sys_enter": hashPIDProg(m.FD(), nr)}
		}
	case "hash-comm":
		spec := &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: commLen, ValueSize: 8, MaxEntries: entries}
		if !prealloc {
			spec.Flags = bpfFNoPrealloc
		}
		m, err = ebpf.NewMap(spec)
		if err == nil {
			progs = map[string]asm.Instructions{"sys_enter": hashCommProg(m.FD(), nr)}
		}
	case "syscalls":
		m, err = ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: countersSize})
		if err == nil {
			var exit asm.Instructions
			if exit, err = sysExitProg(m.FD()); err == nil {
				progs = map[string]asm.Instructions{"sys_enter": sysEnterProg(m.FD()), "sys_exit": exit}
			}
		}
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		return fmt.Errorf("create map: %w", err)
	}
	defer m.Close()

	// Listen before attaching: a signal that comes once "attached" is
	// printed must not kill the process before it reads the counts.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	links, err := attach(progs)
	defer func() {
		for _, l := range links {
			l.Close()
		}
	}()
	if err != nil {
		return err
	}
	fmt.Println("attached")
	links = waitDetach(sig, d, links)
	total, keys, err := sum(m, mode == "hash-comm")
	if err != nil {
		return err
	}
	fmt.Printf("count: %d keys: %d\n", total, keys)
	return nil
}

// attach loads each program and attaches it to its raw tracepoint.
func attach(progs map[string]asm.Instructions) ([]link.Link, error) {
	var links []link.Link
	for tp, insns := range progs {
		prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "floor_" + tp, Type: ebpf.RawTracepoint, Instructions: insns, License: "GPL",
		})
		if err != nil {
			return links, fmt.Errorf("load %s program: %w", tp, err)
		}
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: prog})
		prog.Close() // the link holds the program
		if err != nil {
			return links, fmt.Errorf("attach raw tracepoint %s: %w", tp, err)
		}
		links = append(links, l)
	}
	return links, nil
}

// filter returns instructions that exit unless the syscall number, the
// second raw tracepoint argument of sys_enter, is nr.
func filter(nr int64) asm.Instructions {
	if nr == noFilter {
		return nil
	}
	return asm.Instructions{
		asm.LoadMem(asm.R2, asm.R1, 8, asm.DWord),
		asm.JNE.Imm(asm.R2, int32(nr), "out"),
	}
}

// incrementKey looks up the u32 key at keyStack and adds one to the value
// in place, then jumps to "out"; it jumps to miss if the key is absent.
func incrementKey(mapFD int, miss string) asm.Instructions {
	return incrementAt(mapFD, keyStack, miss)
}

// incrementAt is incrementKey for the key at offset key of the stack.
func incrementAt(mapFD int, key int16, miss string) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, miss),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
	}
}

// epilogue returns 0 from label "out".
func epilogue() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}

// arrayProg: @ = count().
func arrayProg(mapFD int, nr int64) asm.Instructions {
	insns := filter(nr)
	insns = append(insns, asm.StoreImm(asm.RFP, keyStack, 0, asm.Word))
	insns = append(insns, incrementKey(mapFD, "out")...)
	return append(insns, epilogue()...)
}

// hashPIDProg: @[pid] = count(). On a miss the value 1 is inserted.
func hashPIDProg(mapFD int, nr int64) asm.Instructions {
	insns := filter(nr)
	insns = append(insns,
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(asm.RFP, keyStack, asm.R0, asm.Word),
	)
	insns = append(insns, incrementKey(mapFD, "miss")...)
	insns = append(insns,
		asm.Mov.Imm(asm.R1, 1).WithSymbol("miss"),
		asm.StoreMem(asm.RFP, valueStack, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(keyStack)),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, int32(valueStack)),
		asm.Mov.Imm(asm.R4, bpfAny),
		asm.FnMapUpdateElem.Call(),
	)
	return append(insns, epilogue()...)
}

// hashCommProg: @[execname] = count(). The key is the comm as
// bpf_get_current_comm writes it (NUL-padded to 16 bytes); on a miss the
// value 1 is inserted.
func hashCommProg(mapFD int, nr int64) asm.Instructions {
	insns := filter(nr)
	insns = append(insns,
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, int32(commKeyStack)),
		asm.Mov.Imm(asm.R2, commLen),
		asm.FnGetCurrentComm.Call(),
	)
	insns = append(insns, incrementAt(mapFD, commKeyStack, "miss")...)
	insns = append(insns,
		asm.Mov.Imm(asm.R1, 1).WithSymbol("miss"),
		asm.StoreMem(asm.RFP, commValStack, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(commKeyStack)),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, int32(commValStack)),
		asm.Mov.Imm(asm.R4, bpfAny),
		asm.FnMapUpdateElem.Call(),
	)
	return append(insns, epilogue()...)
}

// countNr counts the syscall number in R2 at index R2+base of the array,
// skipping numbers outside [0, maxNr).
func countNr(mapFD int, base int32) asm.Instructions {
	return append(asm.Instructions{
		asm.JGE.Imm(asm.R2, maxNr, "out"), // unsigned: negative numbers too
		asm.Add.Imm(asm.R2, base),
		asm.StoreMem(asm.RFP, keyStack, asm.R2, asm.Word),
	}, incrementKey(mapFD, "out")...)
}

func sysEnterProg(mapFD int) asm.Instructions {
	insns := asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 8, asm.DWord)}
	insns = append(insns, countNr(mapFD, 0)...)
	return append(insns, epilogue()...)
}

// sysExitProg reads the syscall number from the pt_regs that is sys_exit's
// first argument.
func sysExitProg(mapFD int) (asm.Instructions, error) {
	var off int32
	var size asm.Size
	switch runtime.GOARCH {
	case "amd64":
		off, size = 15*8, asm.DWord // orig_ax
	case "arm64":
		off, size = 35*8, asm.Word // syscallno
	default:
		return nil, errors.New("-mode syscalls: unsupported architecture " + runtime.GOARCH)
	}
	insns := asm.Instructions{
		asm.LoadMem(asm.R3, asm.R1, 0, asm.DWord),
		asm.Add.Imm(asm.R3, off),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, valueStack, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, int32(valueStack)),
		asm.Mov.Imm(asm.R2, int32(size.Sizeof())),
		asm.FnProbeReadKernel.Call(),
		asm.LoadMem(asm.R2, asm.RFP, valueStack, size),
	}
	insns = append(insns, countNr(mapFD, returnBase)...)
	return append(insns, epilogue()...), nil
}

// sum merges every key's per-CPU values; comm says the keys are comms
// (-mode hash-comm), not u32s.
func sum(m *ebpf.Map, comm bool) (total uint64, keys int, err error) {
	var key uint32
	var commKey [commLen]byte
	var keyOut any = &key
	if comm {
		keyOut = &commKey
	}
	var values []uint64
	it := m.Iterate()
	for it.Next(keyOut, &values) {
		var v uint64
		for _, x := range values {
			v += x
		}
		if v > 0 {
			keys++
			switch {
			case printKeys && comm:
				fmt.Printf("%s %d\n", strings.TrimRight(string(commKey[:]), "\x00"), v)
			case printKeys:
				fmt.Printf("%d %d\n", key, v)
			}
		}
		total += v
	}
	return total, keys, it.Err()
}

// waitDetach waits for a signal or for d (when d > 0), then detaches every
// link; it returns nil, for the caller's deferred clean-up.
func waitDetach(sig <-chan os.Signal, d time.Duration, links []link.Link) []link.Link {
	var timeout <-chan time.Time
	if d > 0 {
		timeout = time.After(d)
	}
	select {
	case <-sig:
	case <-timeout:
	}
	for _, l := range links {
		l.Close()
	}
	return nil
}
