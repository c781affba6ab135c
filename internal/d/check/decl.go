package check

// decl.go gives meaning to D's user-defined types and translators (the
// Dynamic Tracing Guide's "Structs and Unions", "Type and Constant
// Definitions" and "Translators"):
//
//   - struct and union declarations get C's layout on LP64 (x86-64 SysV):
//     members at their natural alignment, bit-fields packed into storage
//     units of their declared type as gcc does, a struct's size rounded to
//     its largest alignment, a union as large as its largest member. D's
//     string members take strsize bytes, as in DTrace's translated structs.
//   - enum declarations define int constants (as inlines); typedef names
//     any type.
//   - p->m reads member m from the memory p points to (user memory when p
//     is a userland pointer), &p->m is p plus the member's offset, and a
//     char array member reads as a string.
//   - translator declarations are kept by (output, input) type; xlate<T>(e)
//     and xlate<T *>(e) pick one as DTrace's dt_xlator_lookup does (exact
//     input type, then the type with typedefs resolved, then any compatible
//     one), and a member of a translation is its translator's expression
//     for that member alone, with the translator's parameter bound to e.
//   - probe arguments a provider translates (probe.Arg.XType) are
//     translations of their native argument (Arg.Native).
//
// Results are in Info.Fields, Info.Xlates, Info.XMembers and Info.Params.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/probe"
)

// Translator is a checked translator declaration.
type Translator struct {
	Decl  *ast.TranslatorDecl
	In    *Type  // the input parameter's type
	Out   *Type  // the output struct or union
	Param string // the input parameter's name
	// Members are the member definitions, by member name.
	Members map[string]*ast.TranslatorMember
}

// Xlation is a translation: xlate<T>(e), xlate<T *>(e), or a translated
// probe argument args[i].
type Xlation struct {
	// X is the translator; nil for a probe argument whose translated type
	// is compatible with its native one without translation (a char *
	// argument declared string, an integer of another size): args[i] is
	// then native argument Arg converted to its translated type (a string
	// is read from user memory, as copyinstr does).
	X   *Translator
	Ptr bool // a pointer to the translated struct, not the struct itself
	// Input is the translated expression; nil for a probe argument, which
	// is the native argument Arg (0-based) of type InType.
	Input  ast.Expr
	Arg    int
	InType *Type
}

// XMember is a member of a translation: the expression the translator
// gives it, evaluated with the translator's parameter bound to the input.
type XMember struct {
	Xlation *Xlation
	Field   *Field
	Value   ast.Expr
}

// FieldByName returns the member called name of a declared struct or
// union, or nil.
func (t *Type) FieldByName(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

type declState struct {
	tags    map[string]*Type   // "struct foo", "union foo", "enum foo"
	defs    map[ast.Decl]*Type // each struct, union and enum definition's type
	xlators []*Translator
	param   *Translator // the translator whose members are being checked
	// xargs holds, per clause, each probe's translated arguments (nil
	// entries for the others), in the order of Clause.Probes.
	xargs      map[*Clause][][]*argXlate
	dummy      *Clause // the clause context of declarations
	collecting bool
	forward    map[*Type]bool // declared "struct foo;" by the program (ktypes.go)
}

// argXlate says how a probe gives a translated argument.
type argXlate struct {
	t   *Type    // the translated type
	xl  *Xlation // nil when err is set
	err string   // the argument cannot be translated
}

// decls returns the declaration state, creating it on first use.
func (c *checker) decls() *declState {
	if c.dcl == nil {
		c.dcl = &declState{
			tags:  map[string]*Type{},
			defs:  map[ast.Decl]*Type{},
			xargs: map[*Clause][][]*argXlate{},
			dummy: &Clause{Node: &ast.ProbeClause{
				Probes: []*ast.ProbeDesc{{Text: "translator"}}, Body: &ast.BlockStmt{}}},
		}
	}
	if c.inlined == nil {
		c.inlined = map[*ast.InlineDecl]*Type{}
	}
	if c.clause == nil {
		c.clause = c.dcl.dummy
	}
	return c.dcl
}

// declErr reports an error found in a declaration: at once while the
// declarations are collected (which happens once), else in the final pass.
func (c *checker) declErr(pos token.Pos, tag, format string, args ...any) {
	if c.dcl != nil && c.dcl.collecting {
		c.errs.Add(pos, tag, format, args...)
		return
	}
	c.errorf(pos, tag, format, args...)
}

// collectDecl handles the type and translator declarations of collectDecls.
func (c *checker) collectDecl(d ast.Decl) {
	ds := c.decls()
	ds.collecting = true
	defer func() { ds.collecting = false }()
	switch d := d.(type) {
	case *ast.StructDecl:
		c.structDecl(d)
	case *ast.EnumDecl:
		c.enumDecl(d)
	case *ast.TypedefDecl:
		c.typedefDecl(d)
	case *ast.TranslatorDecl:
		c.translatorDecl(d)
	}
}

// ---------------------------------------------------------------------------
// Types

// resolveType turns a type as written into a Type.
func (c *checker) resolveType(tn *ast.TypeName) *Type {
	if tn == nil {
		return TLong
	}
	t := c.baseType(tn)
	for i := 0; i < tn.Stars; i++ {
		t = &Type{Kind: Pointer, Size: 8, Elem: t, Name: t.String() + " *", User: tn.Userland}
	}
	if f := tn.Func; f != nil {
		t = c.funcType(t, f)
	}
	for i := len(tn.Dims) - 1; i >= 0; i-- {
		n := 0
		if dim := tn.Dims[i]; dim != nil {
			n = c.arrayDim(dim, t)
		}
		t = &Type{Kind: Array, Elem: t, Size: n * t.Size, Name: fmt.Sprintf("%s [%d]", t, n)}
	}
	return t
}

// funcType is the function (or, with Ptr stars, the pointer to a
// function) of signature f returning ret: "int (int, char *)", "int
// (*)(int)". The parameter types are checked; a pointer to a function is a
// pointer like any other, which D may store, compare and print.
func (c *checker) funcType(ret *Type, f *ast.FuncSig) *Type {
	var params []string
	for _, p := range f.Params {
		params = append(params, c.resolveType(p.Type).String())
	}
	if f.Variadic {
		params = append(params, "...")
	}
	if len(params) == 0 {
		params = []string{"void"}
	}
	sig := "(" + strings.Join(params, ", ") + ")"
	fn := &Type{Kind: Void, Elem: ret, Func: true, Name: ret.String() + " " + sig}
	if f.Ptr == 0 {
		return fn
	}
	t := &Type{Kind: Pointer, Size: 8, Elem: fn, Name: ret.String() + " (" + strings.Repeat("*", f.Ptr) + ")" + sig}
	for i := 1; i < f.Ptr; i++ {
		t = &Type{Kind: Pointer, Size: 8, Elem: t, Name: t.Name}
	}
	return t
}

// maxObject is the largest size of a type, in bytes.
const maxObject = math.MaxInt32

// arrayDim checks an array dimension of an array of elem (dt_decl_array):
// a positive integral constant, at most UINT_MAX, and an array that is
// not larger than maxObject. A bad dimension is reported and taken as 1.
func (c *checker) arrayDim(dim ast.Expr, elem *Type) int {
	dt := c.expr(dim)
	v, ok := c.constInt(dim)
	huge := ok && dt != nil && !dt.Signed && v < 0 // past MaxInt64 as unsigned
	switch {
	case elem.Kind == Void:
		c.declErr(dim.Pos(), "D_DECL_VOIDOBJ", "cannot declare array of void")
	case !ok || dt == nil || dt.Kind != Int || (v <= 0 && !huge):
		c.declErr(dim.Pos(), "D_DECL_ARRSUB", "positive integral constant expression or tuple signature expected as array declaration subscript")
	case huge || v > math.MaxUint32 || v > maxObject/max(int64(elem.Size), 1):
		c.declErr(dim.Pos(), "D_DECL_ARRBIG", "array dimension too big")
	case isIncomplete(elem) && !c.complete(elem):
		c.declErr(dim.Pos(), "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: array element", elem.Name)
	default:
		return int(v)
	}
	return 1
}

// opaqueTypes are the types D knows that sonde knows only by size:
// they may be pointed to (inet_ntoa6() takes an in6_addr_t *), not read;
// and the structs of sonde's built-in variables.
var opaqueTypes = map[string]*Type{
	"in6_addr_t": {Kind: Struct, Name: "in6_addr_t", Size: 16, Align: 4},
	"cpuinfo_t":  CpuinfoT, // builtins.go: curcpu's, with its members
}

// floatTypes are the sizes of the floating-point types, which D declares
// but sonde cannot compute with: they only take their room in structs.
var floatTypes = map[string]int{"float": 4, "double": 8, "long double": 16}

func (c *checker) baseType(tn *ast.TypeName) *Type {
	if tn.Def != nil {
		if t := c.decls().defs[tn.Def]; t != nil {
			return t
		}
	}
	if tn.Tag != "" {
		if len(tn.Words) == 0 {
			return TLong // "struct;", already reported
		}
		return c.tag(tn.Tag, tn.Words[0])
	}
	if tag, msg := declSpecs(tn.Words); tag != "" {
		c.declErr(tn.TypePos, tag, "%s", msg)
		return TLong
	}
	spelled := strings.Join(tn.Words, " ")
	if t, ok := c.types[spelled]; ok {
		return t
	}
	if spelled == "string" {
		return StringType(c.cfg.StrSize)
	}
	if n, ok := floatTypes[spelled]; ok {
		return &Type{Kind: Int, Size: n, Signed: true, Name: spelled}
	}
	if canon, ok := canonIntWords(tn.Words); ok {
		spelled = canon
	}
	if t := opaqueTypes[spelled]; t != nil {
		return t
	}
	if kt := c.kernelTypedef(spelled); kt != nil && intTypes[spelled] == nil {
		return kt // ktypes.go
	}
	if intTypes[spelled] == nil && spelled != "void" && spelled != "" {
		// dt_decl_type: a name that is no type D knows
		c.declErr(tn.TypePos, "D_UNKNOWN", "failed to resolve type %s: unknown type name", spelled)
		return TLong
	}
	return ParseCType(spelled)
}

// knownTypeName reports whether tn names a type: a typedef name D knows,
// a built-in type, or a struct, union or enum (declared forward if need
// be). baseType reports the other names.
func (c *checker) knownTypeName(tn *ast.TypeName) bool {
	if tn == nil || tn.Def != nil || tn.Tag != "" {
		return true
	}
	spelled := strings.Join(tn.Words, " ")
	if canon, ok := canonIntWords(tn.Words); ok {
		spelled = canon
	}
	_, typedef := c.types[spelled]
	_, float := floatTypes[spelled]
	return typedef || float || opaqueTypes[spelled] != nil || spelled == "string" || spelled == "void" || spelled == "" || intTypes[spelled] != nil ||
		c.kernelTypedef(spelled) != nil
}

// tag returns the type of struct, union or enum name, declaring it
// forward (incomplete) if it is not known yet, as DTrace does.
func (c *checker) tag(kw, name string) *Type {
	ds := c.decls()
	key := kw + " " + name
	if t, ok := ds.tags[key]; ok {
		return t
	}
	t := &Type{Kind: Struct, Name: key, Union: kw == "union"}
	if kw == "enum" {
		t = &Type{Kind: Int, Size: 4, Signed: true, Name: key}
	}
	ds.tags[key] = t
	return t
}

// typeFromString resolves a provider's C type spelling ("conninfo_t *",
// "struct foo *", "const char *") with the program's declarations, falling
// back on ParseCType for names nothing declares.
func (c *checker) typeFromString(s string) *Type {
	rest := strings.TrimSpace(s)
	stars := 0
	for strings.HasSuffix(rest, "*") {
		stars++
		rest = strings.TrimSpace(strings.TrimSuffix(rest, "*"))
	}
	var kept []string
	user := false
	for _, w := range strings.Fields(rest) {
		switch w {
		case "const", "volatile", "restrict", "__restrict":
			continue
		case "__user", "userland":
			user = true
			continue
		}
		kept = append(kept, w)
	}
	base := strings.Join(kept, " ")
	var t *Type
	if td, ok := c.types[base]; ok {
		t = td
	} else if td, ok := c.decls().tags[base]; ok {
		t = td
	} else if base == "string" {
		t = StringType(c.cfg.StrSize)
	} else {
		return ParseCType(s)
	}
	for i := 0; i < stars; i++ {
		t = &Type{Kind: Pointer, Size: 8, Elem: t, Name: t.String() + " *", User: user}
	}
	return t
}

// knownType reports whether a provider's C type spelling names a type
// D knows: a built-in one or one the program declares (typeFromString
// makes up an integer for other names).
func (c *checker) knownType(s string) bool {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "* "))
	var kept []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "const", "volatile", "restrict", "__restrict", "__user", "userland":
			continue
		}
		kept = append(kept, w)
	}
	base := strings.Join(kept, " ")
	if _, ok := c.types[base]; ok {
		return true
	}
	if t, ok := c.decls().tags[base]; ok {
		return t.Kind != Struct || t.Align > 0
	}
	_, isFloat := floatTypes[base]
	return intTypes[base] != nil || base == "string" || base == "void" || isFloat
}

// alignOf is a type's alignment on LP64.
func alignOf(t *Type) int {
	switch t.Kind {
	case Int:
		return min(max(t.Size, 1), 16)
	case Pointer:
		return 8
	case String:
		return 1
	case Array:
		return alignOf(t.Elem)
	case Struct:
		return max(t.Align, 1)
	}
	return 8
}

func isIncomplete(t *Type) bool { return t.Kind == Struct && t.Src == nil && t.Align == 0 }

// isCharArray reports whether t is an array of char, which D reads as a
// string.
func isCharArray(t *Type) bool {
	return t != nil && t.Kind == Array && t.Elem.Kind == Int && t.Elem.Size == 1
}

// ---------------------------------------------------------------------------
// Declarations

func (c *checker) structDecl(d *ast.StructDecl) {
	ds := c.decls()
	kw := "struct"
	if d.Union {
		kw = "union"
	}
	var t *Type
	if d.Name != "" {
		t = c.tag(kw, d.Name)
		if d.Fields == nil {
			c.declaredForward(t) // ktypes.go: not the kernel's
			return               // struct foo;
		}
		if t.Align > 0 {
			c.declErr(d.StructPos, "D_DECL_TYPERED", "type redeclared: %s", t.Name)
			ds.defs[d] = t
			return
		}
	} else {
		t = &Type{Kind: Struct, Name: kw + " (anon)", Union: d.Union}
	}
	ds.defs[d] = t
	c.layout(t, d)
}

// layout places the members of d in t.
func (c *checker) layout(t *Type, d *ast.StructDecl) {
	var fields []*Field
	seen := map[string]bool{}
	bit, size, align := 0, 0, 1
	for _, m := range d.Fields {
		ft := c.resolveType(m.Type)
		pos := m.NamePos
		if !pos.IsValid() {
			pos = m.Type.TypePos
		}
		name := m.Name
		if name != "" && seen[name] {
			c.declErr(pos, "D_DECL_IDRED", "member redeclared: %s", name)
			continue
		}
		seen[name] = true
		idname := name
		if idname == "" {
			idname = "(anon)"
		}
		if m.Bits != nil {
			f, ok := c.bitField(m, ft, idname, pos)
			if !ok {
				continue
			}
			s := ft.Size
			if f.Bits == 0 { // no more packing into this unit
				if !t.Union {
					bit = roundBits(bit, 8*s)
				}
				continue
			}
			if t.Union {
				size = max(size, (f.Bits+7)/8)
			} else {
				if bit/(8*s) != (bit+f.Bits-1)/(8*s) {
					bit = roundBits(bit, 8*s)
				}
				f.Offset = bit / (8 * s) * s
				f.BitOff = bit - 8*f.Offset
				bit += f.Bits
			}
			if name != "" {
				align = max(align, alignOf(ft))
				fields = append(fields, f)
			}
			continue
		}
		switch {
		case ft.Kind == Void:
			c.declErr(pos, "D_DECL_VOIDOBJ", "cannot have void member: %s", idname)
			continue
		case isIncomplete(ft) && !c.complete(ft):
			c.declErr(pos, "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: %s", ft.Name, idname)
			continue
		case ft.Kind != Int && ft.Kind != Pointer && ft.Kind != String && ft.Kind != Array && ft.Kind != Struct:
			c.declErr(pos, "D_DECL_DYNOBJ", "cannot have dynamic member: %s", idname)
			continue
		}
		a := alignOf(ft)
		align = max(align, a)
		f := &Field{Name: name, Type: ft}
		if t.Union {
			size = max(size, ft.Size)
		} else {
			bit = roundBits(bit, 8*a)
			f.Offset = bit / 8
			bit += 8 * ft.Size
		}
		fields = append(fields, f)
	}
	if !t.Union {
		size = (bit + 7) / 8
	}
	t.Fields = fields
	t.Align = align
	t.Size = (size + align - 1) / align * align
}

func roundBits(n, a int) int { return (n + a - 1) / a * a }

// bitField checks a bit-field member; its Offset and BitOff are set by the
// caller.
func (c *checker) bitField(m *ast.Field, ft *Type, idname string, pos token.Pos) (*Field, bool) {
	c.expr(m.Bits)
	w, ok := c.constInt(m.Bits)
	if !ok || w < 0 || (w == 0 && m.Name != "") {
		c.declErr(m.Bits.Pos(), "D_DECL_BFCONST", "positive integral constant expression expected as bit-field size")
		return nil, false
	}
	if ft.Kind != Int || ft.Size > 8 || floatTypes[ft.Name] != 0 {
		c.declErr(pos, "D_DECL_BFTYPE", "invalid type for bit-field: %s", idname)
		return nil, false
	}
	if w > int64(8*ft.Size) {
		c.declErr(pos, "D_DECL_BFSIZE", "bit-field too big for type: %s", idname)
		return nil, false
	}
	return &Field{Name: m.Name, Type: ft, Bits: int(w)}, true
}

func (c *checker) enumDecl(d *ast.EnumDecl) {
	ds := c.decls()
	var t *Type
	typeName := &ast.TypeName{TypePos: d.EnumPos, Words: []string{"int"}}
	if d.Name != "" {
		t = c.tag("enum", d.Name)
		if d.Names == nil {
			return // enum foo;
		}
		if t.Align > 0 {
			c.declErr(d.EnumPos, "D_DECL_TYPERED", "type redeclared: %s", t.Name)
			return
		}
		typeName = &ast.TypeName{TypePos: d.EnumPos, Tag: "enum", Words: []string{d.Name}}
	} else {
		t = &Type{Kind: Int, Size: 4, Signed: true, Name: "enum (anon)"}
	}
	t.Align = 4
	ds.defs[d] = t
	next := int64(0)
	for i, name := range d.Names {
		v := next
		if e := d.Values[i]; e != nil {
			c.expr(e)
			k, ok := c.constInt(e)
			switch {
			case !ok:
				c.declErr(e.Pos(), "D_DECL_ENCONST", "enumerator '%s' must be assigned to an integral constant expression", name)
			case k > math.MaxInt32 || k < math.MinInt32:
				c.declErr(e.Pos(), "D_DECL_ENOFLOW", "enumerator '%s' value overflows INT_MAX (%d)", name, math.MaxInt32)
			default:
				v = k
			}
		}
		if e := d.Values[i]; e == nil && v > math.MaxInt32 {
			c.declErr(d.EnumPos, "D_DECL_ENOFLOW", "enumerator '%s' value overflows INT_MAX (%d)", name, math.MaxInt32)
		}
		next = v + 1
		if _, dup := c.inlines[name]; dup || LookupBuiltinVar(name) != nil {
			c.declErr(d.EnumPos, "D_DECL_IDRED", "identifier redeclared: %s", name)
			continue
		}
		// An enumerator is an int constant, as an inline is.
		c.inlines[name] = &ast.InlineDecl{InlinePos: d.EnumPos, Type: typeName, Name: name, NamePos: d.EnumPos,
			Value: &ast.IntLit{ValuePos: d.EnumPos, Raw: strconv.FormatInt(v, 10), Value: uint64(v)}}
	}
}

func (c *checker) typedefDecl(d *ast.TypedefDecl) {
	if d.Name == "" {
		return
	}
	t := c.resolveType(d.Type)
	if _, dup := c.types[d.Name]; dup || intTypes[d.Name] != nil || d.Name == "string" {
		c.declErr(d.TypedefPos, "D_DECL_IDRED", "typedef redeclared: %s", d.Name)
		return
	}
	if t.Kind == Struct {
		if strings.HasSuffix(t.Name, "(anon)") {
			t.Name = d.Name // typedef struct { ... } name_t;
		}
	} else {
		cp := *t
		cp.Name = d.Name
		t = &cp
	}
	c.types[d.Name] = t
}

func (c *checker) translatorDecl(d *ast.TranslatorDecl) {
	ds := c.decls()
	out := c.resolveType(d.Output)
	in := c.resolveType(d.Input)
	if out.Kind != Struct || out.Src != nil {
		c.declErr(d.TranslatorPos, "D_XLATE_SOU", "translator output type must be a struct or union")
		return
	}
	if out.Align == 0 {
		c.declErr(d.TranslatorPos, "D_XLATE_SOU", "incomplete struct/union/enum %s", out.Name)
		return
	}
	for _, tr := range ds.xlators {
		if tr.Out == out && exactType(tr.In, in) {
			c.declErr(d.TranslatorPos, "D_XLATE_REDECL", "translator from %s to %s has already been declared", in, out)
			return
		}
	}
	tr := &Translator{Decl: d, In: in, Out: out, Param: d.Param, Members: map[string]*ast.TranslatorMember{}}
	for _, m := range d.Members {
		switch f := out.FieldByName(m.Name); {
		case f == nil:
			c.declErr(m.NamePos, "D_XLATE_MEMB", "translator member %s is not a member of %s", m.Name, out)
		case tr.Members[m.Name] != nil:
			c.declErr(m.NamePos, "D_XLATE_MEMB", "translator member %s is defined more than once", m.Name)
		default:
			tr.Members[m.Name] = m
		}
	}
	ds.xlators = append(ds.xlators, tr)
	c.info.Translators = append(c.info.Translators, tr)
}

// checkTranslators checks the member definitions of every translator
// against the types of the members they define (in each pass, since they
// may read variables whose types the clauses give).
func (c *checker) checkTranslators() {
	if c.dcl == nil {
		return
	}
	saved := c.clause
	c.clause = c.dcl.dummy
	for _, tr := range c.dcl.xlators {
		c.dcl.param = tr
		for _, m := range tr.Decl.Members {
			if tr.Members[m.Name] != m {
				continue
			}
			f := tr.Out.FieldByName(m.Name)
			t := c.expr(m.Value)
			if t != nil && !c.memberCompat(f.Type, t, m.Value) {
				c.errorf(m.NamePos, "D_XLATE_INCOMPAT", "translator member %s definition uses incompatible types: \"%s\" = \"%s\"", m.Name, f.Type, t)
			}
		}
	}
	c.dcl.param = nil
	c.clause = saved
}

// memberCompat reports whether a value of type t may define a translated
// member of type ft (dt_node_is_argcompat).
func (c *checker) memberCompat(ft, t *Type, v ast.Expr) bool {
	switch ft.Kind {
	case Int:
		return t.Kind == Int
	case Pointer:
		if k, ok := c.info.Consts[ast.Unparen(v)]; ok && !k.IsStr && k.Int == 0 && t.Kind == Int {
			return true // NULL
		}
		return t.Kind == Pointer && (ft.Elem.Kind == Void || t.Elem.Kind == Void || sameType(ft.Elem, t.Elem))
	case String:
		return t.Kind == String
	case Array:
		return isCharArray(ft) && t.Kind == String
	}
	return sameType(ft, t)
}

// ---------------------------------------------------------------------------
// Translator lookup

// findXlator returns the translator from in to out, as dt_xlator_lookup
// does: first one whose input type is in exactly, then one equal to in
// with typedefs resolved, then one in is compatible with.
func (c *checker) findXlator(in, out *Type) *Translator {
	if c.dcl == nil {
		return nil
	}
	for _, match := range []func(a, b *Type) bool{exactType, sameType, argCompat} {
		for _, tr := range c.dcl.xlators {
			if tr.Out == out && match(tr.In, in) {
				return tr
			}
		}
	}
	return nil
}

// exactType reports whether a and b are the same type by the same name.
func exactType(a, b *Type) bool {
	return a == b || (a.Name == b.Name && sameType(a, b) && (a.Kind != Pointer || exactType(a.Elem, b.Elem)))
}

// sameType reports whether a and b are the same type, typedef names
// aside.
func sameType(a, b *Type) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Int:
		return a.Size == b.Size && a.Signed == b.Signed
	case Pointer:
		return sameType(a.Elem, b.Elem)
	case Array:
		return a.Size == b.Size && sameType(a.Elem, b.Elem)
	case String, Void:
		return true
	case Struct:
		return a.Src != nil && a.Src == b.Src
	}
	return false
}

// argCompat reports whether an argument of type arg may be passed for a
// parameter of type param: integers for integers, pointers to the same
// type or from or to void *, strings for strings.
func argCompat(param, arg *Type) bool {
	switch {
	case param.Kind == Int && arg.Kind == Int:
		return true
	case param.Kind == Pointer && arg.Kind == Pointer:
		return param.Elem.Kind == Void || arg.Elem.Kind == Void || sameType(param.Elem, arg.Elem)
	}
	return sameType(param, arg)
}

// ---------------------------------------------------------------------------
// Expressions

// xlParam resolves the parameter of the translator being checked.
func (c *checker) xlParam(x *ast.Ident) (*Type, bool) {
	if c.dcl == nil || c.dcl.param == nil || x.Name != c.dcl.param.Param {
		return nil, false
	}
	c.info.Params[x] = c.dcl.param
	return c.dcl.param.In, true
}

// xlate checks xlate<T>(e) and xlate<T *>(e).
func (c *checker) xlate(x *ast.XlateExpr) *Type {
	in := c.expr(x.X)
	out := c.resolveType(x.Type)
	if in == nil {
		return nil
	}
	st, ptr := out, false
	if out.Kind == Pointer {
		st, ptr = out.Elem, true
	}
	var tr *Translator
	if st.Kind == Struct && st.Src == nil {
		tr = c.findXlator(in, st)
	}
	if tr == nil {
		c.errorf(x.XlatePos, "D_XLATE_NONE", "cannot translate from \"%s\" to \"%s\"", in, out)
		return nil
	}
	c.info.Xlates[x] = &Xlation{X: tr, Ptr: ptr, Input: x.X, InType: in}
	if ptr {
		// the translated struct is built in scratch memory
		return &Type{Kind: Pointer, Size: 8, Elem: st, Name: st.String() + " *"}
	}
	return st
}

// offsetof checks offsetof(T, member).
func (c *checker) offsetof(x *ast.OffsetofExpr) *Type {
	t := c.resolveType(x.Type)
	if t.Kind != Struct || t.Src != nil || !c.complete(t) {
		c.errorf(x.OffsetofPos, "D_OFFSETOF_TYPE", "offsetof operand must be a struct or union type")
		return nil
	}
	f := t.FieldByName(x.Member)
	if f == nil {
		c.errorf(x.OffsetofPos, "D_UNKNOWN", "failed to determine offset of %s: Member name not found", x.Member)
		return nil
	}
	if f.Bits > 0 {
		c.errorf(x.OffsetofPos, "D_OFFSETOF_BITFIELD", "cannot take offset of a bit-field: %s", x.Member)
		return nil
	}
	c.info.Consts[x] = Const{Int: int64(f.Offset)}
	return &Type{Kind: Int, Size: 8, Name: "size_t"}
}

// declSelector checks p->m and s.m on declared structs and unions and on
// translations; it reports false for other operands (provider structures,
// errors), which selector handles.
func (c *checker) declSelector(x *ast.SelectorExpr, t *Type) (*Type, bool) {
	st := t
	if x.Arrow {
		if t.Kind != Pointer || t.Elem == nil {
			return nil, false
		}
		st = t.Elem
	}
	if st.Kind != Struct || st.Src != nil {
		return nil, false
	}
	if !c.complete(st) {
		c.errorf(x.OpPos, "D_OP_INCOMPLETE", "operator %s cannot be applied to a forward declaration: no %s definition is available", arrow(x.Arrow), st.Name)
		return nil, true
	}
	f := st.FieldByName(x.Sel)
	if f == nil {
		c.errorf(x.SelPos, "D_TYPE_MEMBER", "%s is not a member of %s", x.Sel, st)
		return nil, true
	}
	if xl := c.xlationOf(x.X); xl != nil && xl.X != nil {
		m := xl.X.Members[x.Sel]
		if m == nil {
			c.errorf(x.SelPos, "D_XLATE_NOCONV", "translator does not define conversion for member: %s", x.Sel)
			return nil, true
		}
		c.info.XMembers[x] = &XMember{Xlation: xl, Field: f, Value: m.Value}
		return c.memberType(f.Type, false), true
	}
	if !x.Arrow && !c.isMemLval(x.X) {
		c.errorf(x.OpPos, "D_OP_SOU", "operator . cannot be applied to this %s value: it is not in memory", st)
		return nil, true
	}
	c.info.Fields[x] = f
	return c.memberType(f.Type, c.memUser(x)), true
}

// xlationOf returns the translation e is, looking through inlines
// (inline psinfo_t *curpsinfo = xlate<psinfo_t *>(curthread);), or nil.
func (c *checker) xlationOf(e ast.Expr) *Xlation {
	for i := 0; i < 100; i++ {
		e = ast.Unparen(e)
		if xl := c.info.Xlates[e]; xl != nil {
			return xl
		}
		id, ok := e.(*ast.Ident)
		if !ok || c.info.Inlines[id] == nil {
			return nil
		}
		e = c.info.Inlines[id].Value
	}
	return nil
}

// memberType is the type a member of type ft has as a value: a char array
// is a string; a pointer or an array in user memory is a userland one.
func (c *checker) memberType(ft *Type, user bool) *Type {
	switch {
	case isCharArray(ft):
		return StringType(min(ft.Size+1, c.cfg.StrSize))
	case user && (ft.Kind == Pointer || ft.Kind == Array) && !ft.User:
		cp := *ft
		cp.User = true
		return &cp
	}
	return ft
}

// isMemLval reports whether e designates memory: a member of a declared
// struct, *p, or a subscript of a pointer or array.
func (c *checker) isMemLval(e ast.Expr) bool {
	if c.svarRooted(e) {
		return true // svar.go: a struct-typed variable's storage
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return c.info.Fields[x] != nil
	case *ast.UnaryExpr:
		return x.Op == token.MUL
	case *ast.IndexExpr:
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
			if c.info.Builtins[id] != nil || (c.info.Uses[id] != nil && c.info.Uses[id].Assoc) {
				return false
			}
		}
		if _, ok := ast.Unparen(x.X).(*ast.SelfVar); ok {
			return false
		}
		t := c.info.Types[x.X]
		return t != nil && (t.Kind == Pointer || t.Kind == Array || c.charArrayMember(x.X) != nil)
	}
	return false
}

// memUser reports whether the memory e designates is user memory.
func (c *checker) memUser(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if x.Arrow {
			t := c.info.Types[x.X]
			return t != nil && t.User
		}
		return c.memUser(x.X)
	case *ast.UnaryExpr:
		t := c.info.Types[x.X]
		return t != nil && t.User
	case *ast.IndexExpr:
		t := c.info.Types[x.X]
		if t != nil && t.Kind == Pointer {
			return t.User
		}
		return (t != nil && t.User) || c.memUser(x.X)
	}
	return false
}

// charArrayMember returns the array type of e when e is a char array
// member (typed as a string), else nil.
func (c *checker) charArrayMember(e ast.Expr) *Type {
	if s, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		if f := c.info.Fields[s]; f != nil && isCharArray(f.Type) {
			return f.Type
		}
	}
	return nil
}

// indexBase is the type a subscript applies to: a char array member,
// which reads as a string, is subscripted as the array it is.
func (c *checker) indexBase(e ast.Expr, t *Type) *Type {
	if t.Kind == String {
		if at := c.charArrayMember(e); at != nil {
			if c.memUser(e) {
				cp := *at
				cp.User = true
				return &cp
			}
			return at
		}
	}
	return t
}

// addrOf checks &e (t is e's type): the address of memory, a pointer to
// what is there.
func (c *checker) addrOf(x *ast.UnaryExpr, t *Type) *Type {
	e := ast.Unparen(x.X)
	if c.svarRooted(e) {
		c.errorf(x.OpPos, "D_ADDROF_VAR", "cannot take address of dynamic variable")
		return nil
	}
	if !c.isMemLval(e) {
		switch e.(type) {
		case *ast.Ident, *ast.SelfVar, *ast.ThisVar, *ast.IndexExpr:
			c.errorf(x.OpPos, "D_ADDROF_VAR", "cannot take address of dynamic variable")
		default:
			c.errorf(x.OpPos, "D_ADDROF_LVAL", "unacceptable operand for unary & operator")
		}
		return nil
	}
	elem := t
	if s, ok := e.(*ast.SelectorExpr); ok {
		f := c.info.Fields[s]
		if f.Bits > 0 {
			c.errorf(x.OpPos, "D_ADDROF_BITFIELD", "cannot take address of bit-field")
			return nil
		}
		elem = f.Type
	}
	return &Type{Kind: Pointer, Size: 8, Elem: elem, Name: elem.String() + " *", User: c.memUser(e)}
}

// ---------------------------------------------------------------------------
// Translated probe arguments

// xlatedArg types argument j of cl's probe i when its provider translates
// it (XType set, with no structure of the provider's own): a translation
// of native argument a.Native from a.Type to a.XType, or, when no
// translator exists, an error reported where the argument is used.
func (c *checker) xlatedArg(cl *Clause, i, j int, a probe.Arg) *argXlate {
	if a.XType == "" || a.Struct != nil {
		c.recordXarg(cl, i, j, nil)
		return nil
	}
	xt := c.typeFromString(a.XType)
	nt := c.typeFromString(a.Type)
	ax := &argXlate{t: xt}
	st, ptr := xt, false
	if xt.Kind == Pointer && xt.Elem.Kind == Struct {
		st, ptr = xt.Elem, true
	}
	switch {
	case st.Kind == Struct && st.Src == nil && c.findXlator(nt, st) != nil:
		ax.xl = &Xlation{X: c.findXlator(nt, st), Ptr: ptr, Arg: a.Native, InType: nt}
	case !c.knownType(a.XType) || !c.knownType(a.Type):
		ax.err = fmt.Sprintf("translator for args[%d] from %s to %s is not defined (load its library with -L)", j, nt, xt)
	case argCompat(xt, nt) || (xt.Kind == String && nt.Kind == Pointer && nt.Elem.Kind == Int && nt.Elem.Size == 1):
		ax.xl = &Xlation{Arg: a.Native, InType: nt}
	default:
		ax.err = fmt.Sprintf("translator for args[%d] from %s to %s is not defined (load its library with -L)", j, nt, xt)
	}
	c.recordXarg(cl, i, j, ax)
	return ax
}

func (c *checker) recordXarg(cl *Clause, i, j int, ax *argXlate) {
	ds := c.decls()
	rows := ds.xargs[cl]
	for len(rows) <= i {
		rows = append(rows, nil)
	}
	for len(rows[i]) <= j {
		rows[i] = append(rows[i], nil)
	}
	rows[i][j] = ax
	ds.xargs[cl] = rows
}

// xargsAgree drops the clause's args[] types when its probes translate
// their arguments differently.
func (c *checker) xargsAgree(cl *Clause) {
	if c.dcl == nil || cl.Args == nil {
		return
	}
	rows := c.dcl.xargs[cl]
	if len(rows) == 0 {
		return
	}
	for _, row := range rows[1:] {
		for j := 0; j < max(len(row), len(rows[0])); j++ {
			if !sameXarg(at(rows[0], j), at(row, j)) {
				cl.Args = nil
				return
			}
		}
	}
}

func at(row []*argXlate, j int) *argXlate {
	if j < len(row) {
		return row[j]
	}
	return nil
}

func sameXarg(a, b *argXlate) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.err != "" || b.err != "" {
		return a.err == b.err
	}
	x, y := a.xl, b.xl
	return x.X == y.X && x.Ptr == y.Ptr && x.Arg == y.Arg && sameType(x.InType, y.InType) && sameType(a.t, b.t)
}

// argXlated finishes args[n] of cl: a translated argument is recorded as
// a translation, or is an error when it cannot be translated.
func (c *checker) argXlated(x *ast.IndexExpr, cl *Clause, n int) *Type {
	if c.dcl != nil {
		if rows := c.dcl.xargs[cl]; len(rows) > 0 {
			if ax := at(rows[0], n); ax != nil {
				if ax.err != "" {
					c.errorf(x.Pos(), "D_ARGS_XLATOR", "%s", ax.err)
					return nil
				}
				c.info.Xlates[x] = ax.xl
			}
		}
	}
	return cl.Args[n]
}

// ---------------------------------------------------------------------------
// Pragmas

// dependsOn checks #pragma D depends_on: a provider the program requires
// must have probes. (Libraries and modules are the library loader's
// business, package lib.)
func (c *checker) dependsOn(d *ast.PragmaDecl) {
	if len(d.Args) != 2 {
		c.errs.Add(d.PragmaPos, "D_PRAGMA_MALFORM", "malformed #pragma depends_on <class> <name>")
		return
	}
	switch class, name := d.Args[0], d.Args[1]; class {
	case "provider":
		if c.cfg.Resolver != nil && !ProviderExists(c.cfg.Resolver, name) {
			c.errs.Add(d.PragmaPos, "D_PRAGMA_DEPEND", "program requires provider %s", name)
		}
	case "library", "module":
	default:
		c.errs.Add(d.PragmaPos, "D_PRAGMA_INVAL", "invalid class %s specified by #pragma depends_on", class)
	}
}

// ProviderExists reports whether provider name has probes, for
// "#pragma D depends_on provider name": probes of the provider itself or,
// for a provider of processes (USDT), of name followed by a process ID.
func ProviderExists(r Resolver, name string) bool {
	for _, p := range []string{name, name + "[0-9]*"} {
		if ps, err := r.Match(probe.Desc{Provider: p}); err == nil && len(ps) > 0 {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Inlines

// inlineValue checks the value of inline in once per pass and returns
// its type; the value must suit the inline's declared type, as
// dt_cook_inline checks with dt_node_is_argcompat.
func (c *checker) inlineValue(in *ast.InlineDecl) *Type {
	if t, done := c.inlined[in]; done {
		return t
	}
	c.inlining[in] = true
	saved := c.defining
	c.defining = in
	t := c.expr(in.Value)
	c.defining = saved
	delete(c.inlining, in)
	c.inlined[in] = t
	if t != nil && in.Type != nil {
		if decl := c.resolveType(in.Type); !c.inlineCompat(decl, t, in.Value) {
			c.errorf(in.NamePos, "D_OP_INCOMPAT", "inline %s definition uses incompatible types: \"%s\" = \"%s\"", in.Name, decl, t)
		}
	}
	return t
}

// inlineCompat reports whether a value of type t may define an inline of
// type decl: integers for integers, strings (or char pointers) for
// strings, compatible pointers (or NULL) for pointers.
func (c *checker) inlineCompat(decl, t *Type, v ast.Expr) bool {
	switch decl.Kind {
	case Int:
		return t.Kind == Int
	case String:
		return t.Kind == String || (t.Kind == Pointer && t.Elem.Kind == Int && t.Elem.Size == 1)
	case Stack, Sym:
		return t.Kind == decl.Kind
	}
	return c.memberCompat(decl, t, v)
}

// checkInlines checks the inlines no clause has used in this pass, as
// DTrace checks every inline where it is declared. (Inlines with
// parameters are checked where they are used.)
func (c *checker) checkInlines(progs []*ast.Program) {
	saved := c.clause
	c.clause = c.decls().dummy
	for _, p := range progs {
		for _, d := range p.Decls {
			if in, ok := d.(*ast.InlineDecl); ok && in.Params == nil && c.inlines[in.Name] == in {
				c.inlineValue(in)
				if in.Type != nil {
					c.resolveType(in.Type)
				}
			}
		}
	}
	c.clause = saved
}

// ---------------------------------------------------------------------------
// Array variables

// maxArrayVar is the most bytes a declared array variable may take.
const maxArrayVar = 1 << 20

// arrayVar checks the declaration of an array variable v (int a[10];):
// a global one, of integers or pointers, of a bounded size.
func (c *checker) arrayVar(d *ast.VarDecl, v *Var) {
	elem := v.Type
	for elem.Kind == Array {
		elem = elem.Elem
	}
	switch {
	case elem.Kind == Void:
		// reported by arrayDim
	case v.Scope != Global:
		c.declErr(d.NamePos, "D_DECL_BADCLASS", "%s%s: sonde keeps arrays in global variables only: declare it outside the clauses, or use an associative array", scopePrefix(v.Scope), v.Name)
	case elem.Kind != Int && elem.Kind != Pointer:
		c.declErr(d.NamePos, "D_DECL_DYNOBJ", "cannot declare array of %s: sonde's array variables hold integers and pointers", elem)
	case v.Type.Size > maxArrayVar:
		c.declErr(d.NamePos, "D_DECL_ARRBIG", "array dimension too big: %s takes %d bytes, more than the %d an array variable may", v.Name, v.Type.Size, maxArrayVar)
	}
}

// arrayVarOf returns the declared array variable e names, or nil.
func (c *checker) arrayVarOf(e ast.Expr) *Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok || c.inlines[id.Name] != nil || LookupBuiltinVar(id.Name) != nil {
		return nil
	}
	if v := c.lookupVar(Global, id.Name, id.NamePos, false); v != nil && isArrayVar(v) {
		return v
	}
	return nil
}

// isArrayVar reports whether v is a declared array variable.
func isArrayVar(v *Var) bool { return v.Declared && !v.Assoc && v.Type != nil && v.Type.Kind == Array }

// arrayElem returns the array variable whose element e is (a[i],
// a[i][j]: subscripts of arrays down from the variable), or nil.
func (c *checker) arrayElem(e ast.Expr) *Var {
	depth := 0
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			break
		}
		depth++
		e = ix.X
	}
	v := c.arrayVarOf(e)
	if v == nil || depth == 0 {
		return nil
	}
	t := v.Type
	for i := 1; i < depth; i++ {
		if t = t.Elem; t.Kind != Array {
			return nil // a pointer read from the array: memory elsewhere
		}
	}
	return v
}

// subscript checks x, one subscript of array or pointer type t, and
// returns the element's type. A constant index outside an array is an
// error (D_ARR_BOUNDS, as in Oracle's DTrace); another is checked when
// the code runs.
func (c *checker) subscript(x *ast.IndexExpr, t *Type) *Type {
	if len(x.Indices) != 1 {
		c.errorf(x.Lbrack, "D_ARR_BADREF", "cannot access %s as an associative array", exprName(x.X))
		return nil
	}
	i := x.Indices[0]
	if it := c.info.Types[i]; it != nil && it.Kind != Int {
		c.errorf(i.Pos(), "D_OP_INT", "operator [ ] requires an index of integral type, not \"%s\"", it)
		return nil
	}
	if t.Kind == Array && t.Elem.Size > 0 {
		if k, ok := c.constInt(i); ok {
			if n := int64(t.Size / t.Elem.Size); k < 0 || k >= n {
				c.errorf(i.Pos(), "D_ARR_BOUNDS", "index outside array bounds: %d, max is %d", k, n)
				return nil
			}
		}
	}
	return t.Elem
}

// arrayAssign checks an assignment to an element of an array variable.
func (c *checker) arrayAssign(x *ast.AssignExpr, l *ast.IndexExpr, rt *Type) *Type {
	et := c.expr(l)
	if et == nil || rt == nil {
		return et
	}
	if et.Kind == Array {
		c.errorf(x.OpPos, "D_OP_ARRFUN", "operator %s may not be applied to an array: assign its elements", x.Op)
		return nil
	}
	if !rt.IsInt() {
		c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", et, x.Op, rt)
		return nil
	}
	return et
}

// exprName names e in a message as dt_node_name does for a variable, or
// "expression".
func exprName(e ast.Expr) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return "variable " + x.Name
	case *ast.SelfVar:
		return "variable self->" + x.Name
	case *ast.ThisVar:
		return "variable this->" + x.Name
	}
	return "expression"
}

// ---------------------------------------------------------------------------
// Declaration rules (dt_node_decl, dt_node_inline)

// declOK checks what a variable declaration may not be, before its type:
// a storage class C has and D has not, a built-in variable, an
// associative this-> variable, an array without a dimension, a void
// object.
func (c *checker) declOK(d *ast.VarDecl, scope VarScope) bool {
	switch {
	case d.Class == "auto" || d.Class == "register" || d.Class == "static":
		c.declErr(d.DeclPos, "D_DECL_BADCLASS", "specified storage class not appropriate in D")
	case scope == Global && (LookupBuiltinVar(d.Name) != nil || d.Name == "args" || d.Name == "uregs"):
		c.declErr(d.NamePos, "D_DECL_IDRED", "built-in identifier redeclared: %s", d.Name)
	case scope == Global && c.inlines[d.Name] != nil:
		c.declErr(d.NamePos, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: scalar\n\tprevious: inline", d.Name)
	case d.KeyTypes == nil && len(d.Type.Dims) > 0 && d.Type.Dims[len(d.Type.Dims)-1] == nil:
		c.declErr(d.NamePos, "D_DECL_ARRNULL", "array declaration requires array dimension or tuple signature: %s", d.Name)
	case scope == This && d.KeyTypes != nil:
		c.declErr(d.NamePos, "D_DECL_LOCASSC", "associative arrays may not be declared as local variables: %s", d.Name)
	case d.KeyTypes == nil && d.Type.Stars == 0 && len(d.Type.Dims) == 0 && len(d.Type.Words) == 1 && d.Type.Words[0] == "void" && d.Type.Tag == "":
		c.declErr(d.NamePos, "D_DECL_VOIDOBJ", "cannot have void object: %s", d.Name)
	default:
		return true
	}
	return false
}

// redeclared checks a second declaration d of old's variable: the same
// kind, type and keys are allowed, anything else is an error.
func (c *checker) redeclared(d *ast.VarDecl, old *Var, t *Type) {
	kind := func(assoc bool) string {
		if assoc {
			return "associative array"
		}
		return "scalar"
	}
	name := scopePrefix(old.Scope) + d.Name
	assoc := d.KeyTypes != nil
	if assoc != old.Assoc || old.Type == nil || !exactType(old.Type, t) {
		prev := "?"
		if old.Type != nil {
			prev = old.Type.String()
		}
		c.declErr(d.NamePos, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: %s %s\n\tprevious: %s %s", name, kind(assoc), t, kind(old.Assoc), prev)
		return
	}
	if !assoc {
		return
	}
	for i, kt := range d.KeyTypes {
		if i >= len(old.Keys) {
			break
		}
		if k := c.resolveType(kt); !exactType(k, old.Keys[i]) {
			c.declErr(d.NamePos, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: associative array, key #%d of type %s\n\tprevious: associative array, key #%d of type %s", name, i+1, k, i+1, old.Keys[i])
			return
		}
	}
	if len(d.KeyTypes) != len(old.Keys) {
		c.declErr(d.NamePos, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: associative array of %s, tuple length %d\n\tprevious: associative array of %s, tuple length %d", name, t, len(d.KeyTypes), old.Type, len(old.Keys))
	}
}

// inlineDecl checks an inline declaration as it is collected: a name
// nothing else has, a type that is not void, a tuple signature if it is
// an array.
func (c *checker) inlineDecl(d *ast.InlineDecl) {
	switch {
	case c.inlines[d.Name] != nil:
		c.errs.Add(d.NamePos, "D_DECL_IDRED", "identifier redefined: %s\n\t current: inline definition\n\tprevious: scalar inline", d.Name)
	case LookupBuiltinVar(d.Name) != nil:
		c.errs.Add(d.NamePos, "D_DECL_IDRED", "identifier redefined: %s\n\t current: inline definition\n\tprevious: scalar", d.Name)
	case c.vars[d.Name] != nil && c.vars[d.Name].decl != nil:
		c.errs.Add(d.NamePos, "D_DECL_IDRED", "identifier redefined: %s\n\t current: inline definition\n\tprevious: scalar", d.Name)
	case d.Type != nil && d.Params == nil && len(d.Type.Dims) > 0:
		c.errs.Add(d.NamePos, "D_DECL_ARRNULL", "inline declaration requires array tuple signature: %s", d.Name)
	case d.Type != nil && d.Type.Stars == 0 && len(d.Type.Dims) == 0 && len(d.Type.Words) == 1 && d.Type.Words[0] == "void" && d.Type.Tag == "":
		c.errs.Add(d.NamePos, "D_DECL_VOIDOBJ", "cannot declare void inline: %s", d.Name)
	}
}

// declSpecs checks the words of a type as dt_decl_spec, dt_decl_attr and
// dt_decl_check do: one type name at most; short, long, signed and
// unsigned not in contradiction; short and long not on char, nothing on
// void; signed and unsigned on integer types only, long on integer and
// floating-point types only. It returns the tag and message of the first
// violation, or "".
func declSpecs(words []string) (tag, msg string) {
	var base string
	var short, long, signed, unsigned int
	for _, w := range words {
		switch w {
		case "short":
			short++
		case "long":
			long++
		case "signed":
			signed++
		case "unsigned":
			unsigned++
		case "const", "volatile", "restrict":
		default:
			if base != "" {
				return "D_DECL_COMBO", "invalid type combination"
			}
			base = w
		}
	}
	switch {
	case short > 1 || long > 2 || short > 0 && long > 0 || signed > 0 && unsigned > 0 || signed > 1 || unsigned > 1:
		return "D_DECL_COMBO", "invalid type combination"
	case base == "":
		return "", ""
	case base == "char" && (short > 0 || long > 0):
		return "D_DECL_CHARATTR", "invalid type declaration: short and long may not be used with char type"
	case base == "void" && short+long+signed+unsigned > 0:
		return "D_DECL_VOIDATTR", "invalid type declaration: attributes may not be used with void type"
	}
	integer := base == "char" || base == "int"
	float := base == "float" || base == "double"
	switch {
	case (signed > 0 || unsigned > 0) && !integer:
		return "D_DECL_SIGNINT", "invalid type declaration: signed and unsigned may only be used with integer type"
	case long > 0 && !integer && !float:
		return "D_DECL_LONGINT", "invalid type declaration: long and long long may only be used with integer or floating-point type"
	}
	return "", ""
}
