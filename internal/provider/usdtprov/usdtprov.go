// Package usdtprov is the provider of USDT probes: the .note.stapsdt probes
// of the executables and shared libraries processes map (sys/sdt.h,
// sonde -h headers, python3, libstdc++, postgres...). As in DTrace, a
// provider's probes in process 1234 belong to provider <name>1234
// (python1234:libpython3.11.so.1.0:_PyEval_EvalFrameDefault:function-entry):
// the module is the object's name and the function the one containing the
// probe site. Names map "__" to "-".
//
// A description names the processes through its provider: python$target
// or python1234 one process; a glob (python*, *sql*) every process that
// has a matching provider. Probes with semaphores get them set while
// traced (the kernel's uprobe reference counters). Arguments are decoded
// in BPF from each site's argument specification; the types a sonde-built
// binary records (.note.sonde) type args[], translated where the
// definition says so.
//
// A probe's uprobe goes on the address its note gives, never beside it:
// a 1-byte nop for sys/sdt.h, sonde -h and libbpf's usdt.h (whose
// "nop; nop5" and "nop; nop10" sites a libbpf tracer may probe one byte
// on, on kernels that optimise them). On Linux 6.18 a uprobe on a 5-byte
// nop becomes a call that writes below %rsp, over a leaf function's
// locals: the runtime leaves such sites out (the bare 5-byte nop of older
// sonde -h headers among them).
package usdtprov

import (
	"debug/elf"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
	"github.com/sonde-trace/sonde/internal/usdt"
)

// MaxProbes is the size of the provider's probe ID range.
const MaxProbes = 1 << 22

// Provider is the USDT provider. Probes are numbered from 0 as first
// matched.
type Provider struct {
	mu      sync.Mutex
	ids     map[string]uint32
	files   map[fileKey]*object
	classes []class
	classID map[string]uint32
}

type fileKey struct{ dev, ino uint64 }

// object is one ELF object's probes and symbols.
type object struct {
	u    *usdt.File
	syms *sym.File
	err  error
	// vaddr of the first PT_LOAD, page aligned: bias = base - vaddr
	first uint64
}

// class is one way of reading a site's arguments: its specifications and
// the load bias of its object (for static operands).
type class struct {
	args []usdt.Arg
	bias uint64
}

// Name implements provider.Provider.
func (*Provider) Name() string { return "usdt" }

// LoadsLate implements provider.LateLoader.
func (*Provider) LoadsLate() {}

// Serves implements provider.Family: a provider name ending in a process
// ID, or a glob (but not "*" alone: that would read every process).
func (*Provider) Serves(d provider.Desc) bool {
	pattern := d.Provider
	if pattern == "" || pattern == "*" || strings.HasPrefix(pattern, "pid") {
		return false
	}
	if strings.ContainsAny(pattern, "*?[\\") {
		return true
	}
	_, _, ok := splitPID(pattern)
	return ok
}

// splitPID splits python1234 into python and 1234.
func splitPID(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == 0 || i == len(s) {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	return s[:i], n, err == nil && n > 0
}

// ProgramType implements provider.Provider.
func (*Provider) ProgramType(h provider.Hook) ebpf.ProgramType { return provider.UprobeProgramType(h) }

// Guard implements provider.Provider.
func (*Provider) Guard(h provider.Hook, want, all []*provider.Probe, skip string) asm.Instructions {
	return provider.UprobeGuard(h, want, all, skip)
}

// Probes implements provider.Provider.
func (p *Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	if !p.Serves(d) {
		return nil, nil
	}
	var pids []int
	if strings.ContainsAny(d.Provider, "*?[\\") {
		pids = allPIDs()
	} else {
		_, pid, _ := splitPID(d.Provider)
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return nil, fmt.Errorf("%s: pid %d: %w", d.Provider, pid, syscall.ESRCH)
		}
		pids = []int{pid}
	}
	if err := provider.UprobeArch(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*provider.Probe
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue
		}
		objs, err := sym.Objects(pid)
		if err != nil {
			continue // gone meanwhile
		}
		byKey := map[string]*provider.Probe{}
		any := false
		for _, o := range objs {
			obj := p.object(o)
			if obj.err != nil || len(obj.u.Probes) == 0 {
				continue
			}
			any = true
			if !provider.Glob(d.Module, o.Mod) {
				continue
			}
			bias := uint64(0)
			if obj.u.Type == elf.ET_DYN {
				bias = o.Base - obj.first
			}
			for _, up := range obj.u.Probes {
				prov := up.Provider + strconv.Itoa(pid)
				if up.Err != nil || up.ArgErr != nil || !provider.Glob(d.Provider, prov) || !provider.Glob(d.Name, up.DName()) {
					continue
				}
				fn := ""
				if obj.syms != nil {
					if s, ok := obj.syms.Lookup(up.PC); ok {
						fn = s.Name
					}
				}
				if !provider.Glob(d.Function, fn) {
					continue
				}
				k := prov + "\x00" + o.Mod + "\x00" + fn + "\x00" + up.DName()
				pr := byKey[k]
				if pr == nil {
					pr = &provider.Probe{
						ID:       p.id(k),
						Provider: prov, Module: o.Mod, Function: fn, Name: up.DName(),
						Hook: provider.Hook{Kind: provider.HookUprobe, Name: "usdt", PID: pid},
						Args: args(up, obj.u.TypesOf(up.Provider, up.Name)),
					}
					byKey[k] = pr
					out = append(out, pr)
				}
				pr.Sites = append(pr.Sites, provider.Site{Path: o.Open, Offset: up.Offset,
					RefCtr: up.SemaphoreOffset, PID: pid, Extra: p.class(up.Args, bias)})
			}
		}
		if !any && len(pids) == 1 {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			return nil, fmt.Errorf("process %d (%s) has no USDT probes in the objects it maps%w", pid, strings.TrimSpace(string(comm)), noProbes{})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// args types a probe's arguments: from its type record when the binary
// has one, else by the size and signedness of each argument specification.
func args(up *usdt.Probe, t *usdt.ProbeTypes) []provider.Arg {
	if t != nil && len(t.Native) == len(up.Args) {
		if t.Translated == nil {
			out := make([]provider.Arg, len(t.Native))
			for i, a := range t.Native {
				out[i] = provider.Arg{Type: a.Type, Name: a.Name}
			}
			return out
		}
		out := make([]provider.Arg, len(t.Translated))
		for i, a := range t.Translated {
			n := t.Native[t.Map[i]]
			out[i] = provider.Arg{Type: n.Type, Name: a.Name, XType: a.Type, Native: t.Map[i]}
		}
		return out
	}
	out := make([]provider.Arg, len(up.Args))
	for i, a := range up.Args {
		ty := fmt.Sprintf("uint%d_t", 8*a.Size)
		if a.Signed {
			ty = ty[1:]
		}
		out[i] = provider.Arg{Type: ty}
	}
	return out
}

// allPIDs lists the processes in /proc.
func allPIDs() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// object reads (once per file) the probes and symbols of o.
func (p *Provider) object(o sym.Object) *object {
	if p.files == nil {
		p.files = map[fileKey]*object{}
	}
	k := fileKey{o.Dev, o.Ino}
	if obj, ok := p.files[k]; ok {
		return obj
	}
	obj := &object{}
	p.files[k] = obj
	ef, err := elf.Open(o.Open)
	if err != nil {
		obj.err = err
		return obj
	}
	defer ef.Close()
	obj.u, obj.err = usdt.NewFile(ef)
	if obj.err != nil || len(obj.u.Probes) == 0 {
		return obj
	}
	for _, pr := range ef.Progs {
		if pr.Type == elf.PT_LOAD {
			obj.first = pr.Vaddr &^ 0xfff
			break
		}
	}
	obj.syms, _ = sym.OpenFile(o.Open)
	return obj
}

// class numbers a way of reading arguments (Site.Extra).
func (p *Provider) class(a []usdt.Arg, bias uint64) uint32 {
	if p.classID == nil {
		p.classID = map[string]uint32{}
	}
	var b strings.Builder
	for _, x := range a {
		b.WriteString(x.Spec)
		b.WriteByte(' ')
	}
	static := false
	for _, x := range a {
		static = static || x.Kind == usdt.KindStatic || x.Symbol != ""
	}
	if static {
		fmt.Fprintf(&b, "@%#x", bias)
	} else {
		bias = 0
	}
	k := b.String()
	if id, ok := p.classID[k]; ok {
		return id
	}
	id := uint32(len(p.classes))
	p.classes = append(p.classes, class{a, bias})
	p.classID[k] = id
	return id
}

func (p *Provider) id(k string) uint32 {
	if p.ids == nil {
		p.ids = map[string]uint32{}
	}
	if id, ok := p.ids[k]; ok {
		return id
	}
	id := uint32(len(p.ids))
	p.ids[k] = id
	return id
}

// Prologue implements provider.Provider: the arguments are read as the
// site's class says (the cookie's high half).
func (p *Provider) Prologue(_ provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	insns := provider.UprobeStart()
	for i := 0; i < 10; i++ {
		insns = append(insns, provider.StoreImm64(provider.RegScratch, int16(provider.CtxArg0+8*i), 0))
	}
	if !n.AnyArg() {
		return insns, nil
	}
	seen := map[uint32]bool{}
	var ids []uint32
	for _, pr := range probes {
		for _, s := range pr.Sites {
			if !seen[s.Extra] {
				seen[s.Extra] = true
				ids = append(ids, s.Extra)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	done := skip + "_args"
	insns = append(insns, asm.Mov.Reg(asm.R8, asm.R9), asm.RSh.Imm(asm.R8, 32))
	for _, id := range ids {
		next := fmt.Sprintf("%s_c%d", skip, id)
		c := p.classes[id]
		if len(ids) > 1 {
			insns = append(insns, asm.JNE.Imm(asm.R8, int32(id), next))
		}
		for i, a := range c.args {
			if i < 10 && n.Args[i] {
				insns = append(insns, load(a, c.bias, int16(provider.CtxArg0+8*i))...)
			}
		}
		insns = append(insns, asm.Ja.Label(done))
		insns = append(insns, asm.Mov.Reg(asm.R8, asm.R8).WithSymbol(next))
	}
	return append(insns, asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done)), nil
}

// load emits the read of one argument into the probe context at off,
// extended to 64 bits as its specification's size and sign say. R8 and R9
// are preserved.
func load(a usdt.Arg, bias uint64, off int16) asm.Instructions {
	r := provider.RegScratch
	var insns asm.Instructions
	switch a.Kind {
	case usdt.KindRegister:
		insns = append(insns, asm.LoadMem(asm.R0, provider.RegCtx, int16(a.Reg.CtxOffset()), provider.SizeOf(a.Reg.Size)))
		insns = append(insns, extend(a, a.Reg.Size)...)
		return append(insns, asm.StoreMem(r, off, asm.R0, asm.DWord))
	case usdt.KindImmediate:
		return asm.Instructions{asm.LoadImm(asm.R0, a.Value, asm.DWord), asm.StoreMem(r, off, asm.R0, asm.DWord)}
	}
	// memory: the address into R3
	if a.Kind == usdt.KindStatic || a.Symbol != "" {
		insns = append(insns, asm.LoadImm(asm.R3, int64(bias+a.Addr), asm.DWord))
	} else {
		insns = append(insns, asm.Mov.Imm(asm.R3, 0))
	}
	if a.Kind == usdt.KindMemory {
		if a.Reg.Name != "" {
			insns = append(insns, asm.LoadMem(asm.R4, provider.RegCtx, int16(a.Reg.Offset), asm.DWord), asm.Add.Reg(asm.R3, asm.R4))
		}
		if a.Index.Name != "" {
			insns = append(insns, asm.LoadMem(asm.R4, provider.RegCtx, int16(a.Index.Offset), asm.DWord),
				asm.Mul.Imm(asm.R4, int32(a.Scale)), asm.Add.Reg(asm.R3, asm.R4))
		}
		if a.Symbol == "" {
			insns = append(insns, asm.Add.Imm(asm.R3, int32(a.Offset)))
		}
	}
	insns = append(insns,
		provider.StoreImm64(r, off, 0),
		asm.Mov.Reg(asm.R1, r), asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(a.Size)),
		asm.FnProbeReadUser.Call())
	if a.Signed && a.Size < 8 {
		insns = append(insns, asm.LoadMem(asm.R0, r, off, asm.DWord))
		insns = append(insns, extend(a, a.Size)...)
		insns = append(insns, asm.StoreMem(r, off, asm.R0, asm.DWord))
	}
	return insns
}

// extend sign-extends R0's low n bytes when the argument is signed (loads
// of fewer than 8 bytes zero-extend).
func extend(a usdt.Arg, n int) asm.Instructions {
	if n > a.Size {
		n = a.Size
	}
	if n >= 8 {
		return nil
	}
	sh := int32(64 - 8*n)
	if a.Signed {
		return asm.Instructions{asm.LSh.Imm(asm.R0, sh), asm.ArSh.Imm(asm.R0, sh)}
	}
	return asm.Instructions{asm.LSh.Imm(asm.R0, sh), asm.RSh.Imm(asm.R0, sh)}
}

// noProbes wraps provider.ErrNoProbes without adding to the message.
type noProbes struct{}

func (noProbes) Error() string        { return "" }
func (noProbes) Is(target error) bool { return target == provider.ErrNoProbes }
