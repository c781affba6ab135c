package codegen

import (
	"github.com/cilium/ebpf/asm"

	"testing"

	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/plan"
)

// oneStruct is a kernel with one struct, whose member b the runtime
// relocates and whose member c (in a union, say) it does not.
type oneStruct struct{}

func (oneStruct) KernelType(name string) *check.Type {
	if name != "struct k" {
		return nil
	}
	return &check.Type{Kind: check.Struct, Name: "struct k", Size: 16, Align: 8, Fields: []*check.Field{
		{Name: "b", Type: check.TLong, Offset: 8, Kernel: "k"},
		{Name: "c", Type: check.TLong, Offset: 8},
	}}
}

// A member of a named kernel struct is read at the offset the runtime
// finds in the kernel's BTF (a FieldOffset mark), not at a constant.
func TestKernelMemberRelocated(t *testing.T) {
	for _, tt := range []struct {
		member string
		marks  int
	}{{"b", 1}, {"c", 0}} {
		src := "BEGIN { trace(((struct k *)arg0)->" + tt.member + "); }"
		prog, errs := parser.ParseFile("t.d", []byte(src), &parser.Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		info, errs := check.Check(progsOf(prog), check.Config{Resolver: fakeResolver, Types: oneStruct{}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		p, err := Generate(info, Options{Providers: fakeResolver})
		if err != nil {
			t.Fatal(err)
		}
		marks := 0
		for _, pr := range p.Programs {
			for _, ins := range pr.Insns {
				if fo, ok := plan.FieldOffsetOf(ins); ok && fo.Struct == "k" {
					marks++
					if fo.Field != "b" || ins.Constant != 8 {
						t.Errorf("%s: mark %+v on %v", tt.member, fo, ins)
					}
				}
			}
		}
		if marks != tt.marks {
			t.Errorf("%s: %d relocations, want %d", tt.member, marks, tt.marks)
		}
	}
}

// stringof() of a pointer reads the string it points to, from kernel
// memory or, for a userland pointer, from user memory.
func TestStringofPointer(t *testing.T) {
	for _, tt := range []struct {
		src string
		fn  asm.BuiltinFunc
	}{
		{`BEGIN { trace(stringof((char *)arg0)); }`, asm.FnProbeReadKernelStr},
		{`BEGIN { trace(stringof((userland char *)arg0)); }`, asm.FnProbeReadUserStr},
		{`BEGIN { s = stringof((char *)arg0); trace(s); }`, asm.FnProbeReadKernelStr},
		{`BEGIN { trace(stringof (char *)arg0); }`, asm.FnProbeReadKernelStr},
	} {
		p, err := compileSource(tt.src, false)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		found := false
		for _, pr := range p.Programs {
			for _, ins := range pr.Insns {
				found = found || ins.IsBuiltinCall() && ins.Constant == int64(tt.fn)
			}
		}
		if !found {
			t.Errorf("%s: no call of %v", tt.src, tt.fn)
		}
	}
}
