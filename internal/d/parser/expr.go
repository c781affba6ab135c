package parser

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/scanner"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Expressions, with C's precedence and D's ^^ between || and &&:
//
//	expr        = assign_expr { "," assign_expr } .
//	assign_expr = cond_expr [ assign_op assign_expr ] .
//	cond_expr   = binary_expr [ "?" expr ":" cond_expr ] .
//	binary_expr = unary_expr { binary_op unary_expr } .
//	unary_expr  = postfix_expr | unary_op unary_expr | "(" type ")" unary_expr
//	            | "sizeof" unary_expr | "sizeof" "(" type ")" | "stringof" unary_expr .
//	postfix     = primary { "[" args "]" | "(" [ args ] ")" | "." name | "->" name | "++" | "--" } .
//
// As in DTrace, the comma operator exists where a full expression is
// allowed (statements, predicates, parentheses) and is a BinaryExpr with
// Op token.COMMA; argument and index lists are lists of assign_exprs.

// parseExpr parses an expression, comma operator included.
func (p *parser) parseExpr() ast.Expr {
	x := p.parseAssignExpr()
	for p.tok == token.COMMA && !p.bailed {
		pos := p.pos
		p.next()
		x = &ast.BinaryExpr{X: x, OpPos: pos, Op: token.COMMA, Y: p.parseAssignExpr()}
	}
	return x
}

// parseAssignExpr parses an assignment (right-associative) or a
// conditional expression.
func (p *parser) parseAssignExpr() ast.Expr {
	if !p.enter() {
		return &ast.BadExpr{At: p.pos}
	}
	defer p.leave()
	x := p.parseCondExpr()
	if !p.tok.IsAssign() {
		return x
	}
	op, pos := p.tok, p.pos
	p.next()
	return &ast.AssignExpr{X: x, OpPos: pos, Op: op, Y: p.parseAssignExpr()}
}

// parseCondExpr parses c ? x : y (right-associative) or a binary
// expression.
func (p *parser) parseCondExpr() ast.Expr {
	x := p.parseBinaryExpr(1)
	if p.tok != token.QUEST {
		return x
	}
	if !p.enter() {
		return x
	}
	defer p.leave()
	c := &ast.CondExpr{Cond: x, Quest: p.pos}
	p.next()
	c.X = p.parseExpr()
	c.Colon = p.expect(token.COLON)
	c.Y = p.parseCondExpr()
	return c
}

// parseBinaryExpr parses binary operators of precedence prec1 and above,
// all left-associative.
func (p *parser) parseBinaryExpr(prec1 int) ast.Expr {
	x := p.parseUnaryExpr()
	for !p.bailed {
		prec := p.tok.Precedence()
		if prec < prec1 || p.tok == token.QUO && p.atPredicateEnd() {
			return x
		}
		op, pos := p.tok, p.pos
		p.next()
		y := p.parseBinaryExpr(prec + 1)
		x = &ast.BinaryExpr{X: x, OpPos: pos, Op: op, Y: y}
	}
	return x
}

// atPredicateEnd reports whether the current '/' closes a predicate: as in
// DTrace's lexer, it does when it is outside any parentheses or brackets
// and followed by '{', ';', '/' or the end of input.
func (p *parser) atPredicateEnd() bool {
	if !p.inPred || p.exprLev > 0 {
		return false
	}
	switch next, _ := p.peek(); next {
	case token.LBRACE, token.SEMI, token.QUO, token.EOF:
		return true
	}
	return false
}

func (p *parser) parseUnaryExpr() ast.Expr {
	if !p.enter() {
		return &ast.BadExpr{At: p.pos}
	}
	defer p.leave()
	switch p.tok {
	case token.ADD, token.SUB, token.NOT, token.TILDE, token.MUL, token.AND,
		token.INC, token.DEC:
		op, pos := p.tok, p.pos
		p.next()
		return &ast.UnaryExpr{OpPos: pos, Op: op, X: p.parseUnaryExpr()}
	case token.SIZEOF:
		return p.parseSizeof()
	case token.STRINGOF:
		pos := p.pos
		p.next()
		return &ast.StringofExpr{StringofPos: pos, X: p.parseUnaryExpr()}
	case token.LPAREN:
		if p.isCastStart() {
			return p.parseCast()
		}
		return p.parsePostfixExpr(p.parseParenExpr())
	}
	return p.parsePostfixExpr(p.parsePrimaryExpr())
}

// castOperand lists the tokens that may follow "(name)" only if name is a
// type, since an expression cannot be followed by them.
var castOperand = map[token.Kind]bool{
	token.IDENT: true, token.INT: true, token.CHAR: true, token.STRING: true,
	token.MACRO: true, token.SELF: true, token.THIS: true, token.SIZEOF: true,
	token.STRINGOF: true, token.OFFSETOF: true, token.XLATE: true,
	token.LPAREN: true, token.NOT: true, token.TILDE: true,
}

// isCastStart reports whether the current '(' opens a type name: it is
// followed by a type keyword or a known type name, or by an unknown name
// and then either stars and ')' (as in (vnode_t *)arg0), or ')' and a
// token that can only start an operand (as in (foo_t)arg0). An unknown
// name in "(x) - 1" stays a parenthesised expression.
func (p *parser) isCastStart() bool {
	toks := p.sc.Peek(2)
	if p.isTypeStart(toks[0].Kind, toks[0].Lit) {
		return true
	}
	if toks[0].Kind != token.IDENT || len(toks) < 2 {
		return false
	}
	switch toks[1].Kind {
	case token.MUL:
		toks = p.sc.Peek(34)
		for i := 2; i < len(toks); i++ {
			if toks[i].Kind != token.MUL {
				return toks[i].Kind == token.RPAREN
			}
		}
	case token.RPAREN:
		toks = p.sc.Peek(3)
		return len(toks) == 3 && castOperand[toks[2].Kind]
	}
	return false
}

// parseCast parses ( type ) unary_expr; the current token is the '('.
func (p *parser) parseCast() ast.Expr {
	lparen := p.pos
	p.next()
	t := p.parseTypeName()
	p.expect(token.RPAREN)
	return &ast.CastExpr{Lparen: lparen, Type: t, X: p.parseUnaryExpr()}
}

func (p *parser) parseParenExpr() ast.Expr {
	lparen := p.pos
	p.next()
	p.exprLev++
	x := p.parseExpr()
	p.exprLev--
	rparen := p.expect(token.RPAREN)
	return &ast.ParenExpr{Lparen: lparen, X: x, Rparen: rparen}
}

// parseSizeof parses sizeof ( type ) or sizeof unary_expr.
func (p *parser) parseSizeof() ast.Expr {
	s := &ast.SizeofExpr{SizeofPos: p.pos}
	p.next()
	if p.tok == token.LPAREN && p.isCastStart() {
		p.next()
		s.Type = p.parseTypeName()
		p.expect(token.RPAREN)
		return s
	}
	s.X = p.parseUnaryExpr()
	return s
}

func (p *parser) parsePrimaryExpr() ast.Expr {
	pos, lit := p.pos, p.lit
	var x ast.Expr
	switch p.tok {
	case token.IDENT:
		x = &ast.Ident{NamePos: pos, Name: lit}
	case token.INT:
		v, u, l, _ := scanner.IntValue(lit)
		x = &ast.IntLit{ValuePos: pos, Raw: lit, Value: v, Unsigned: u, Long: l}
	case token.CHAR:
		v, _ := scanner.CharValue(lit)
		x = &ast.IntLit{ValuePos: pos, Raw: lit, Value: v, IsChar: true}
	case token.STRING:
		v, _ := scanner.StringValue(lit)
		x = &ast.StringLit{ValuePos: pos, Raw: lit, Value: v}
	case token.MACRO:
		x = macroVar(pos, lit)
	case token.AGG:
		x = &ast.AggVar{AtPos: pos, Name: lit[1:]}
	case token.SELF, token.THIS:
		return p.parseScopedVar()
	case token.OFFSETOF:
		return p.parseOffsetof()
	case token.XLATE:
		return p.parseXlate()
	default:
		p.syntaxError()
		return &ast.BadExpr{At: pos}
	}
	p.next()
	return x
}

func macroVar(pos token.Pos, lit string) *ast.MacroVar {
	if len(lit) > 1 && lit[1] == '$' {
		return &ast.MacroVar{DollarPos: pos, Name: lit[2:], Quoted: true}
	}
	return &ast.MacroVar{DollarPos: pos, Name: lit[1:]}
}

// parseScopedVar parses self->name or this->name.
func (p *parser) parseScopedVar() ast.Expr {
	scope, pos := p.tok, p.pos
	p.next()
	p.expect(token.ARROW)
	name, namePos := p.lit, p.pos
	if !p.isMemberName() {
		p.syntaxError()
		return &ast.BadExpr{At: pos}
	}
	p.next()
	if scope == token.SELF {
		return &ast.SelfVar{SelfPos: pos, Name: name, NamePos: namePos}
	}
	return &ast.ThisVar{ThisPos: pos, Name: name, NamePos: namePos}
}

// isMemberName reports whether the current token can name a member or a
// variable after -> or '.': an identifier, or a keyword (kernel structures
// have members such as counter).
func (p *parser) isMemberName() bool {
	return p.tok == token.IDENT || p.tok.IsKeyword()
}

// parseOffsetof parses offsetof ( type , member ).
func (p *parser) parseOffsetof() ast.Expr {
	x := &ast.OffsetofExpr{OffsetofPos: p.pos}
	p.next()
	p.expect(token.LPAREN)
	x.Type = p.parseTypeName()
	p.expect(token.COMMA)
	if p.isMemberName() {
		x.Member = p.lit
		p.next()
	} else {
		p.syntaxError()
	}
	p.expect(token.RPAREN)
	return x
}

// parseXlate parses xlate < type > ( expr ).
func (p *parser) parseXlate() ast.Expr {
	x := &ast.XlateExpr{XlatePos: p.pos}
	p.next()
	p.expect(token.LSS)
	x.Type = p.parseTypeName()
	p.expect(token.GTR)
	p.expect(token.LPAREN)
	p.exprLev++
	x.X = p.parseExpr()
	p.exprLev--
	p.expect(token.RPAREN)
	return x
}

// parsePostfixExpr parses the subscripts, calls, member selections and
// postfix ++/-- that follow x.
func (p *parser) parsePostfixExpr(x ast.Expr) ast.Expr {
	for !p.bailed {
		switch p.tok {
		case token.LBRACK:
			x = p.parseIndex(x)
		case token.LPAREN:
			x = p.parseCall(x)
		case token.PERIOD, token.ARROW:
			arrow, pos := p.tok == token.ARROW, p.pos
			p.next()
			if !p.isMemberName() {
				p.syntaxError()
				return x
			}
			x = &ast.SelectorExpr{X: x, OpPos: pos, Arrow: arrow, Sel: p.lit, SelPos: p.pos}
			p.next()
		case token.INC, token.DEC:
			x = &ast.PostfixExpr{X: x, OpPos: p.pos, Op: p.tok}
			p.next()
		default:
			return x
		}
	}
	return x
}

func (p *parser) parseIndex(x ast.Expr) ast.Expr {
	ix := &ast.IndexExpr{X: x, Lbrack: p.pos}
	p.next()
	p.exprLev++
	ix.Indices = p.parseArgs()
	p.exprLev--
	ix.Rbrack = p.expect(token.RBRACK)
	return ix
}

func (p *parser) parseCall(fun ast.Expr) ast.Expr {
	c := &ast.CallExpr{Fun: fun, Lparen: p.pos}
	p.next()
	if p.tok != token.RPAREN {
		p.exprLev++
		c.Args = p.parseArgs()
		p.exprLev--
	}
	c.Rparen = p.expect(token.RPAREN)
	return c
}

// parseArgs parses assign_expr { , assign_expr }.
func (p *parser) parseArgs() []ast.Expr {
	list := []ast.Expr{p.parseAssignExpr()}
	for p.tok == token.COMMA && !p.bailed {
		p.next()
		list = append(list, p.parseAssignExpr())
	}
	return list
}
