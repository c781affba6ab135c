package check_test

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
)

// fakeKernel is a kernel with a struct task_struct (comm, pid, a pointer
// to its parent) and a struct sock whose members a union holds.
type fakeKernel struct{ asked []string }

func (k *fakeKernel) KernelType(name string) *check.Type {
	k.asked = append(k.asked, name)
	switch name {
	case "struct task_struct":
		task := &check.Type{Kind: check.Struct, Name: "struct task_struct", Size: 32, Align: 8}
		comm := &check.Type{Kind: check.Array, Elem: check.TChar, Size: 16, Name: "char [16]"}
		task.Fields = []*check.Field{
			{Name: "pid", Type: check.TInt, Offset: 0, Kernel: "task_struct"},
			{Name: "real_parent", Type: &check.Type{Kind: check.Pointer, Size: 8, Elem: task, Name: "struct task_struct *"}, Offset: 8, Kernel: "task_struct"},
			{Name: "comm", Type: comm, Offset: 16, Kernel: "task_struct"},
		}
		return task
	case "struct sock":
		return &check.Type{Kind: check.Struct, Name: "struct sock", Size: 4, Align: 2, Fields: []*check.Field{
			{Name: "skc_dport", Type: check.TUshort, Offset: 0, Kernel: "sock"},
			{Name: "skc_num", Type: check.TUshort, Offset: 2, Kernel: "sock"},
		}}
	}
	return nil
}

func TestKernelTypes(t *testing.T) {
	for _, tt := range []struct{ expr, typ string }{
		{"curthread", "struct task_struct *"},
		{"curthread->pid", "int"},
		{"curthread->real_parent->pid", "int"},
		{"curthread->comm", "string"},
		{"((struct sock *)arg0)->skc_num", "uint16_t"},
		{"sizeof (struct sock)", "size_t"},
	} {
		info, errs := checkSource(t, "BEGIN { trace("+tt.expr+"); }", check.Config{Types: &fakeKernel{}})
		if len(errs) > 0 {
			t.Errorf("%s: %s", tt.expr, errText(errs))
			continue
		}
		stmt := info.Clauses[0].Node.Body.Stmts[0].(*ast.ExprStmt)
		got := info.Types[stmt.X.(*ast.CallExpr).Args[0]].String()
		if got != tt.typ {
			t.Errorf("%s: type %s, want %s", tt.expr, got, tt.typ)
		}
	}
}

func TestKernelTypesErrors(t *testing.T) {
	for _, tt := range []struct{ src, err string }{
		{"BEGIN { trace(curthread->nosuch); }", "D_TYPE_MEMBER nosuch is not a member of struct task_struct"},
		{"BEGIN { trace(((struct nosuch *)arg0)->x); }", "D_OP_INCOMPLETE"},
		// without the kernel's types, curthread is an opaque pointer
		{"BEGIN { trace(curthread->pid); }", "D_OPERAND"},
	} {
		cfg := check.Config{Types: &fakeKernel{}}
		if strings.Contains(tt.src, "->pid") {
			cfg.Types = nil
		}
		_, errs := checkSource(t, tt.src, cfg)
		if !strings.Contains(errText(errs), tt.err) {
			t.Errorf("%s: errors %q, want %q", tt.src, errText(errs), tt.err)
		}
	}
}

// A struct the program defines is its own, even when the kernel has one
// of that name; the kernel is not asked.
func TestKernelTypesProgramWins(t *testing.T) {
	k := &fakeKernel{}
	info, errs := checkSource(t, "struct sock { long a; int b; }; BEGIN { x = ((struct sock *)arg0)->b; y = sizeof (struct sock); }", check.Config{Types: k})
	if len(errs) > 0 {
		t.Fatal(errText(errs))
	}
	for e, c := range info.Consts {
		if s, ok := e.(*ast.SizeofExpr); ok && c.Int != 16 {
			t.Errorf("sizeof %v = %d, want 16", s, c.Int)
		}
	}
	for _, f := range info.Fields {
		if f.Kernel != "" || f.Offset != 8 {
			t.Errorf("field %+v, want the program's b at 8", f)
		}
	}
	for _, n := range k.asked {
		if n == "struct sock" {
			t.Errorf("the kernel was asked for the program's struct sock")
		}
	}
}

// A struct the program declares forward stays incomplete: the kernel's
// is not used for it.
func TestKernelTypesForward(t *testing.T) {
	_, errs := checkSource(t, "struct sock; BEGIN { trace(((struct sock *)arg0)->skc_num); }", check.Config{Types: &fakeKernel{}})
	if !strings.Contains(errText(errs), "D_OP_INCOMPLETE") {
		t.Errorf("errors %q, want D_OP_INCOMPLETE", errText(errs))
	}
}
