package scanner

import (
	"fmt"
	"math/bits"
	"strings"
)

// A LitError describes a malformed constant: Offset is the byte offset of
// the offending text within the literal.
type LitError struct {
	Offset int
	Tag    string
	Msg    string
}

func (e *LitError) Error() string { return e.Msg }

func litErrorf(off int, tag, format string, args ...any) *LitError {
	return &LitError{Offset: off, Tag: tag, Msg: fmt.Sprintf(format, args...)}
}

// report passes a literal error found in a literal starting at start (on
// the current line) to the error handler.
func (s *Scanner) report(start int, e *LitError) {
	if e != nil {
		s.error(s.posAt(start+e.Offset), e.Tag, "%s", e.Msg)
	}
}

// scanNumber scans an integer constant: decimal, octal (017) or hex (0x1f),
// with an optional u/l suffix. A floating-point constant is scanned whole
// and rejected, as in DTrace.
func (s *Scanner) scanNumber() string {
	start := s.off
	if s.src[s.off] == '0' && (s.peek(1) == 'x' || s.peek(1) == 'X') {
		s.off += 2
		for !s.atEOF() && isHex(s.src[s.off]) {
			s.off++
		}
	} else {
		for !s.atEOF() && isDigit(s.src[s.off]) {
			s.off++
		}
		if s.isFloatTail() {
			s.scanFloatTail()
			s.error(s.posAt(start), "D_SYNTAX", "floating-point constants are not permitted")
			return string(s.src[start:s.off])
		}
	}
	// Suffix letters and any stray identifier characters belong to the
	// constant; IntValue diagnoses them.
	for !s.atEOF() && isIdentChar(s.src[s.off]) {
		s.off++
	}
	lit := string(s.src[start:s.off])
	_, _, _, err := IntValue(lit)
	s.report(start, err)
	return lit
}

// isFloatTail reports whether the decimal digits just scanned continue as a
// floating-point constant (1.5, 1., 1e9).
func (s *Scanner) isFloatTail() bool {
	switch s.peek(0) {
	case '.':
		return s.peek(1) != '.' // not the start of ...
	case 'e', 'E':
		c := s.peek(1)
		return isDigit(c) || (c == '+' || c == '-') && isDigit(s.peek(2))
	}
	return false
}

func (s *Scanner) scanFloatTail() {
	if s.peek(0) == '.' {
		s.off++
		for !s.atEOF() && isDigit(s.src[s.off]) {
			s.off++
		}
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		s.off++
		if c := s.peek(0); c == '+' || c == '-' {
			s.off++
		}
		for !s.atEOF() && isDigit(s.src[s.off]) {
			s.off++
		}
	}
	if c := s.peek(0); c == 'f' || c == 'F' || c == 'l' || c == 'L' {
		s.off++
	}
}

// IntValue decodes an integer constant as returned by Scan: its value, and
// whether it has a u suffix and how many l suffixes.
func IntValue(lit string) (val uint64, unsigned bool, long int, err *LitError) {
	digits, base, first := lit, 10, 0
	switch {
	case len(lit) > 1 && lit[0] == '0' && (lit[1] == 'x' || lit[1] == 'X'):
		digits, base, first = lit[2:], 16, 2
	case len(lit) > 1 && lit[0] == '0':
		digits, base, first = lit[1:], 8, 1
	}
	n := 0
	for n < len(digits) && digitVal(digits[n]) < base {
		n++
	}
	if base == 16 && n == 0 {
		return 0, false, 0, litErrorf(0, "D_INT_DIGIT", "constant %s contains no hexadecimal digits", lit)
	}
	suffix := digits[n:]
	if base == 8 && len(suffix) > 0 && isDigit(suffix[0]) {
		return 0, false, 0, litErrorf(first+n, "D_INT_DIGIT", "constant %s contains invalid digit %c", lit, suffix[0])
	}
	unsigned, long, ok := intSuffix(suffix)
	if !ok {
		bad := first + n + badSuffixIndex(suffix)
		return 0, false, 0, litErrorf(bad, "D_INT_DIGIT", "constant %s contains invalid digit %c", lit, lit[bad])
	}
	val, over := accumulate(digits[:n], base)
	if over {
		return 0, unsigned, long, litErrorf(0, "D_INT_OFLOW", "constant %s results in integer overflow", lit)
	}
	return val, unsigned, long, nil
}

func digitVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func accumulate(digits string, base int) (val uint64, overflow bool) {
	for i := 0; i < len(digits); i++ {
		hi, lo := bits.Mul64(val, uint64(base))
		lo, carry := bits.Add64(lo, uint64(digitVal(digits[i])), 0)
		if hi != 0 || carry != 0 {
			return 0, true
		}
		val = lo
	}
	return val, false
}

// intSuffix decodes u, l, ul, lu, ll, ull and llu in any case.
func intSuffix(suf string) (unsigned bool, long int, ok bool) {
	s := strings.ToLower(suf)
	if strings.HasPrefix(s, "u") {
		unsigned, s = true, s[1:]
	}
	switch {
	case strings.HasPrefix(s, "ll"):
		long, s = 2, s[2:]
	case strings.HasPrefix(s, "l"):
		long, s = 1, s[1:]
	}
	if s == "u" && !unsigned {
		unsigned, s = true, ""
	}
	return unsigned, long, s == ""
}

// badSuffixIndex returns the index of the first character of suf that
// cannot belong to a valid suffix.
func badSuffixIndex(suf string) int {
	for i := len(suf); i > 0; i-- {
		if _, _, ok := intSuffix(suf[:i]); ok {
			return i
		}
	}
	return 0
}

// scanQuoted scans a string or character constant delimited by q and
// reports whether it was closed on its line. D does not allow a newline in
// a constant; to avoid a second error for the rest of a constant broken
// across two lines, a constant that meets a newline extends to a closing
// quote on the next line if there is one, else it ends at the newline.
func (s *Scanner) scanQuoted(q byte) (lit string, closed bool) {
	start := s.off
	s.off++
	if end, ok := s.quoteEnd(q); ok {
		s.off = end
		return string(s.src[start:s.off]), true
	}
	if !s.atEOF() {
		atNewline := *s
		s.advance()
		if end, ok := s.quoteEnd(q); ok {
			s.off = end
			return string(s.src[start:s.off]), false
		}
		*s = atNewline
	}
	return string(s.src[start:s.off]), false
}

// quoteEnd finds the closing quote q on the current line from s.off; it
// returns the offset after the quote, or leaves s.off at the newline (or
// EOF) and returns false.
func (s *Scanner) quoteEnd(q byte) (int, bool) {
	for !s.atEOF() {
		switch c := s.src[s.off]; {
		case c == q:
			return s.off + 1, true
		case c == '\n':
			return 0, false
		case c == '\\' && s.peek(1) != '\n' && s.peek(1) != 0:
			s.off += 2
		default:
			s.off++
		}
	}
	return 0, false
}

func (s *Scanner) scanString() string {
	start, pos := s.off, s.pos()
	lit, closed := s.scanQuoted('"')
	if !closed {
		s.error(pos, "D_STR_NL", "%s", unterminated("string literal", s.atEOF()))
		return lit
	}
	_, err := StringValue(lit)
	s.report(start, err)
	return lit
}

func (s *Scanner) scanChar() string {
	start, pos := s.off, s.pos()
	lit, closed := s.scanQuoted('\'')
	if !closed {
		s.error(pos, "D_CHR_NL", "%s", unterminated("character constant", s.atEOF()))
		return lit
	}
	_, err := CharValue(lit)
	s.report(start, err)
	return lit
}

func unterminated(what string, eof bool) string {
	if eof {
		return "end-of-file encountered in " + what
	}
	return "newline encountered in " + what
}

// body strips the quotes q from a scanned literal; an unterminated literal
// has no closing quote.
func body(lit string, q byte) string {
	if len(lit) == 0 || lit[0] != q {
		return lit
	}
	for i := 1; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case q:
			return lit[1:i]
		}
	}
	return lit[1:]
}

// StringValue decodes a string constant as returned by Scan, resolving C
// escape sequences.
func StringValue(lit string) (string, *LitError) {
	v, err := unescape(body(lit, '"'))
	if err != nil {
		err.Offset++ // account for the opening quote
	}
	return v, err
}

// CharValue decodes a character constant as returned by Scan. As in C and
// DTrace, a multi-character constant packs its bytes big-end first into
// the value ('ab' == 'a'<<8 | 'b'); at most 8 bytes are allowed.
func CharValue(lit string) (uint64, *LitError) {
	v, err := unescape(body(lit, '\''))
	if err != nil {
		err.Offset++
		return 0, err
	}
	switch {
	case v == "":
		return 0, litErrorf(0, "D_CHR_NULL", "empty character constant")
	case len(v) > 8:
		return 0, litErrorf(0, "D_CHR_OFLOW", "character constant is too long")
	}
	var val uint64
	for i := 0; i < len(v); i++ {
		val = val<<8 | uint64(v[i])
	}
	return val, nil
}

// unescape resolves the C escape sequences of a constant's body.
func unescape(b string) (string, *LitError) {
	if strings.IndexByte(b, '\\') < 0 {
		return b, nil
	}
	var out strings.Builder
	for i := 0; i < len(b); {
		if b[i] != '\\' {
			out.WriteByte(b[i])
			i++
			continue
		}
		c, n, err := escape(b, i)
		if err != nil {
			return out.String(), err
		}
		out.WriteByte(c)
		i += n
	}
	return out.String(), nil
}

var simpleEscapes = map[byte]byte{
	'n': '\n', 't': '\t', 'v': '\v', 'b': '\b', 'r': '\r', 'f': '\f', 'a': '\a',
	'\\': '\\', '?': '?', '\'': '\'', '"': '"',
}

// escape decodes the escape sequence at b[i] (a backslash) and returns the
// byte and the length of the sequence.
func escape(b string, i int) (byte, int, *LitError) {
	if i+1 >= len(b) {
		return 0, 0, litErrorf(i, "D_SYNTAX", "invalid escape sequence at end of constant")
	}
	c := b[i+1]
	if v, ok := simpleEscapes[c]; ok {
		return v, 2, nil
	}
	switch {
	case '0' <= c && c <= '7':
		v, n := 0, 1
		for n < 4 && i+n < len(b) && '0' <= b[i+n] && b[i+n] <= '7' {
			v = v*8 + int(b[i+n]-'0')
			n++
		}
		if v > 0xff {
			return 0, 0, litErrorf(i, "D_SYNTAX", "octal escape sequence %s is out of range", b[i:i+n])
		}
		return byte(v), n, nil
	case c == 'x':
		v, n := 0, 2
		for n < 4 && i+n < len(b) && isHex(b[i+n]) {
			v = v*16 + digitVal(b[i+n])
			n++
		}
		if n == 2 {
			return 0, 0, litErrorf(i, "D_SYNTAX", `\x used with no following hex digits`)
		}
		return byte(v), n, nil
	}
	return 0, 0, litErrorf(i, "D_SYNTAX", "invalid escape sequence %q", b[i:i+2])
}
