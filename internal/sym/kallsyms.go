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
}

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
