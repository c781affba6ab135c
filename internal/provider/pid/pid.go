// Package pid is DTrace's pid provider on uprobes: pid<PID>:<module>:
// <function>:entry, :return and :<hex offset> probes on the functions of
// the objects a process maps, placed from their ELF symbol tables.
//
// Return probes are placed, as DTrace places them, on the function's
// return instructions (and on jumps out of it, tail calls), found by
// decoding its code: arg0 is the offset of the return in the function,
// arg1 the return value. Offset probes are placed only on instruction
// boundaries, so that a mistyped offset cannot corrupt the process.
//
// A function whose instructions are not known for certain (see package
// insn: bytes that do not decode, decoders that disagree, a jump into the
// middle of an instruction) gets no probe but its entry probe: a glob
// leaves it without a return probe and says so on standard error, once
// per function; pid$1::f:return and an offset probe in it are errors.
package pid

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/insn"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
)

// MaxProbes is the size of the provider's probe ID range.
const MaxProbes = 1 << 22

// Provider is the pid provider. Its probes are numbered from 0 as they are
// first matched.
type Provider struct {
	// Warn receives the warnings about functions left without return
	// probes (their instructions are not known for certain); nil is
	// standard error.
	Warn io.Writer

	mu      sync.Mutex
	ids     map[string]uint32
	files   map[string]*sym.File
	warned  map[string]bool // path NUL function: told already
	pending []string        // warnings not yet told
}

// Name implements provider.Provider.
func (*Provider) Name() string { return "pid" }

// LoadsLate implements provider.LateLoader.
func (*Provider) LoadsLate() {}

// Serves implements provider.Family: pid followed by a process ID.
func (*Provider) Serves(d provider.Desc) bool {
	_, ok := parsePID(d.Provider)
	return ok
}

func parsePID(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "pid")
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0 && strconv.Itoa(n) == rest
}

// ProgramType implements provider.Provider.
func (*Provider) ProgramType(h provider.Hook) ebpf.ProgramType { return provider.UprobeProgramType(h) }

// Guard implements provider.Provider.
func (*Provider) Guard(h provider.Hook, want, all []*provider.Probe, skip string) asm.Instructions {
	return provider.UprobeGuard(h, want, all, skip)
}

// Prologue implements provider.Provider.
func (*Provider) Prologue(h provider.Hook, _ []*provider.Probe, n provider.Needs, _ string) (asm.Instructions, error) {
	insns := provider.UprobeStart()
	if h.Name == "return" {
		return append(insns, provider.ReturnArgs()...), nil
	}
	return append(insns, provider.FunctionArgs(n)...), nil
}

// Probes implements provider.Provider.
func (p *Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	pid, ok := parsePID(d.Provider)
	if !ok {
		return nil, nil
	}
	if err := provider.UprobeArch(); err != nil {
		return nil, err
	}
	objs, err := sym.Objects(pid)
	if err != nil {
		return nil, fmt.Errorf("pid provider: %w", needsPtrace(err))
	}
	offset, isOffset := parseOffset(d.Name)
	wantEntry := !isOffset && provider.Glob(d.Name, "entry")
	wantReturn := !isOffset && provider.Glob(d.Name, "return")
	if !isOffset && !wantEntry && !wantReturn {
		return nil, nil
	}
	exact := d.Function != "" && !strings.ContainsAny(d.Function, "*?[\\")
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*provider.Probe
	for _, o := range objs {
		if !moduleMatches(d.Module, o) { // modname.go
			continue
		}
		f, err := p.open(o.Open)
		if err != nil {
			if d.Module != "" && !strings.ContainsAny(d.Module, "*?[\\") {
				return nil, fmt.Errorf("pid provider: %s: %w", o.Path, needsPtrace(err))
			}
			continue
		}
		var fns []sym.Symbol
		if exact {
			fns = f.Resolve(d.Function)
		} else {
			fns = functions(f, d.Function)
		}
		if len(fns) == 0 {
			continue
		}
		code, err := os.Open(o.Open)
		if err != nil {
			return nil, fmt.Errorf("pid provider: %w", needsPtrace(err))
		}
		if err := amd64Object(code); err != nil {
			code.Close()
			return nil, fmt.Errorf("pid provider: %s: %w", o.Path, err)
		}
		// One probe per name: same-named functions (static ones of
		// different files) are sites of one probe, as in DTrace.
		byName := map[string][]sym.Symbol{}
		var names []string
		for _, s := range fns {
			if byName[s.Name] == nil {
				names = append(names, s.Name)
			}
			byName[s.Name] = append(byName[s.Name], s)
		}
		for _, name := range names {
			var entry, ret, off []provider.Site
			for _, s := range byName[name] {
				start, ok := f.VaddrToOffset(s.Value)
				if !ok {
					continue
				}
				site := provider.Site{Path: o.Open, Offset: start, PID: pid}
				if wantEntry {
					if probeable(code, start) {
						entry = append(entry, site)
					} else if exact && d.Name == "entry" {
						code.Close()
						return nil, fmt.Errorf("pid provider: %s`%s: the kernel cannot place a uprobe on its first instruction (a lock, segment or VEX/EVEX prefix)", o.Mod, name)
					}
				}
				if !wantReturn && !isOffset {
					continue
				}
				buf := make([]byte, s.Size)
				if _, err := code.ReadAt(buf, int64(start)); err != nil {
					if exact {
						code.Close()
						return nil, fmt.Errorf("pid provider: %s`%s: reading its code: %w", o.Mod, name, err)
					}
					continue
				}
				f := insn.Func{Addr: s.Value, Code: buf}
				if isOffset {
					if err := insn.CheckOffset("amd64", f, offset); err != nil {
						code.Close()
						return nil, fmt.Errorf("pid provider: %s`%s: %w", o.Mod, name, err)
					}
					site.Offset = start + offset
					if !probeable(code, site.Offset) {
						code.Close()
						return nil, fmt.Errorf("pid provider: %s`%s+%#x: the kernel cannot place a uprobe on this instruction (a lock or segment prefix, a VEX or EVEX encoding, or an opcode it refuses)", o.Mod, name, offset)
					}
					off = append(off, site)
					continue
				}
				rets, err := returnSites(code, f, start)
				if err != nil {
					if exact && d.Name == "return" {
						code.Close()
						return nil, fmt.Errorf("pid provider: %s`%s: no return probe: %w", o.Mod, name, err)
					}
					p.skip(o.Open, o.Mod, name, err)
					continue
				}
				for _, r := range rets {
					rs := site
					rs.Offset, rs.Extra = start+r, uint32(r)
					ret = append(ret, rs)
				}
			}
			add := func(probe string, kind string, sites []provider.Site) {
				if len(sites) == 0 {
					return
				}
				out = append(out, &provider.Probe{
					ID:       p.id(pid, o.Mod, name, probe),
					Provider: d.Provider, Module: o.Mod, Function: name, Name: probe,
					Hook:  provider.Hook{Kind: provider.HookUprobe, Name: kind, PID: pid},
					Sites: sites,
				})
			}
			add("entry", "entry", entry)
			add("return", "return", ret)
			if isOffset {
				add(strconv.FormatUint(offset, 16), "offset", off)
			}
		}
		code.Close()
	}
	p.flushWarnings()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// amd64Object returns an error unless r is an x86-64 ELF object. The
// decoder that finds return sites and checks offsets reads x86-64 code, and
// arguments are read by the x86-64 calling convention: in i386 code it
// would place return probes inside instructions (a uprobe's int3 written
// into an immediate changes what the program computes) and read arguments
// from registers the caller never set.
func amd64Object(r io.ReaderAt) error {
	f, err := elf.NewFile(r)
	if err != nil {
		return fmt.Errorf("reading its ELF header: %w", err)
	}
	if f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_X86_64 {
		return fmt.Errorf("not an x86-64 object (%v, %v): the pid provider decodes x86-64 code and reads x86-64 arguments only", f.Class, f.Machine)
	}
	return nil
}

// returnSites returns the offsets of f's return sites, f being at file
// offset start of code: none and an error when f is not decoded with
// certainty (a probe could land inside an instruction, or a return be
// missed), or when the kernel cannot place a uprobe on one of them (a
// return not probed would be a wrong count).
func returnSites(code io.ReaderAt, f insn.Func, start uint64) ([]uint64, error) {
	rets, err := insn.Returns("amd64", f)
	if err != nil {
		return nil, err
	}
	for _, r := range rets {
		if !probeable(code, start+r) {
			return nil, fmt.Errorf("the kernel cannot place a uprobe on its return at %#x (a lock or segment prefix)", r)
		}
	}
	return rets, nil
}

// maxWarnings is how many functions without return probes are named, one
// a line, by one call of Probes; the others are counted.
const maxWarnings = 10

// skip records that function name of the object at path gets no return
// probe, for flushWarnings to tell once.
func (p *Provider) skip(path, mod, name string, err error) {
	k := path + "\x00" + name
	if p.warned[k] {
		return
	}
	if p.warned == nil {
		p.warned = map[string]bool{}
	}
	p.warned[k] = true
	p.pending = append(p.pending, fmt.Sprintf("%s`%s: %v", mod, name, err))
}

// flushWarnings tells on the warning writer (standard error) which
// functions got no return probe since the last call, as DTrace skips and
// counts the functions it cannot instrument.
func (p *Provider) flushWarnings() {
	if len(p.pending) == 0 {
		return
	}
	w := p.Warn
	if w == nil {
		w = os.Stderr
	}
	for i, m := range p.pending {
		if i == maxWarnings {
			fmt.Fprintf(w, "sonde: warning: pid provider: %d more functions without return probes\n", len(p.pending)-maxWarnings)
			break
		}
		fmt.Fprintf(w, "sonde: warning: pid provider: no return probe in %s\n", m)
	}
	p.pending = nil
}

// probeable reports whether the kernel can place a uprobe on the x86-64
// instruction at off. It refuses instructions with a lock or an es, cs,
// ss or ds segment prefix (is_prefix_bad in arch/x86/kernel/uprobes.c),
// VEX and EVEX (AVX) instructions and the one-byte opcodes its
// good_insns_64 table leaves out; a uprobe_multi link with one such site
// fails whole, so they are left out here, and reported.
func probeable(r io.ReaderAt, off uint64) bool {
	var b [15]byte
	n, _ := r.ReadAt(b[:], int64(off))
	for _, c := range b[:n] {
		switch c {
		case 0xf0, 0x26, 0x2e, 0x36, 0x3e:
			return false
		case 0x66, 0x67, 0xf2, 0xf3, 0x64, 0x65:
			continue // other prefixes
		}
		if c >= 0x40 && c <= 0x4f {
			continue // REX
		}
		return !badOpcode[c]
	}
	return false
}

var badOpcode = func() (t [256]bool) {
	for _, c := range []byte{0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f,
		0x60, 0x61, 0x62, 0x6c, 0x6d, 0x6e, 0x6f, 0x82, 0x9a, 0xc4, 0xc5, 0xcc, 0xcd, 0xce,
		0xd4, 0xd5, 0xd6, 0xe4, 0xe5, 0xe6, 0xe7, 0xea, 0xec, 0xed, 0xee, 0xef, 0xf1, 0xf4, 0xfa, 0xfb} {
		t[c] = true
	}
	return t
}()

// parseOffset reads an offset probe's name: hexadecimal, as DTrace names
// them (1a, or 0x1a).
func parseOffset(s string) (uint64, bool) {
	if s == "" || strings.ContainsAny(s, "*?[\\") {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return v, err == nil
}

// functions returns f's functions whose names match pattern, one symbol
// per address (aliases share the function's code and its probes).
func functions(f *sym.File, pattern string) []sym.Symbol {
	var out []sym.Symbol
	last := uint64(0)
	for _, s := range f.Symbols() {
		if s.Value == last {
			continue
		}
		last = s.Value
		if provider.Glob(pattern, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

func (p *Provider) open(path string) (*sym.File, error) {
	if p.files == nil {
		p.files = map[string]*sym.File{}
	}
	if f, ok := p.files[path]; ok {
		return f, nil
	}
	f, err := sym.OpenFile(path)
	if err != nil {
		return nil, err
	}
	p.files[path] = f
	return f, nil
}

// id returns the local ID of a probe, numbering new ones.
func (p *Provider) id(pid int, mod, fn, name string) uint32 {
	if p.ids == nil {
		p.ids = map[string]uint32{}
	}
	k := fmt.Sprintf("%d\x00%s\x00%s\x00%s", pid, mod, fn, name)
	if id, ok := p.ids[k]; ok {
		return id
	}
	id := uint32(len(p.ids))
	p.ids[k] = id
	return id
}

// needsPtrace adds to a permission error met reading a process's files
// the privilege it takes: another user's process is read through
// /proc/PID with CAP_SYS_PTRACE.
func needsPtrace(err error) error {
	if !errors.Is(err, os.ErrPermission) || os.Geteuid() == 0 {
		return err
	}
	return fmt.Errorf("%w: another user's process needs CAP_SYS_PTRACE (or root)", err)
}

// Attributes implements provider.Attributed: illumos's for pid.
func (*Provider) Attributes() provider.Pattr { return provider.PidAttr }
