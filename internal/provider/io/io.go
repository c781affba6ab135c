// Package io is the io provider: block device I/O, on the block layer's
// stable tracepoints (BTF-typed raw tracepoints on the request).
//
//	start  block_rq_issue: a request goes to the device
//	done   block_rq_complete: the device finished it
//
// args[0] is a bufinfo_t (b_flags with B_READ or B_WRITE, b_bcount,
// b_blkno, b_edev, b_error), args[1] a devinfo_t (dev_major, dev_minor,
// dev_statname, dev_name). start fires for the thread that made the
// request, as DTrace's does, though Linux issues it in whichever thread
// dispatches the queue: its Subject is provider.SubjectRequest, which the
// code generator keeps from block_io_start (internal/codegen/reqsubj.go).
// done fires in whatever thread or interrupt completes the request, as
// DTrace's. fileinfo_t (args[2]) cannot be filled from the block layer
// and is absent; wait-start and wait-done have no tracepoint.
package io

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "io" }

const (
	xb = provider.XlateBuf
	xd = provider.XlateDev
)

// BufinfoT is bufinfo_t.
var BufinfoT = &provider.Struct{Name: "bufinfo_t", Members: []provider.Member{
	{Name: "b_flags", Type: "int", Off: xb, Size: 4, Signed: true},
	{Name: "b_error", Type: "int", Off: xb + 4, Size: 4, Signed: true},
	{Name: "b_bcount", Type: "size_t", Off: xb + 8, Size: 8},
	{Name: "b_blkno", Type: "diskaddr_t", Off: xb + 16, Size: 8},
	{Name: "b_lblkno", Type: "diskaddr_t", Off: xb + 16, Size: 8},
	{Name: "b_edev", Type: "dev_t", Off: xb + 24, Size: 8},
	{Name: "b_resid", Type: "size_t", Off: xb + 32, Size: 8},
}}

// DevinfoT is devinfo_t.
var DevinfoT = &provider.Struct{Name: "devinfo_t", Members: []provider.Member{
	{Name: "dev_major", Type: "int", Off: xd, Size: 4, Signed: true},
	{Name: "dev_minor", Type: "int", Off: xd + 4, Size: 4, Signed: true},
	{Name: "dev_instance", Type: "int", Off: xd + 4, Size: 4, Signed: true},
	{Name: "dev_statname", Type: "char [32]", Kind: provider.MemberString, Off: xd + 8, Size: 32},
	{Name: "dev_name", Type: "char [32]", Kind: provider.MemberString, Off: xd + 8, Size: 32},
}}

var reqArgs = []provider.Arg{
	{Type: "struct request *", XType: "bufinfo_t *", Struct: BufinfoT},
	{Type: "struct request *", XType: "devinfo_t *", Struct: DevinfoT},
}

var defs = []provider.HookProbe{
	{Name: "start", Tracepoint: "block_rq_issue", Args: reqArgs, Subject: provider.SubjectRequest},
	{Name: "done", Tracepoint: "block_rq_complete", Args: reqArgs},
}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider: bufinfo_t and devinfo_t from the
// request.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	r, ctx := provider.RegScratch, provider.RegCtx
	x := int16(provider.CtxXlate)
	insns := provider.PrologueStart(pr.ID)
	if !n.Args[0] && !n.Args[1] {
		return insns, nil
	}
	insns = append(insns, provider.Clear(xb, provider.XlateFile-xb)...)
	insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord)) // the request
	if pr.Name == "done" {
		// block_rq_complete(rq, error, nr_bytes): the bytes completed
		insns = append(insns, provider.HookArg32(2, x+xb+8, false)...)
		insns = append(insns, provider.HookArg32(1, provider.CtxTemp, true)...)
		insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word), asm.StoreMem(r, x+xb+4, asm.R0, asm.Word))
	} else {
		insns = append(insns, provider.ReadField(asm.R8, "request", "__data_len", x+xb+8, 4)...)
	}
	insns = append(insns, provider.ReadField(asm.R8, "request", "__sector", x+xb+16, 8)...)
	// b_flags: B_READ for REQ_OP_READ (0), B_WRITE otherwise
	insns = append(insns, provider.ReadField(asm.R8, "request", "cmd_flags", provider.CtxTemp, 4)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word),
		asm.And.Imm(asm.R0, 0xff),
		asm.Mov.Imm(asm.R1, 0x0040), // B_READ
		asm.JEq.Imm(asm.R0, 0, "io_rw"),
		asm.Mov.Imm(asm.R1, 0x0100), // B_WRITE
		asm.StoreMem(r, x+xb, asm.R1, asm.Word).WithSymbol("io_rw"),
	)
	// the disk: rq->q->disk: major, first_minor, disk_name
	insns = append(insns, provider.ReadField(asm.R8, "request", "q", provider.CtxTemp, 8)...)
	insns = append(insns, asm.LoadMem(asm.R4, r, provider.CtxTemp, asm.DWord))
	insns = append(insns, provider.ReadField(asm.R4, "request_queue", "disk", provider.CtxTemp, 8)...)
	insns = append(insns, asm.LoadMem(asm.R9, r, provider.CtxTemp, asm.DWord))
	insns = append(insns, asm.JEq.Imm(asm.R9, 0, "io_nodisk"))
	insns = append(insns, provider.ReadField(asm.R9, "gendisk", "major", x+xd, 4)...)
	insns = append(insns, provider.ReadField(asm.R9, "gendisk", "first_minor", x+xd+4, 4)...)
	insns = append(insns, provider.ReadField(asm.R9, "gendisk", "disk_name", x+xd+8, 31)...)
	// b_edev as Linux encodes a dev_t: major << 20 | minor
	insns = append(insns,
		asm.LoadMem(asm.R0, r, x+xd, asm.Word),
		asm.LSh.Imm(asm.R0, 20),
		asm.LoadMem(asm.R1, r, x+xd+4, asm.Word),
		asm.Or.Reg(asm.R0, asm.R1),
		asm.StoreMem(r, x+xb+24, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("io_nodisk"),
	)
	return insns, nil
}

// Attributes implements provider.Attributed: illumos's for io.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
