// Package scanner implements the lexical scanner of the D language, modelled
// on illumos dt_lex.l. It turns source text into tokens in one of two
// contexts chosen by the caller, as DTrace's lexer does with its start
// states:
//
//   - Scan reads clause and expression tokens (DTrace's S0): identifiers,
//     keywords, constants, operators, macro variables and aggregations.
//   - ScanProbeDesc reads the outer context (S2): a run of probe-description
//     characters such as syscall::read*:entry, unless the run is the first
//     word of a declaration, in which case it is rescanned as an ordinary
//     token.
//
// Comments (/* */ and //) and line continuations are skipped. Control lines
// (a # first on a line) are lexical too: line markers (# 12 "file.d", #line)
// reset positions, #! and #ident lines are ignored, #error is reported, and
// #pragma lines are handed to the PragmaHandler. Errors are reported through
// the ErrorHandler with DTrace's error tags; the scanner always makes
// progress and never fails.
package scanner

import (
	"bytes"
	"fmt"

	"github.com/sonde-trace/sonde/internal/d/token"
)

// An ErrorHandler is called for each error with its position, DTrace error
// tag and message.
type ErrorHandler func(pos token.Pos, tag, msg string)

// A PragmaHandler is called for each #pragma control line. For
// "#pragma D kind args..." kind is the word after D; for any other pragma
// kind is "" and args holds the text after "#pragma" as one element.
type PragmaHandler func(pos token.Pos, kind string, args []string)

// Scanner holds the scanner's state. The zero value is not usable; call
// Init. A Scanner may be copied to save and later restore its state.
type Scanner struct {
	src    []byte
	err    ErrorHandler
	pragma PragmaHandler

	file      string
	off       int // offset of the next unread byte
	line      int // line number of src[off]
	lineStart int // offset of the first byte of the current line

	// A line marker (# 12 "f.d") takes effect at the next newline.
	markLine int
	markFile string
	marked   bool

	ErrorCount int // number of errors reported
}

// Init prepares s to scan src, reporting positions in file. err and pragma
// may be nil.
func (s *Scanner) Init(file string, src []byte, err ErrorHandler, pragma PragmaHandler) {
	*s = Scanner{src: src, err: err, pragma: pragma, file: file, line: 1}
}

func (s *Scanner) error(pos token.Pos, tag, format string, args ...any) {
	s.ErrorCount++
	if s.err != nil {
		s.err(pos, tag, fmt.Sprintf(format, args...))
	}
}

// posAt returns the position of offset off, which must lie on the current
// line.
func (s *Scanner) posAt(off int) token.Pos {
	return token.Pos{File: s.file, Offset: off, Line: s.line, Col: off - s.lineStart + 1}
}

func (s *Scanner) pos() token.Pos { return s.posAt(s.off) }

// peek returns the byte n positions ahead, or 0 past the end.
func (s *Scanner) peek(n int) byte {
	if s.off+n < len(s.src) {
		return s.src[s.off+n]
	}
	return 0
}

func (s *Scanner) atEOF() bool { return s.off >= len(s.src) }

// advance consumes one byte, keeping line information up to date.
func (s *Scanner) advance() {
	if s.atEOF() {
		return
	}
	c := s.src[s.off]
	s.off++
	if c == '\n' {
		s.line++
		s.lineStart = s.off
		if s.marked {
			s.line, s.file, s.marked = s.markLine, s.markFile, false
		}
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isIdentChar reports whether c may continue an identifier; D identifiers
// may contain a backquote (genunix`rootvnode).
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '`' }

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isPspecChar reports whether c may appear in a probe description.
func isPspecChar(c byte) bool {
	if isLetter(c) || isDigit(c) {
		return true
	}
	switch c {
	case '-', '.', '*', '?', '[', ']', '!', '$', ':', '`', '+', '~', '\\':
		return true
	}
	return false
}

// skipSpace skips white space, comments, line continuations and control
// lines.
func (s *Scanner) skipSpace() {
	for !s.atEOF() {
		c := s.src[s.off]
		switch {
		case isBlank(c):
			s.advance()
		case c == '\\' && s.peek(1) == '\n':
			s.advance()
			s.advance()
		case c == '\\' && s.peek(1) == '\r' && s.peek(2) == '\n':
			s.advance()
			s.advance()
			s.advance()
		case c == '/' && s.peek(1) == '*':
			s.skipBlockComment()
		case c == '/' && s.peek(1) == '/':
			s.skipLine()
		case c == '#' && s.atLineStart():
			s.controlLine()
		default:
			return
		}
	}
}

// skipLine skips to the end of the line, leaving the newline unread.
func (s *Scanner) skipLine() {
	for !s.atEOF() && s.src[s.off] != '\n' {
		s.advance()
	}
}

func (s *Scanner) skipBlockComment() {
	start := s.pos()
	s.advance()
	s.advance()
	nested := false
	for !s.atEOF() {
		if s.src[s.off] == '*' && s.peek(1) == '/' {
			s.advance()
			s.advance()
			return
		}
		if s.src[s.off] == '/' && s.peek(1) == '*' && !nested {
			s.error(s.pos(), "D_SYNTAX", "/* encountered inside a comment")
			nested = true
		}
		s.advance()
	}
	s.error(start, "D_SYNTAX", "end-of-file encountered before matching */")
}

// atLineStart reports whether only blanks precede s.off on its line. It
// scans backwards so that it stops at the first non-blank.
func (s *Scanner) atLineStart() bool {
	for i := s.off - 1; i >= s.lineStart; i-- {
		if c := s.src[i]; c != ' ' && c != '\t' && c != '\f' && c != '\v' && c != '\r' {
			return false
		}
	}
	return true
}

// Scan returns the next token in clause and expression context: its
// position, kind and literal text. The literal is the source text for
// identifiers, keywords, constants (with quotes), macro variables and
// aggregations, and "" for operators and EOF. Invalid input yields ILLEGAL
// after an error has been reported.
func (s *Scanner) Scan() (pos token.Pos, tok token.Kind, lit string) {
	s.skipSpace()
	pos = s.pos()
	if s.atEOF() {
		return pos, token.EOF, ""
	}
	c := s.src[s.off]
	switch {
	case isLetter(c) || c == '`':
		lit = s.scanIdent()
		return pos, token.Lookup(lit), lit
	case isDigit(c) || c == '.' && isDigit(s.peek(1)):
		return pos, token.INT, s.scanNumber()
	case c == '"':
		return pos, token.STRING, s.scanString()
	case c == '\'':
		return pos, token.CHAR, s.scanChar()
	case c == '$':
		return s.scanMacro()
	case c == '@':
		return pos, token.AGG, s.scanAgg()
	}
	return s.scanOperator()
}

func (s *Scanner) scanIdent() string {
	start := s.off
	for !s.atEOF() && isIdentChar(s.src[s.off]) {
		s.advance()
	}
	return string(s.src[start:s.off])
}

// scanMacro scans $N, $$N, $name or $$name.
func (s *Scanner) scanMacro() (token.Pos, token.Kind, string) {
	pos, start := s.pos(), s.off
	n := 1
	if s.peek(1) == '$' {
		n = 2
	}
	switch c := s.peek(n); {
	case isDigit(c):
		s.off += n
		for !s.atEOF() && isDigit(s.src[s.off]) {
			s.advance()
		}
	case isLetter(c) || c == '`':
		s.off += n
		s.scanIdent()
	default:
		return s.illegal()
	}
	return pos, token.MACRO, string(s.src[start:s.off])
}

// scanAgg scans @name or a bare @.
func (s *Scanner) scanAgg() string {
	start := s.off
	s.advance()
	if !s.atEOF() && isLetter(s.src[s.off]) {
		for !s.atEOF() && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
			s.advance()
		}
	}
	return string(s.src[start:s.off])
}

// illegal consumes one character that cannot start a token and reports it.
func (s *Scanner) illegal() (token.Pos, token.Kind, string) {
	pos := s.pos()
	c := s.src[s.off]
	s.advance()
	near := string(rune(c))
	if c < ' ' || c >= 0x7f {
		near = fmt.Sprintf("\\x%02x", c)
	}
	s.error(pos, "D_SYNTAX", "syntax error near %q", near)
	return pos, token.ILLEGAL, near
}

// ScanProbeDesc returns the next token in the outer context, where probe
// descriptions are read. A run of probe-description characters
// ([-a-zA-Z0-9_.*?[]!$:`+~\]) is returned as one PROBEDESC token, unless it
// contains no ':' and its first word (the text before any '*' that is not
// its first character, so that "int*x" yields "int") satisfies isDecl: then
// the run is rescanned by Scan, as is anything that does not start a run
// ({, /, ',' and so on).
func (s *Scanner) ScanProbeDesc(isDecl func(word string) bool) (pos token.Pos, tok token.Kind, lit string) {
	s.skipSpace()
	pos = s.pos()
	if s.atEOF() || !isPspecChar(s.src[s.off]) {
		return s.Scan()
	}
	start := s.off
	for !s.atEOF() && isPspecChar(s.src[s.off]) {
		s.advance()
	}
	run := s.src[start:s.off]
	if bytes.IndexByte(run, ':') < 0 && isDecl != nil {
		word := run
		if i := bytes.IndexByte(run, '*'); i > 0 {
			word = run[:i]
		}
		if isDecl(string(word)) {
			s.off = start // no newline in run: line data is unchanged
			return s.Scan()
		}
	}
	return pos, token.PROBEDESC, string(run)
}

// A Token is a scanned token, as returned by Peek.
type Token struct {
	Pos  token.Pos
	Kind token.Kind
	Lit  string
}

// Peek returns the next n tokens that Scan would return, without consuming
// them and without reporting errors or pragmas. It stops early at EOF.
func (s *Scanner) Peek(n int) []Token {
	saved := *s
	s.err, s.pragma = nil, nil
	var toks []Token
	for i := 0; i < n; i++ {
		pos, tok, lit := s.Scan()
		toks = append(toks, Token{pos, tok, lit})
		if tok == token.EOF {
			break
		}
	}
	*s = saved
	return toks
}

// Rewind resets the scanner to pos, which must be a position it returned
// earlier for the same source, so that the text is scanned again.
func (s *Scanner) Rewind(pos token.Pos) {
	s.off = pos.Offset
	s.line = pos.Line
	s.lineStart = pos.Offset - (pos.Col - 1)
	s.file = pos.File
	s.marked = false
}

func (s *Scanner) scanOperator() (token.Pos, token.Kind, string) {
	pos := s.pos()
	c := s.src[s.off]
	tok := token.ILLEGAL
	n := 1 // bytes consumed
	c1, c2 := s.peek(1), s.peek(2)
	switch c {
	case '(':
		tok = token.LPAREN
	case ')':
		tok = token.RPAREN
	case '[':
		tok = token.LBRACK
	case ']':
		tok = token.RBRACK
	case '{':
		tok = token.LBRACE
	case '}':
		tok = token.RBRACE
	case ',':
		tok = token.COMMA
	case ';':
		tok = token.SEMI
	case ':':
		tok = token.COLON
	case '?':
		tok = token.QUEST
	case '~':
		tok = token.TILDE
	case '.':
		tok = token.PERIOD
		if c1 == '.' && c2 == '.' {
			tok, n = token.ELLIPSIS, 3
		}
	case '+':
		tok, n = pick2(c1, token.ADD, '+', token.INC, '=', token.ADD_ASSIGN)
	case '-':
		tok, n = pick2(c1, token.SUB, '-', token.DEC, '=', token.SUB_ASSIGN)
		if c1 == '>' {
			tok, n = token.ARROW, 2
		}
	case '*':
		tok, n = pick2(c1, token.MUL, '=', token.MUL_ASSIGN, 0, 0)
	case '/':
		tok, n = pick2(c1, token.QUO, '=', token.QUO_ASSIGN, 0, 0)
	case '%':
		tok, n = pick2(c1, token.REM, '=', token.REM_ASSIGN, 0, 0)
	case '&':
		tok, n = pick2(c1, token.AND, '&', token.LAND, '=', token.AND_ASSIGN)
	case '|':
		tok, n = pick2(c1, token.OR, '|', token.LOR, '=', token.OR_ASSIGN)
	case '^':
		tok, n = pick2(c1, token.XOR, '^', token.LXOR, '=', token.XOR_ASSIGN)
	case '=':
		tok, n = pick2(c1, token.ASSIGN, '=', token.EQL, 0, 0)
	case '!':
		tok, n = pick2(c1, token.NOT, '=', token.NEQ, 0, 0)
	case '<':
		tok, n = s.shiftOrCompare(c1, c2, token.LSS, token.LEQ, token.SHL, token.SHL_ASSIGN)
	case '>':
		tok, n = s.shiftOrCompare(c1, c2, token.GTR, token.GEQ, token.SHR, token.SHR_ASSIGN)
	default:
		return s.illegal()
	}
	s.off += n // operators never contain a newline
	return pos, tok, ""
}

// pick2 chooses between a one-byte operator and two two-byte ones.
func pick2(next byte, one token.Kind, b1 byte, two1 token.Kind, b2 byte, two2 token.Kind) (token.Kind, int) {
	switch {
	case next == b1 && b1 != 0:
		return two1, 2
	case next == b2 && b2 != 0:
		return two2, 2
	}
	return one, 1
}

// shiftOrCompare scans < <= << <<= (or the > family); c is the operator
// byte, which the caller has seen.
func (s *Scanner) shiftOrCompare(c1, c2 byte, lt, le, shl, shlAssign token.Kind) (token.Kind, int) {
	c := s.src[s.off]
	switch {
	case c1 == c && c2 == '=':
		return shlAssign, 3
	case c1 == c:
		return shl, 2
	case c1 == '=':
		return le, 2
	}
	return lt, 1
}
