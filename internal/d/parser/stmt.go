package parser

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Statements of a clause body:
//
//	stmt_list = { stmt } .
//	stmt      = ";" | expr ( ";" | before "}" ) | if_stmt | var_decl .
//	if_stmt   = "if" "(" expr ")" branch [ "else" branch ] .
//	branch    = "{" stmt_list "}" | stmt .
//
// The last statement of a list needs no ';'. Blocks appear only as the
// branches of if, as in DTrace.

// parseStmtList parses statements up to a '}' or EOF. A statement that
// did not end cleanly comes back as a BadStmt, and the list then skips to
// the end of it.
func (p *parser) parseStmtList() []ast.Stmt {
	var list []ast.Stmt
	for p.tok != token.RBRACE && p.tok != token.EOF {
		start := p.pos
		ok := true
		if p.isDeclStmtStart() {
			var decls []ast.Stmt
			decls, ok = p.parseDeclStmts()
			list = append(list, decls...)
		} else {
			s := p.parseStmt()
			list = append(list, s)
			_, bad := s.(*ast.BadStmt)
			ok = !bad
		}
		if !ok {
			p.syncStmt()
		}
		if p.pos == start && p.tok != token.RBRACE && p.tok != token.EOF {
			p.next() // make progress
		}
	}
	return list
}

// parseStmt parses one statement other than a declaration.
func (p *parser) parseStmt() ast.Stmt {
	if !p.enter() {
		return &ast.BadStmt{At: p.pos}
	}
	defer p.leave()
	switch p.tok {
	case token.SEMI:
		s := &ast.EmptyStmt{Semi: p.pos}
		p.next()
		return s
	case token.IF:
		return p.parseIfStmt()
	}
	pos, errs := p.pos, p.synErrs
	x := p.parseExpr()
	if p.synErrs > errs || !p.endStmt() {
		return &ast.BadStmt{At: pos}
	}
	return &ast.ExprStmt{X: x}
}

// endStmt consumes the ';' after an expression statement; before '}' it
// may be omitted. It reports whether the statement ended properly.
func (p *parser) endStmt() bool {
	switch p.tok {
	case token.SEMI:
		p.next()
	case token.RBRACE:
	default:
		p.syntaxError()
		return false
	}
	return true
}

// parseIfStmt parses an if statement; one whose condition is bad is
// skipped whole.
func (p *parser) parseIfStmt() ast.Stmt {
	s := &ast.IfStmt{IfPos: p.pos}
	errs := p.synErrs
	p.next()
	p.expect(token.LPAREN)
	p.exprLev++
	s.Cond = p.parseExpr()
	p.exprLev--
	p.expect(token.RPAREN)
	if p.synErrs > errs {
		return &ast.BadStmt{At: s.IfPos}
	}
	s.Then = p.parseBranch()
	if p.got(token.ELSE) {
		s.Else = p.parseBranch()
	}
	return s
}

// parseBranch parses the statement or block of an if or else.
func (p *parser) parseBranch() ast.Stmt {
	if p.tok != token.LBRACE {
		return p.parseStmt()
	}
	b := &ast.BlockStmt{Lbrace: p.pos}
	p.next()
	b.Stmts = p.parseStmtList()
	b.Rbrace = p.expect(token.RBRACE)
	return b
}

// isDeclStmtStart reports whether the current token starts a clause-local
// declaration (this int x;) rather than an expression. A known type name
// followed by an assignment, ++, -- or [ is taken as a variable, as
// DTrace's lexer does.
func (p *parser) isDeclStmtStart() bool {
	switch p.tok {
	case token.SELF, token.THIS:
		next, _ := p.peek()
		return next != token.ARROW
	case token.STATIC, token.EXTERN, token.REGISTER, token.AUTO:
		return true
	case token.IDENT:
		if !p.isType(p.lit) {
			return false
		}
		next, _ := p.peek()
		return next == token.IDENT || next == token.MUL
	}
	return p.isTypeStart(p.tok, p.lit)
}

// parseDeclStmts parses a clause-local variable declaration, yielding one
// DeclStmt per declarator. It reports whether the declaration ended
// properly.
func (p *parser) parseDeclStmts() ([]ast.Stmt, bool) {
	pos := p.pos
	spec := p.parseSpecifiers(true)
	if !spec.hasType || spec.class == "typedef" {
		p.syntaxError()
		return []ast.Stmt{&ast.BadStmt{At: pos}}, false
	}
	if p.tok == token.SEMI {
		p.error(pos, "D_DECL_USELESS", "useless declaration")
		p.next()
		return nil, true
	}
	var list []ast.Stmt
	for {
		dc := p.parseDeclarator(spec.typ, nameRequired)
		if dc.name == "" {
			return append(list, &ast.BadStmt{At: pos}), false
		}
		list = append(list, &ast.DeclStmt{Decl: p.declFor(pos, spec, dc).(*ast.VarDecl)})
		if p.tok != token.COMMA || p.bailed {
			break
		}
		p.next()
	}
	if !p.endStmt() {
		return append(list, &ast.BadStmt{At: pos}), false
	}
	return list, true
}
