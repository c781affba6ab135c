package codegen

// fds.go reads the members of fds[n], the fileinfo_t of the current
// process's descriptor n (probe.FdsFileinfoT), from the kernel's
// structures: current->files->fdt->fd[n] is the struct file, its members
// found by BTF-relocated offsets. A descriptor that is not open reads as
// "<none>" and 0, as DTrace's translator gives them.
//
// Paths (fi_pathname, fi_dirname, fi_mount) are built as d_path() builds
// them, in BPF: from the file's dentry up to the process's root, crossing
// from a mount's root to the dentry it is mounted on, each name written
// before the previous one at the end of a scratch buffer:
//
//	pos = n - 1
//	for i := 0; i < maxPathSteps; i++ {
//		if d == root.dentry && mnt == root.mnt { done }
//		if d == mnt->mnt_root {          // cross to the parent mount
//			m = container_of(mnt, struct mount, mnt)
//			if m->mnt_parent == m { unknown }  // not reachable from the root
//			d, mnt = m->mnt_mountpoint, &m->mnt_parent->mnt
//			continue
//		}
//		if d->d_parent == d { unknown }      // a pipe, a socket, a deleted tree
//		if !skip { pos -= len(d->d_name) + 1; buf[pos] = '/'; copy(buf[pos+1:], d->d_name) }
//		skip = false; d = d->d_parent
//	}
//	unknown

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/provider"
)

// maxPathSteps bounds the walk of a path: names and mount crossings.
const maxPathSteps = 24

// fdFile leaves in R0 the struct file pointer of fds[n]'s descriptor, 0
// when it is not open: a descriptor of the clause's subject thread's
// process (the current one but for probes such as sched:::on-cpu).
func (g *gen) fdFile(x *ast.SelectorExpr) {
	ix := ast.Unparen(x.X).(*ast.IndexExpr)
	none, done := g.label("fd_none"), g.label("fd_done")
	g.expr(ix.Indices[0])
	fd := g.push()
	g.subjectTask(asm.R0) // the clause's thread (sched:::on-cpu's incoming one)
	g.kernField(asm.R0, "task_struct", "files", 8)
	g.emit(asm.JEq.Imm(asm.R0, 0, none))
	g.kernField(asm.R0, "files_struct", "fdt", 8)
	g.emit(asm.JEq.Imm(asm.R0, 0, none))
	fdt := g.push()
	g.kernField(asm.R0, "fdtable", "max_fds", 4)
	g.emit(
		asm.LoadMem(asm.R1, asm.R10, fd, asm.DWord),
		asm.JSLT.Imm(asm.R1, 0, none),
		asm.JGE.Reg(asm.R1, asm.R0, none),
		asm.LoadMem(asm.R3, asm.R10, fdt, asm.DWord),
	)
	g.kernField(asm.R3, "fdtable", "fd", 8)
	g.emit(
		asm.JEq.Imm(asm.R0, 0, none),
		asm.LoadMem(asm.R1, asm.R10, fd, asm.DWord),
		asm.LSh.Imm(asm.R1, 3),
		asm.Add.Reg(asm.R0, asm.R1),
		asm.Mov.Reg(asm.R3, asm.R0),
	)
	g.readKernelR3(8)
	g.emit(
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(none),
		asm.Mov.Imm(asm.R1, 0).WithSymbol(done),
	)
	g.stack -= 16 // fd and fdt
}

// fdMemberInt loads an integer member of fds[n] into R0.
func (g *gen) fdMemberInt(x *ast.SelectorExpr, m *provider.Member) {
	done := g.label("fd_int")
	g.fdFile(x)
	for i, st := range m.File {
		g.emit(asm.JEq.Imm(asm.R0, 0, done))
		size := 8
		if i == len(m.File)-1 {
			size = m.Size
		}
		g.kernField(asm.R0, st.Struct, st.Field, size)
	}
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done))
	if m.Size < 8 {
		g.normalize(asm.R0, &check.Type{Kind: check.Int, Size: m.Size, Signed: m.Signed})
	}
}

// fdMemberStrInto writes a string member of fds[n] into
// scratch[off:off+n], NUL-padded.
func (g *gen) fdMemberStrInto(x *ast.SelectorExpr, m *provider.Member, off, n int) {
	none, unknown, done := g.label("fd_snone"), g.label("fd_sunknown"), g.label("fd_sdone")
	g.zero(off, n)
	g.fdFile(x)
	g.emit(asm.JEq.Imm(asm.R0, 0, none))
	if m.Path != 0 {
		g.pathInto(m, off, n, unknown, done)
	} else {
		for _, st := range m.File {
			g.kernField(asm.R0, st.Struct, st.Field, 8)
			g.emit(asm.JEq.Imm(asm.R0, 0, unknown))
		}
		g.emit(
			asm.Mov.Reg(asm.R3, asm.R0),
			asm.Mov.Reg(asm.R1, rS),
			asm.Add.Imm(asm.R1, int32(off)),
			asm.Mov.Imm(asm.R2, int32(min(n, m.Size))),
			asm.FnProbeReadKernelStr.Call(),
			asm.Ja.Label(done),
		)
	}
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(none))
	g.storeLit(off, n, "<none>")
	g.emit(asm.Ja.Label(done))
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(unknown))
	g.storeLit(off, n, "<unknown>")
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
}

// pathInto writes the path m names of the struct file in R0 (not NULL)
// into scratch[off:off+n], jumping to unknown when it cannot be found and
// to done when written.
func (g *gen) pathInto(m *provider.Member, off, n int, unknown, done string) {
	bufSize := roundUp(n, 8)
	buf := g.temp(2*bufSize + 8) // room for the verifier's bound of a copy
	g.stack += 64
	if g.stack > 480 {
		g.errorf(token.Pos{}, "expression too complex: out of BPF stack")
	}
	slot := func(i int) int16 { return int16(-g.stack + 8*i) }
	var (
		dS    = slot(0) // the dentry
		mS    = slot(1) // its struct vfsmount
		rootD = slot(2) // the process's root
		rootM = slot(3)
		posS  = slot(4) // where the path starts in buf
		skipS = slot(5) // 1: the next name is not written (dirname)
		tS    = slot(6) // a struct mount, a child dentry
		lS    = slot(7) // a name's length, a vfsmount
	)
	ld := func(r asm.Register, s int16) asm.Instruction { return asm.LoadMem(r, asm.R10, s, asm.DWord) }
	st := func(s int16, r asm.Register) asm.Instruction { return asm.StoreMem(asm.R10, s, r, asm.DWord) }
	g.emit(st(tS, asm.R0))
	g.kernField(asm.R0, "file", "f_path.mnt", 8)
	g.emit(st(mS, asm.R0), ld(asm.R0, tS))
	g.kernField(asm.R0, "file", "f_path.dentry", 8)
	g.emit(st(dS, asm.R0))
	if m.Path == probe.PathMount {
		g.emit(ld(asm.R0, mS))
		g.kernField(asm.R0, "vfsmount", "mnt_root", 8)
		g.emit(st(dS, asm.R0))
	}
	g.subjectTask(asm.R0) // the clause's thread (sched:::on-cpu's incoming one)
	g.kernField(asm.R0, "task_struct", "fs", 8)
	g.emit(asm.JEq.Imm(asm.R0, 0, unknown), st(tS, asm.R0))
	g.kernField(asm.R0, "fs_struct", "root.mnt", 8)
	g.emit(st(rootM, asm.R0), ld(asm.R0, tS))
	g.kernField(asm.R0, "fs_struct", "root.dentry", 8)
	skip := int32(0)
	if m.Path == probe.PathDir {
		skip = 1
	}
	g.emit(
		st(rootD, asm.R0),
		provider.StoreImm64(asm.R10, posS, int32(bufSize-1)),
		provider.StoreImm64(asm.R10, skipS, skip),
		provider.StoreImm64(rS, int16(buf+bufSize-8), 0),
	)
	found, copyPath := g.label("path_found"), g.label("path_copy")
	for i := 0; i < maxPathSteps; i++ {
		next, mnt, name := g.label("path_next"), g.label("path_mnt"), g.label("path_name")
		// the process's root: done
		g.emit(
			ld(asm.R0, dS), ld(asm.R1, rootD), asm.JNE.Reg(asm.R0, asm.R1, mnt),
			ld(asm.R0, mS), ld(asm.R1, rootM), asm.JEq.Reg(asm.R0, asm.R1, found),
			ld(asm.R0, mS).WithSymbol(mnt),
		)
		g.kernField(asm.R0, "vfsmount", "mnt_root", 8)
		g.emit(ld(asm.R1, dS), asm.JNE.Reg(asm.R0, asm.R1, name))
		// the root of a mount: on to the dentry it is mounted on, in
		// the parent mount; a mount without a parent is not reachable
		g.emit(ld(asm.R0, mS))
		g.mountOf(asm.R0)
		g.emit(st(tS, asm.R0))
		g.kernField(asm.R0, "mount", "mnt_parent", 8)
		g.emit(
			asm.JEq.Imm(asm.R0, 0, unknown),
			ld(asm.R1, tS), asm.JEq.Reg(asm.R0, asm.R1, unknown),
			plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "mount", "mnt"),
			asm.Add.Reg(asm.R0, asm.R1),
			st(lS, asm.R0),
			ld(asm.R0, tS),
		)
		g.kernField(asm.R0, "mount", "mnt_mountpoint", 8)
		g.emit(st(dS, asm.R0), ld(asm.R0, lS), st(mS, asm.R0), asm.Ja.Label(next))
		// a name: written unless skipped; then on to the parent
		g.emit(ld(asm.R0, dS).WithSymbol(name))
		g.kernField(asm.R0, "dentry", "d_parent", 8)
		g.emit(
			asm.JEq.Imm(asm.R0, 0, unknown),
			ld(asm.R1, dS), asm.JEq.Reg(asm.R0, asm.R1, unknown),
			st(tS, asm.R1), st(dS, asm.R0),
			ld(asm.R0, skipS), provider.StoreImm64(asm.R10, skipS, 0), asm.JNE.Imm(asm.R0, 0, next),
			ld(asm.R0, tS),
		)
		g.kernField(asm.R0, "dentry", "d_name.len", 4)
		g.emit(
			st(lS, asm.R0),
			ld(asm.R1, posS), asm.Sub.Reg(asm.R1, asm.R0), asm.Sub.Imm(asm.R1, 1),
			asm.JSLT.Imm(asm.R1, 0, unknown), asm.JSGT.Imm(asm.R1, int32(bufSize-1), unknown),
			st(posS, asm.R1),
			asm.Mov.Reg(asm.R2, rS), asm.Add.Imm(asm.R2, int32(buf)), asm.Add.Reg(asm.R2, asm.R1),
			asm.StoreImm(asm.R2, 0, '/', asm.Byte),
			ld(asm.R0, tS),
		)
		g.kernField(asm.R0, "dentry", "d_name.name", 8)
		g.emit(
			asm.Mov.Reg(asm.R3, asm.R0),
			ld(asm.R4, posS),
			asm.JSLT.Imm(asm.R4, 0, unknown), asm.JSGT.Imm(asm.R4, int32(bufSize-1), unknown),
			asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(buf+1)), asm.Add.Reg(asm.R1, asm.R4),
			ld(asm.R2, lS), asm.JGT.Imm(asm.R2, int32(bufSize-1), unknown),
			asm.FnProbeReadKernel.Call(),
			asm.Mov.Imm(asm.R0, 0).WithSymbol(next),
		)
	}
	g.emit(asm.Ja.Label(unknown))
	// found: the path starts at buf+pos; none written is "/"
	g.emit(ld(asm.R1, posS).WithSymbol(found), asm.JNE.Imm(asm.R1, int32(bufSize-1), copyPath))
	g.storeLit(off, n, "/")
	g.emit(
		asm.Ja.Label(done),
		asm.JSLT.Imm(asm.R1, 0, unknown).WithSymbol(copyPath),
		asm.JSGT.Imm(asm.R1, int32(bufSize-1), unknown),
		asm.Mov.Reg(asm.R3, rS), asm.Add.Imm(asm.R3, int32(buf)), asm.Add.Reg(asm.R3, asm.R1),
		asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(n)),
		asm.FnProbeReadKernelStr.Call(),
		asm.Ja.Label(done),
	)
	g.stack -= 64
}

// mountOf turns the struct vfsmount pointer in r into its struct mount
// (container_of(r, struct mount, mnt)); R1 is clobbered.
func (g *gen) mountOf(r asm.Register) {
	g.emit(
		plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "mount", "mnt"),
		asm.Sub.Reg(r, asm.R1),
	)
}
