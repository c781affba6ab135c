// Package parser implements a hand-written recursive-descent parser for D,
// the language of dtrace(1), following the grammar of illumos dt_grammar.y
// (with the later if/else statements).
//
// The parser drives the scanner in two contexts: at the top level it asks
// for probe descriptions (ScanProbeDesc), which are lexically unlike other
// tokens (syscall::read*:entry, profile-997), and everywhere else for
// ordinary tokens. The field outer chooses the context of the next token:
// each top-level production switches it on just before consuming its final
// token (the ';' of a declaration, the '}' of a clause), so that the token
// after it is read in the outer context again.
//
// Errors carry DTrace's tags (D_SYNTAX and friends). After a syntax error
// the parser resynchronises at the next ';' or '}' (statements, members) or
// at the next top-level item, keeps a partial tree with Bad nodes, and
// reports at most one error per line.
package parser

import (
	"fmt"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/scanner"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// Options configures ParseFile. A nil *Options means no macros.
type Options struct {
	// Macros maps macro-variable names without the dollar ("1", "2",
	// "target", "pid", ...) to their values, for expansion inside probe
	// descriptions (pid$target:::entry, syscall::$1:entry). In
	// expressions, $N stays an *ast.MacroVar node (the checker resolves
	// it).
	Macros map[string]string
	// Types are typedef names declared before the source (by the D
	// libraries loaded with it), which it may use as type names.
	Types []string
}

// ParseFile parses the D program src, reporting positions in filename. It
// returns the (possibly partial) program and all errors, sorted.
func ParseFile(filename string, src []byte, opts *Options) (*ast.Program, diag.List) {
	p := newParser(filename, src, opts)
	prog := p.parseProgram()
	p.errs.Sort()
	return prog, p.errs
}

// ParseExpr parses a single D expression (commas included), as in the
// body of a clause. It is mainly a convenience for tests.
func ParseExpr(src string) (ast.Expr, diag.List) {
	p := newParser("", []byte(src), nil)
	p.next()
	x := p.parseExpr()
	if p.tok != token.EOF {
		p.syntaxError()
	}
	p.errs.Sort()
	return x, p.errs
}

// maxErrors bounds the errors reported for one source; the parser stops
// after that many.
const maxErrors = 50

// maxDepth bounds the nesting of expressions, statements and types.
const maxDepth = 500

type parser struct {
	sc     scanner.Scanner
	file   string
	errs   diag.List
	macros map[string]string

	decls   []ast.Decl        // the program so far
	pragmas []*ast.PragmaDecl // pragmas scanned but not yet placed in decls

	// Current token.
	pos      token.Pos
	tok      token.Kind
	lit      string
	prevLine int  // line of the previous token
	tokOuter bool // the current token was read in the outer context
	outer    bool // read the next token in the outer context

	types map[string]bool // typedef names declared so far

	exprLev  int  // nesting of ( and [ within the current expression
	inPred   bool // parsing a predicate, where a / at exprLev 0 may close it
	depth    int  // recursion depth
	synErrs  int  // syntax errors found, reported or not
	bailed   bool // too many errors: treat the rest as EOF
	reported int  // errors reported
}

func newParser(filename string, src []byte, opts *Options) *parser {
	p := &parser{file: filename, types: make(map[string]bool)}
	if opts != nil {
		p.macros = opts.Macros
		for _, t := range opts.Types {
			p.types[t] = true
		}
	}
	p.sc.Init(filename, src, p.scanError, p.pragma)
	return p
}

// next advances to the next token, in the context chosen by p.outer.
func (p *parser) next() {
	p.prevLine = p.pos.Line
	if p.bailed {
		p.tok, p.lit = token.EOF, ""
		return
	}
	p.tokOuter = p.outer
	if p.outer {
		p.pos, p.tok, p.lit = p.sc.ScanProbeDesc(p.isDeclWord)
	} else {
		p.pos, p.tok, p.lit = p.sc.Scan()
	}
}

// peek returns the kind and literal of the token after the current one.
func (p *parser) peek() (token.Kind, string) {
	t := p.sc.Peek(1)
	return t[0].Kind, t[0].Lit
}

// firstOnLine reports whether the current token begins its line.
func (p *parser) firstOnLine() bool { return p.pos.Line > p.prevLine }

// ---------------------------------------------------------------------------
// Errors

func (p *parser) scanError(pos token.Pos, tag, msg string) {
	p.error(pos, tag, "%s", msg)
}

// error records an error unless one was already reported on the same line.
func (p *parser) error(pos token.Pos, tag, format string, args ...any) {
	if n := len(p.errs); n > 0 {
		last := p.errs[n-1].Pos
		if last.File == pos.File && last.Line == pos.Line {
			return
		}
	}
	p.errs.Add(pos, tag, format, args...)
	if p.reported++; p.reported >= maxErrors {
		p.bailed = true
	}
}

// syntaxError reports a D_SYNTAX error at the current token, in DTrace's
// words.
func (p *parser) syntaxError() {
	p.synErrs++
	if p.tok == token.ILLEGAL {
		return // the scanner has said why
	}
	p.error(p.pos, "D_SYNTAX", "syntax error near %s", p.near())
}

// syntaxErrorf reports a D_SYNTAX error with a specific message.
func (p *parser) syntaxErrorf(pos token.Pos, format string, args ...any) {
	p.synErrs++
	p.error(pos, "D_SYNTAX", format, args...)
}

// near describes the current token as DTrace does after "syntax error near".
func (p *parser) near() string {
	switch {
	case p.tok == token.EOF:
		return "end of input"
	case p.lit != "":
		return fmt.Sprintf("%q", p.lit)
	}
	return fmt.Sprintf("%q", p.tok.String())
}

// expect consumes a token of kind tok and returns its position, or reports
// a syntax error and consumes nothing.
func (p *parser) expect(tok token.Kind) token.Pos {
	pos := p.pos
	if p.tok != tok {
		p.syntaxError()
		return pos
	}
	p.next()
	return pos
}

// got consumes the current token if it is tok.
func (p *parser) got(tok token.Kind) bool {
	if p.tok != tok {
		return false
	}
	p.next()
	return true
}

// expectClosing consumes the final token (tok) of a top-level item and
// reads the token after it in the outer context. It reports whether tok
// was there.
func (p *parser) expectClosing(tok token.Kind) bool {
	if p.tok != tok {
		p.syntaxError()
		return false
	}
	p.outer = true
	p.next()
	return true
}

// enter and leave guard against unbounded recursion on hostile input.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.syntaxErrorf(p.pos, "program nested too deeply")
		p.bailed = true
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Resynchronisation

// syncStmt skips to the end of a statement after a syntax error: past the
// next ';', past a nested { } block, or up to the '}' that closes the
// enclosing block.
func (p *parser) syncStmt() {
	depth := 0
	for p.tok != token.EOF {
		switch p.tok {
		case token.LBRACE:
			depth++
		case token.RBRACE:
			if depth == 0 {
				return
			}
			if depth--; depth == 0 {
				p.next()
				return
			}
		case token.SEMI:
			if depth == 0 {
				p.next()
				return
			}
		}
		p.next()
	}
}

// endItem ends a member of a struct, translator or provider: it consumes
// the ';', or reports its absence and skips to the end of the member.
func (p *parser) endItem() {
	if p.tok == token.SEMI {
		p.next()
		return
	}
	p.syntaxError()
	p.syncStmt()
}

// syncTop skips to the next top-level item after an item that started at
// start failed: past a ';' or a '}' (and a ';' after it) at brace depth 0,
// or up to a token that begins a line in column 1, which is rescanned in
// the outer context.
func (p *parser) syncTop(start token.Pos) {
	depth := 0
	for p.tok != token.EOF {
		if depth == 0 && p.pos.Offset > start.Offset && p.pos.Col == 1 && p.firstOnLine() && p.tok != token.RBRACE {
			p.rescanOuter()
			return
		}
		switch p.tok {
		case token.LBRACE:
			depth++
		case token.RBRACE:
			if depth--; depth <= 0 {
				p.outer = true
				p.next()
				p.got(token.SEMI)
				return
			}
		case token.SEMI:
			if depth == 0 {
				p.outer = true
				p.next()
				return
			}
		}
		p.next()
	}
}

// rescanOuter reads the current token again in the outer context.
func (p *parser) rescanOuter() {
	if p.tokOuter {
		return
	}
	p.sc.Rewind(p.pos)
	p.outer = true
	line := p.prevLine
	p.next()
	p.prevLine = line
}

// ---------------------------------------------------------------------------
// Pragmas

// pragma receives #pragma lines from the scanner; they are placed in the
// program after the item during which they were scanned.
func (p *parser) pragma(pos token.Pos, kind string, args []string) {
	if kind == "option" {
		switch {
		case len(args) == 0:
			p.error(pos, "D_PRAGMA_MALFORM", "malformed #pragma option <option>=<val>")
		case len(args) > 1:
			p.error(pos, "D_PRAGMA_MALFORM", "superfluous arguments specified for #pragma option")
		}
	}
	p.pragmas = append(p.pragmas, &ast.PragmaDecl{PragmaPos: pos, Kind: kind, Args: args})
}

func (p *parser) flushPragmas() {
	for _, d := range p.pragmas {
		p.decls = append(p.decls, d)
	}
	p.pragmas = nil
}
