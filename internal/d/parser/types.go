package parser

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Types and declarators, as in C:
//
//	specifiers  = { scope | class | qualifier | type_word | tag_spec | typedef_name } .
//	declarator  = { "*" { qualifier } } [ identifier ] { "[" [ dim | params ] "]" } .
//	type_name   = specifiers abstract_declarator .
//	tag_spec    = ( "struct" | "union" | "enum" ) [ identifier ] [ "{" ... "}" ] .

// builtinTypes are the typedef names D knows without a declaration: D's
// own (dt_open.c) and the kernel types D programs commonly use. Any other
// name becomes a type name once a typedef in the program declares it.
var builtinTypes = map[string]bool{
	"int8_t": true, "int16_t": true, "int32_t": true, "int64_t": true,
	"uint8_t": true, "uint16_t": true, "uint32_t": true, "uint64_t": true,
	"intptr_t": true, "uintptr_t": true, "intmax_t": true, "uintmax_t": true,
	"ptrdiff_t": true, "size_t": true, "ssize_t": true, "off_t": true,
	"off64_t": true, "loff_t": true, "pid_t": true, "uid_t": true, "gid_t": true,
	"id_t": true, "zoneid_t": true, "taskid_t": true, "projid_t": true,
	"processorid_t": true, "psetid_t": true, "chipid_t": true, "lgrp_id_t": true,
	"hrtime_t": true, "time_t": true, "clock_t": true, "caddr_t": true,
	"daddr_t": true, "dev_t": true, "ino_t": true, "mode_t": true, "nlink_t": true,
	"major_t": true, "minor_t": true, "key_t": true, "socklen_t": true,
	"uchar_t": true, "ushort_t": true, "uint_t": true, "ulong_t": true,
	"u_char": true, "u_short": true, "u_int": true, "u_long": true,
	"uint": true, "ushort": true, "ulong": true, "unchar": true,
	"longlong_t": true, "u_longlong_t": true, "boolean_t": true,
	"u8": true, "u16": true, "u32": true, "u64": true,
	"s8": true, "s16": true, "s32": true, "s64": true,
	"__u8": true, "__u16": true, "__u32": true, "__u64": true,
	"__s8": true, "__s16": true, "__s32": true, "__s64": true,
	"psinfo_t": true, "lwpsinfo_t": true, "bufinfo_t": true, "devinfo_t": true,
	"fileinfo_t": true, "cpuinfo_t": true, "conninfo_t": true,
	"ipinfo_t": true, "ifinfo_t": true, "tcpinfo_t": true, "tcpsinfo_t": true,
	"tcplsinfo_t": true, "udpinfo_t": true, "udpsinfo_t": true,
}

// isType reports whether name is a typedef name.
func (p *parser) isType(name string) bool { return builtinTypes[name] || p.types[name] }

// isTypeStart reports whether a token can only begin a type name.
func (p *parser) isTypeStart(tok token.Kind, lit string) bool {
	switch tok {
	case token.VOID, token.CHAR_KW, token.SHORT, token.INT_KW, token.LONG,
		token.FLOAT, token.DOUBLE, token.SIGNED, token.UNSIGNED, token.STRING_KW,
		token.STRUCT, token.UNION, token.ENUM, token.CONST, token.VOLATILE,
		token.RESTRICT, token.USERLAND:
		return true
	case token.IDENT:
		return p.isType(lit)
	}
	return false
}

// A declSpec holds the declaration specifiers of a declaration.
type declSpec struct {
	scope   string        // "self" or "this"
	class   string        // "static", "extern", "register", "auto" or "typedef"
	typ     *ast.TypeName // the base type, before any declarator
	hasType bool          // a type word, tag or typedef name was given
	def     ast.Decl      // struct, union or enum defined in place
}

// parseSpecifiers parses declaration specifiers; storage classes (and the
// D scopes self and this) are accepted only when allowClass is set. The
// first identifier seen before any other type word is taken as a typedef
// name, known or not, since D has no implicit int.
func (p *parser) parseSpecifiers(allowClass bool) declSpec {
	spec := declSpec{typ: &ast.TypeName{TypePos: p.pos}}
	for p.parseSpecifier(&spec, allowClass) {
	}
	return spec
}

// parseSpecifier parses one specifier into spec and reports whether there
// was one.
func (p *parser) parseSpecifier(spec *declSpec, allowClass bool) bool {
	t := spec.typ
	switch p.tok {
	case token.SELF, token.THIS, token.STATIC, token.EXTERN, token.REGISTER,
		token.AUTO, token.TYPEDEF:
		if !allowClass {
			return false
		}
		p.storageClass(spec)
	case token.CONST, token.VOLATILE, token.RESTRICT:
		t.Quals = append(t.Quals, p.tok.String())
	case token.USERLAND:
		t.Userland = true
	case token.VOID, token.CHAR_KW, token.SHORT, token.INT_KW, token.LONG,
		token.FLOAT, token.DOUBLE, token.SIGNED, token.UNSIGNED, token.STRING_KW:
		if t.Tag != "" {
			return false
		}
		t.Words = append(t.Words, p.tok.String())
		spec.hasType = true
	case token.STRUCT, token.UNION, token.ENUM:
		if spec.hasType {
			return false
		}
		p.parseTagSpec(spec)
		return !p.bailed
	case token.IDENT:
		if spec.hasType {
			return false
		}
		t.Words = []string{p.lit}
		spec.hasType = true
	default:
		return false
	}
	p.next()
	return true
}

func (p *parser) storageClass(spec *declSpec) {
	if spec.scope != "" || spec.class != "" {
		p.error(p.pos, "D_DECL_CLASS", "more than one storage class specified")
	}
	switch p.tok {
	case token.SELF, token.THIS:
		spec.scope = p.tok.String()
	default:
		spec.class = p.tok.String()
	}
}

// parseTagSpec parses struct, union or enum with an optional tag and an
// optional definition. A definition is added to the program as a
// StructDecl or EnumDecl and recorded in spec.def.
func (p *parser) parseTagSpec(spec *declSpec) {
	kw, pos := p.tok, p.pos
	if !p.enter() {
		return
	}
	defer p.leave()
	p.next()
	t := spec.typ
	t.Tag = kw.String()
	spec.hasType = true
	if p.tok == token.IDENT {
		t.Words = []string{p.lit}
		p.next()
	}
	if p.tok != token.LBRACE {
		if t.Words == nil {
			p.syntaxError()
		}
		return
	}
	name := ""
	if t.Words != nil {
		name = t.Words[0]
	}
	if kw == token.ENUM {
		spec.def = p.parseEnumBody(pos, name)
	} else {
		spec.def = p.parseStructBody(pos, kw == token.UNION, name)
	}
	t.Def = spec.def
	p.decls = append(p.decls, spec.def)
}

// parseStructBody parses { member ... } of a struct or union.
func (p *parser) parseStructBody(pos token.Pos, union bool, name string) *ast.StructDecl {
	d := &ast.StructDecl{StructPos: pos, Union: union, Name: name, Fields: []*ast.Field{}}
	p.next() // {
	for p.tok != token.RBRACE && p.tok != token.EOF {
		start := p.pos
		d.Fields = append(d.Fields, p.parseMember()...)
		if p.pos == start && p.tok != token.RBRACE {
			p.next()
		}
	}
	p.expect(token.RBRACE)
	return d
}

// parseMember parses a member declaration: specifiers, then declarators
// with optional bit-field widths, then ';'.
func (p *parser) parseMember() []*ast.Field {
	spec := p.parseSpecifiers(false)
	if !spec.hasType {
		p.syntaxError()
		p.syncStmt()
		return nil
	}
	var fields []*ast.Field
	for {
		f := &ast.Field{}
		if p.tok == token.COLON {
			t := *spec.typ
			f.Type = &t // unnamed bit-field
		} else {
			dc := p.parseDeclarator(spec.typ, nameRequired)
			f.Type, f.Name, f.NamePos = dc.typ, dc.name, dc.namePos
		}
		if p.got(token.COLON) {
			f.Bits = p.parseCondExpr()
		}
		fields = append(fields, f)
		if p.tok != token.COMMA || p.bailed {
			break
		}
		p.next()
	}
	p.endItem()
	return fields
}

// parseEnumBody parses { NAME [= value] , ... } of an enum.
func (p *parser) parseEnumBody(pos token.Pos, name string) *ast.EnumDecl {
	d := &ast.EnumDecl{EnumPos: pos, Name: name}
	p.next() // {
	for p.tok == token.IDENT {
		d.Names = append(d.Names, p.lit)
		p.next()
		var v ast.Expr
		if p.got(token.ASSIGN) {
			v = p.parseCondExpr()
		}
		d.Values = append(d.Values, v)
		if !p.got(token.COMMA) {
			break
		}
	}
	if len(d.Names) == 0 {
		p.syntaxError()
	}
	p.expect(token.RBRACE)
	return d
}

// declMode says whether a declarator must, may or must not name something.
type declMode int

const (
	nameRequired declMode = iota
	nameOptional
	abstractOnly
)

// A declarator is the part of a declaration after the specifiers.
type declarator struct {
	typ     *ast.TypeName // the base type with the declarator's stars and dims
	name    string
	namePos token.Pos
	keys    []*ast.Field // key types of an associative array, nil if none
}

// parseDeclarator parses pointer stars, the declared name (per mode) and
// array or associative-array suffixes, applied to a copy of base.
func (p *parser) parseDeclarator(base *ast.TypeName, mode declMode) declarator {
	t := *base
	t.Quals = append([]string(nil), base.Quals...)
	t.Dims = append([]ast.Expr(nil), base.Dims...)
	dc := declarator{typ: &t}
	for p.tok == token.MUL {
		t.Stars++
		p.next()
		for p.tok == token.CONST || p.tok == token.VOLATILE || p.tok == token.RESTRICT {
			t.Quals = append(t.Quals, p.tok.String())
			p.next()
		}
	}
	ptr := 0
	if p.tok == token.LPAREN && p.peekIs(token.MUL) {
		// "(*name)(params)": a pointer to a function
		p.next()
		for p.tok == token.MUL {
			ptr++
			p.next()
		}
	}
	switch {
	case mode != abstractOnly && p.tok == token.IDENT:
		dc.name, dc.namePos = p.lit, p.pos
		p.next()
	case mode == nameRequired:
		p.syntaxError()
		return dc
	}
	if ptr > 0 {
		p.expect(token.RPAREN)
		if p.tok != token.LPAREN {
			p.syntaxError()
			return dc
		}
	}
	if p.tok == token.LPAREN && !p.bailed {
		// a function declarator: C's prototypes, which D takes as
		// declarations of externs (dt_decl.c), and function pointers
		t.Func = p.parseFuncParams()
		t.Func.Ptr = ptr
	}
	for p.tok == token.LBRACK && !p.bailed {
		p.parseArraySuffix(&dc)
	}
	return dc
}

// peekIs reports whether the token after the current one is k.
func (p *parser) peekIs(k token.Kind) bool {
	toks := p.sc.Peek(1)
	return len(toks) == 1 && toks[0].Kind == k
}

// parseFuncParams parses a function declarator's ( parameters ): types
// with optional names, "void" for none, and a final "...".
func (p *parser) parseFuncParams() *ast.FuncSig {
	sig := &ast.FuncSig{Params: []*ast.Field{}}
	p.next() // (
	for p.tok != token.RPAREN && !p.bailed {
		if p.tok == token.ELLIPSIS {
			sig.Variadic = true
			p.next()
			break
		}
		sig.Params = append(sig.Params, p.parseParam())
		if !p.got(token.COMMA) {
			break
		}
	}
	p.expect(token.RPAREN)
	if len(sig.Params) == 1 && sig.Params[0].Name == "" && isVoid(sig.Params[0].Type) {
		sig.Params = sig.Params[:0]
	}
	return sig
}

// parseArraySuffix parses [ ], [ dim ] or [ key_type , ... ].
func (p *parser) parseArraySuffix(dc *declarator) {
	p.next() // [
	switch {
	case p.tok == token.RBRACK:
		dc.typ.Dims = append(dc.typ.Dims, nil)
	case p.startsKeyType():
		dc.keys = append([]*ast.Field{}, p.parseParamList(token.RBRACK)...)
	default:
		dc.typ.Dims = append(dc.typ.Dims, p.parseCondExpr())
	}
	p.expect(token.RBRACK)
}

// startsKeyType reports whether the contents of a declarator's brackets
// are key types rather than a dimension: a type keyword or known type
// name, or an unknown name followed by a name, a ',' or stars and the end
// of the type (as in int a[vnode_t *]).
func (p *parser) startsKeyType() bool {
	if p.isTypeStart(p.tok, p.lit) {
		return true
	}
	if p.tok != token.IDENT {
		return false
	}
	toks := p.sc.Peek(8)
	i := 0
	for i < len(toks) && toks[i].Kind == token.MUL {
		i++
	}
	if i == len(toks) {
		return false
	}
	switch toks[i].Kind {
	case token.IDENT, token.COMMA:
		return i == 0 || toks[i].Kind == token.COMMA
	case token.RBRACK:
		return i > 0
	}
	return false
}

// parseTypeName parses a type name as in casts, sizeof, offsetof, xlate
// and translators: specifiers and an abstract declarator.
func (p *parser) parseTypeName() *ast.TypeName {
	pos := p.pos
	spec := p.parseSpecifiers(false)
	if !spec.hasType {
		p.syntaxError()
		return &ast.TypeName{TypePos: pos}
	}
	return p.parseDeclarator(spec.typ, abstractOnly).typ
}
