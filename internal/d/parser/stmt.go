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

// parseStmtList parses statements up to a '}' or EOF, resynchronising
// after each statement that had a syntax error.
func (p *parser) parseStmtList() []ast.Stmt {
	var list []ast.Stmt
	for p.tok != token.RBRACE && p.tok != token.EOF {
		start, errs := p.pos, p.synErrs
		if p.isDeclStmtStart() {
			list = append(list, p.parseDeclStmts()...)
		} else {
			list = append(list, p.parseStmt())
		}
		if p.synErrs > errs {
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
	if p.synErrs > errs {
		return &ast.BadStmt{At: pos}
	}
	p.endStmt()
	return &ast.ExprStmt{X: x}
}

// endStmt consumes the ';' after an expression statement; before '}' it
// may be omitted.
func (p *parser) endStmt() {
	switch p.tok {
	case token.SEMI:
		p.next()
	case token.RBRACE:
	default:
		p.syntaxError()
	}
}

func (p *parser) parseIfStmt() ast.Stmt {
	s := &ast.IfStmt{IfPos: p.pos}
	p.next()
	p.expect(token.LPAREN)
	p.exprLev++
	s.Cond = p.parseExpr()
	p.exprLev--
	p.expect(token.RPAREN)
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
// DeclStmt per declarator.
func (p *parser) parseDeclStmts() []ast.Stmt {
	pos := p.pos
	spec := p.parseSpecifiers(true)
	if !spec.hasType || spec.class == "typedef" {
		p.syntaxError()
		return []ast.Stmt{&ast.BadStmt{At: pos}}
	}
	var list []ast.Stmt
	for p.tok != token.SEMI {
		dc := p.parseDeclarator(spec.typ, nameRequired)
		if dc.name == "" {
			return append(list, &ast.BadStmt{At: pos})
		}
		list = append(list, &ast.DeclStmt{Decl: p.declFor(pos, spec, dc).(*ast.VarDecl)})
		if p.tok != token.COMMA || p.bailed {
			break
		}
		p.next()
	}
	p.endStmt()
	return list
}
