package parser

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Top level: a program is a sequence of probe clauses and declarations.
//
//	program        = { external_decl } .
//	external_decl  = probe_clause | inline_def | translator_def
//	               | provider_def | declaration .
//	probe_clause   = probe_desc { "," probe_desc } [ "/" expr "/" ] [ block ] .

// declKeywords are the words that start a declaration at the top level
// (the keywords of DTrace's outer lexer state S2). The others that D
// reserves (counter, import) start one only to be rejected.
var declKeywords = map[string]bool{
	"auto": true, "char": true, "const": true, "counter": true, "double": true,
	"enum": true, "extern": true, "float": true, "import": true, "inline": true,
	"int": true, "long": true, "provider": true, "register": true,
	"restrict": true, "self": true, "short": true, "signed": true,
	"static": true, "string": true, "struct": true, "this": true,
	"translator": true, "typedef": true, "union": true, "unsigned": true,
	"void": true, "volatile": true,
}

// isDeclWord reports whether the first word of a top-level item makes it a
// declaration rather than a probe clause.
func (p *parser) isDeclWord(w string) bool {
	return declKeywords[w] || p.isType(w)
}

func (p *parser) parseProgram() *ast.Program {
	p.outer = true
	p.next()
	for p.tok != token.EOF {
		p.flushPragmas()
		start, errs := p.pos, p.synErrs
		p.decls = append(p.decls, p.parseExternalDecl()...)
		switch {
		case p.synErrs > errs && !p.tokOuter:
			p.outer = false
			p.syncTop(start)
		case p.pos == start && p.tok != token.EOF:
			p.outer = true
			p.next() // make progress
		}
	}
	p.flushPragmas()
	return &ast.Program{File: p.file, Decls: p.decls}
}

// parseExternalDecl parses one top-level item; the current token was read
// in the outer context.
func (p *parser) parseExternalDecl() []ast.Decl {
	p.outer = false
	switch p.tok {
	case token.PROBEDESC:
		return []ast.Decl{p.parseProbeClause()}
	case token.INLINE:
		return []ast.Decl{p.parseInlineDecl()}
	case token.TRANSLATOR:
		return []ast.Decl{p.parseTranslatorDecl()}
	case token.PROVIDER:
		return []ast.Decl{p.parseProviderDecl()}
	}
	if p.tok == token.IDENT || p.tok.IsKeyword() {
		return p.parseDeclaration()
	}
	pos := p.pos
	p.syntaxError()
	return []ast.Decl{&ast.BadDecl{At: pos}}
}

// ---------------------------------------------------------------------------
// Probe clauses

func (p *parser) parseProbeClause() *ast.ProbeClause {
	c := &ast.ProbeClause{}
	p.outer = true // descriptions and what follows them are outer tokens
	for {
		c.Probes = append(c.Probes, p.parseProbeDesc())
		if p.tok != token.COMMA {
			break
		}
		p.next()
		if p.tok != token.PROBEDESC {
			p.syntaxError()
			c.Body = &ast.BlockStmt{}
			return c
		}
	}
	switch p.tok {
	case token.QUO:
		c.Pred = p.parsePredicate()
	case token.LBRACE, token.EOF:
	default:
		p.syntaxError() // the token is read again as the next item
	}
	c.Body = p.parseClauseBody()
	return c
}

// parsePredicate parses / expr / and, if no '{' follows, reports the
// missing actions.
func (p *parser) parsePredicate() ast.Expr {
	p.outer = false
	p.next()
	p.inPred = true
	x := p.parseExpr()
	p.inPred = false
	if p.tok == token.QUO {
		p.outer = true
		p.next()
		if p.tok != token.LBRACE {
			p.syntaxErrorf(x.Pos(), "expected actions { } following probe description and predicate")
		}
		return x
	}
	p.syntaxError()
	// Skip the rest of a bad predicate up to the clause's body.
	for p.tok != token.LBRACE && p.tok != token.RBRACE && p.tok != token.EOF {
		p.next()
	}
	return x
}

// parseClauseBody parses the { statements } of a clause, or gives a clause
// without one an empty body.
func (p *parser) parseClauseBody() *ast.BlockStmt {
	if p.tok != token.LBRACE {
		return &ast.BlockStmt{}
	}
	b := &ast.BlockStmt{Lbrace: p.pos}
	p.outer = false
	p.next()
	b.Stmts = p.parseStmtList()
	b.Rbrace = p.pos
	p.expectClosing(token.RBRACE)
	return b
}

// ---------------------------------------------------------------------------
// Declarations

// parseInlineDecl parses inline type name [ [params] ] = expr ;
func (p *parser) parseInlineDecl() ast.Decl {
	d := &ast.InlineDecl{InlinePos: p.pos}
	p.next()
	spec := p.parseSpecifiers(false)
	dc := p.parseDeclarator(spec.typ, nameRequired)
	d.Type, d.Name, d.NamePos, d.Params = dc.typ, dc.name, dc.namePos, dc.keys
	p.expect(token.ASSIGN)
	d.Value = p.parseAssignExpr()
	p.expectClosing(token.SEMI)
	return d
}

// parseTranslatorDecl parses
//
//	translator out_type < in_type param > { member = expr ; ... } ;
func (p *parser) parseTranslatorDecl() ast.Decl {
	d := &ast.TranslatorDecl{TranslatorPos: p.pos}
	p.next()
	d.Output = p.parseTypeName()
	p.expect(token.LSS)
	d.Input = p.parseTypeName()
	if p.tok == token.IDENT {
		d.Param = p.lit
		p.next()
	} else {
		p.syntaxError()
	}
	p.expect(token.GTR)
	p.expect(token.LBRACE)
	for p.tok == token.IDENT {
		d.Members = append(d.Members, p.parseTranslatorMember())
	}
	p.expect(token.RBRACE)
	p.expectClosing(token.SEMI)
	return d
}

func (p *parser) parseTranslatorMember() *ast.TranslatorMember {
	m := &ast.TranslatorMember{Name: p.lit, NamePos: p.pos}
	p.next()
	p.expect(token.ASSIGN)
	m.Value = p.parseAssignExpr()
	p.endItem()
	return m
}

// parseProviderDecl parses
//
//	provider name { probe name(params) [ : (params) ] ; ... } ;
func (p *parser) parseProviderDecl() ast.Decl {
	d := &ast.ProviderDecl{ProviderPos: p.pos}
	p.next()
	if p.tok == token.IDENT {
		d.Name = p.lit
		p.next()
	} else {
		p.syntaxError()
	}
	p.expect(token.LBRACE)
	for p.tok == token.PROBE {
		d.Probes = append(d.Probes, p.parseProbeDef())
	}
	p.expect(token.RBRACE)
	p.expectClosing(token.SEMI)
	return d
}

func (p *parser) parseProbeDef() *ast.ProbeDef {
	d := &ast.ProbeDef{ProbePos: p.pos}
	p.next()
	if p.tok == token.IDENT {
		d.Name = p.lit
		p.next()
	} else {
		p.syntaxError()
	}
	d.Args = p.parseParams()
	if p.got(token.COLON) {
		d.XlateArgs = p.parseParams()
	}
	p.endItem()
	return d
}

// parseParams parses a parenthesised parameter list: ( ), ( void ) or
// ( param { , param } ). The result is non-nil even when empty.
func (p *parser) parseParams() []*ast.Field {
	params := []*ast.Field{}
	if p.expect(token.LPAREN); p.got(token.RPAREN) {
		return params
	}
	params = p.parseParamList(token.RPAREN)
	p.expect(token.RPAREN)
	if len(params) == 1 && params[0].Name == "" && isVoid(params[0].Type) {
		return []*ast.Field{}
	}
	return params
}

// parseParamList parses param { , param } up to (not including) end.
func (p *parser) parseParamList(end token.Kind) []*ast.Field {
	var params []*ast.Field
	for {
		if p.tok == token.ELLIPSIS {
			p.error(p.pos, "D_DECL_PROTO_VARARGS", "variable argument lists are not allowed in D")
			p.synErrs++
			p.next()
		} else {
			params = append(params, p.parseParam())
		}
		if p.tok != token.COMMA || p.bailed {
			return params
		}
		p.next()
	}
}

// parseParam parses a parameter declaration: a type with an optional name.
func (p *parser) parseParam() *ast.Field {
	spec := p.parseSpecifiers(false)
	dc := p.parseDeclarator(spec.typ, nameOptional)
	return &ast.Field{Type: dc.typ, Name: dc.name, NamePos: dc.namePos}
}

func isVoid(t *ast.TypeName) bool {
	return t != nil && len(t.Words) == 1 && t.Words[0] == "void" && t.Stars == 0 && t.Dims == nil
}

// parseDeclaration parses a C-style declaration at the top level:
// declaration specifiers, then declarators separated by commas, then ';'.
// It yields a TypedefDecl or VarDecl per declarator; struct, union and
// enum definitions met on the way are added to the program directly.
func (p *parser) parseDeclaration() []ast.Decl {
	pos := p.pos
	spec := p.parseSpecifiers(true)
	if !spec.hasType {
		p.syntaxError()
		return []ast.Decl{&ast.BadDecl{At: pos}}
	}
	var decls []ast.Decl
	if p.tok != token.SEMI {
		decls = p.parseInitDeclarators(pos, spec)
	} else if d := p.tagOnlyDecl(pos, spec); d != nil {
		decls = append(decls, d)
	}
	p.expectClosing(token.SEMI)
	return decls
}

// parseInitDeclarators parses declarator { , declarator } for spec.
func (p *parser) parseInitDeclarators(pos token.Pos, spec declSpec) []ast.Decl {
	var decls []ast.Decl
	for {
		dc := p.parseDeclarator(spec.typ, nameRequired)
		decls = append(decls, p.declFor(pos, spec, dc))
		if p.tok != token.COMMA || p.bailed {
			return decls
		}
		p.next()
	}
}

// declFor builds the declaration of one declarator.
func (p *parser) declFor(pos token.Pos, spec declSpec, dc declarator) ast.Decl {
	if spec.class == "typedef" {
		if dc.name != "" {
			p.types[dc.name] = true
		}
		return &ast.TypedefDecl{TypedefPos: pos, Type: dc.typ, Name: dc.name}
	}
	d := &ast.VarDecl{DeclPos: pos, Scope: spec.scope, Class: spec.class,
		Type: dc.typ, Name: dc.name, NamePos: dc.namePos}
	if dc.keys != nil {
		d.KeyTypes = []*ast.TypeName{}
		for _, k := range dc.keys {
			d.KeyTypes = append(d.KeyTypes, k.Type)
		}
	}
	return d
}

// tagOnlyDecl handles a declaration without declarators: "struct foo;"
// declares the tag (a definition has already been added), while "int;"
// declares nothing.
func (p *parser) tagOnlyDecl(pos token.Pos, spec declSpec) ast.Decl {
	t := spec.typ
	switch {
	case spec.def != nil || t.Tag != "" && len(t.Words) == 0:
		return nil // defined already, or "struct;" (reported)
	case t.Tag == "struct" || t.Tag == "union":
		return &ast.StructDecl{StructPos: pos, Union: t.Tag == "union", Name: t.Words[0]}
	case t.Tag == "enum":
		return &ast.EnumDecl{EnumPos: pos, Name: t.Words[0]}
	}
	p.error(pos, "D_DECL_USELESS", "useless declaration")
	return nil
}
