package check

// ktypes.go gives a program the types it names but does not declare: the
// running kernel's, which a TypeResolver (the tracer's, from the kernel's
// BTF) supplies. The checker stays pure: it sees kernel types as ordinary
// complete structs, unions and integers, with one more thing on each
// member of a named kernel struct (Field.Kernel) so that code generation
// asks the runtime for the member's offset in the kernel it loads into.
//
//   - curthread is a struct task_struct * when the kernel's type is known.
//   - struct X, union X and enum X that the program (and its libraries)
//     only name are completed from the kernel when a member, sizeof or
//     offsetof needs their contents; a program's own definition wins, and
//     so does its forward declaration ("struct X;" keeps X incomplete, as
//     D's own types hide the kernel's in DTrace).
//   - a typedef name the program does not know is looked up in the kernel.

// TypeResolver gives the checker the kernel's types.
type TypeResolver interface {
	// KernelType returns the complete type called name ("struct sock",
	// "union bpf_attr", "enum pid_type", or a typedef name such as
	// "atomic_t"), or nil when the kernel has none. A struct's pointer
	// members may point to incomplete structs (Align 0): KernelType of
	// their name completes them.
	KernelType(name string) *Type
}

// complete fills t, an incomplete struct or union the program names but
// does not define, from the kernel's type of that name. It reports
// whether t is complete afterwards.
func (c *checker) complete(t *Type) bool {
	if t == nil || t.Kind != Struct || t.Src != nil {
		return false
	}
	if t.Align > 0 {
		return true
	}
	if c.cfg.Types == nil || c.decls().forward[t] {
		return false
	}
	kt := c.cfg.Types.KernelType(t.Name)
	if kt == nil || kt.Kind != Struct || kt.Union != t.Union || kt.Align == 0 {
		return false
	}
	if kt != t {
		t.Fields, t.Size, t.Align = kt.Fields, kt.Size, kt.Align
	}
	return true
}

// kernelTypedef returns the kernel's typedef called name, or nil.
func (c *checker) kernelTypedef(name string) *Type {
	if c.cfg.Types == nil || name == "" {
		return nil
	}
	return c.cfg.Types.KernelType(name)
}

// curthreadType is curthread's type: a pointer to the kernel's struct
// task_struct when it is known, else an opaque pointer.
func (c *checker) curthreadType(def *Type) *Type {
	st := c.tag("struct", "task_struct")
	if !c.complete(st) {
		return def
	}
	return &Type{Kind: Pointer, Size: 8, Elem: st, Name: "struct task_struct *"}
}

// declaredForward records that the program declares t forward: it stays
// incomplete unless the program defines it.
func (c *checker) declaredForward(t *Type) {
	ds := c.decls()
	if ds.forward == nil {
		ds.forward = map[*Type]bool{}
	}
	ds.forward[t] = true
}
