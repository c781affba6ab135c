package pid

import (
	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

// Machine code of x86-64 functions, decoded to place probes: offset
// probes only where an instruction starts, return probes where DTrace's
// pid provider puts them.

// fn is a function's code as it is in the file; addr is its symbol value.
type fn struct {
	addr uint64
	code []byte
}

// walk decodes f from its start, calling visit with each instruction's
// offset; it stops at the first byte it cannot decode (padding after the
// last instruction, data in the text) and returns that offset with the
// error.
func (f fn) walk(visit func(off uint64, in x86asm.Inst)) (uint64, error) {
	var off uint64
	for off < uint64(len(f.code)) {
		in, err := x86asm.Decode(f.code[off:], 64)
		if err != nil || in.Len == 0 {
			return off, fmt.Errorf("cannot decode the instruction at offset %#x", off)
		}
		visit(off, in)
		off += uint64(in.Len)
	}
	return off, nil
}

// checkOffset reports nil when off is the start of an instruction of f.
func checkOffset(f fn, off uint64) error {
	if off >= uint64(len(f.code)) {
		return fmt.Errorf("offset %#x is beyond the end of the function (%d bytes)", off, len(f.code))
	}
	var inside *x86asm.Inst
	var at uint64
	found := false
	stop, err := f.walk(func(o uint64, in x86asm.Inst) {
		if o == off {
			found = true
		}
		if o < off && off < o+uint64(in.Len) {
			in := in
			inside, at = &in, o
		}
	})
	switch {
	case found:
		return nil
	case inside != nil:
		return fmt.Errorf("offset %#x is inside the instruction at %#x (%s, %d bytes): probes go on instruction boundaries",
			off, at, x86asm.GNUSyntax(*inside, f.addr+at, nil), inside.Len)
	case err != nil && off >= stop:
		return fmt.Errorf("offset %#x is past what can be decoded of the function (%v)", off, err)
	}
	return fmt.Errorf("offset %#x is not on an instruction boundary", off)
}

// returns lists the offsets of f's returns as DTrace's pid provider finds
// them (dt_pid_create_return_probe in illumos's libdtrace): every ret,
// and every direct jump out of the function, which is a tail call.
// Decoding stops at the first undecodable byte (padding); an indirect
// jump is not taken for a return.
func returns(f fn) []uint64 {
	var out []uint64
	end := f.addr + uint64(len(f.code))
	f.walk(func(o uint64, in x86asm.Inst) {
		switch in.Op {
		case x86asm.RET:
			out = append(out, o)
		case x86asm.JMP:
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				target := f.addr + o + uint64(in.Len) + uint64(int64(rel))
				if target < f.addr || target >= end {
					out = append(out, o)
				}
			}
		}
	})
	return out
}
