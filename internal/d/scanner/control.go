package scanner

import (
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/token"
)

// Control lines, as handled by illumos dt_pragma.c:
//
//	#!/usr/sbin/dtrace -s        ignored (interpreter line)
//	# 12 "file.d" [flags]        line marker from cpp: the next line is 12
//	#line 12 ["file.d"]          the same
//	#pragma D option quiet       passed to the PragmaHandler
//	#pragma other ...            passed to the PragmaHandler with kind ""
//	#error message               D_PRAGERR
//	#ident ..., #                ignored
//	#anything-else               D_PRAGCTL_INVAL

// A ctlWord is one word of a control line; quoted words are unescaped.
type ctlWord struct {
	text   string
	quoted bool
}

// controlLine processes the control line whose '#' is at s.off. It
// consumes the line up to its newline, or up to a comment that starts on
// it, which skipSpace then skips.
func (s *Scanner) controlLine() {
	pos := s.pos()
	if s.peek(1) == '!' {
		s.skipLine()
		return
	}
	s.off++ // #
	raw, words := s.controlWords()
	if len(words) == 0 {
		return
	}
	w := words[0]
	if !w.quoted && isNumber(w.text) {
		s.lineMarker(pos, words)
		return
	}
	s.directive(pos, w.text, words[1:], raw)
}

// directive handles the control directive name with its arguments. raw is
// the text of the line after the '#'.
func (s *Scanner) directive(pos token.Pos, name string, args []ctlWord, raw string) {
	switch name {
	case "line":
		s.lineMarker(pos, args)
	case "pragma":
		s.pragmaLine(pos, args, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), "pragma")))
	case "error":
		s.error(pos, "D_PRAGERR", "#error: %s", joinWords(args))
	case "ident":
	default:
		s.error(pos, "D_PRAGCTL_INVAL", "invalid control directive: #%s", name)
	}
}

func (s *Scanner) pragmaLine(pos token.Pos, args []ctlWord, rest string) {
	switch {
	case len(args) == 0:
		return
	case args[0].text == "line" || args[0].text == "error" || args[0].text == "ident":
		s.directive(pos, args[0].text, args[1:], rest)
		return
	case args[0].text != "D" || args[0].quoted:
		s.emitPragma(pos, "", []string{rest})
		return
	case len(args) == 1:
		return // #pragma D alone does nothing
	}
	kind := args[1].text
	switch kind {
	case "line", "error", "ident":
		s.directive(pos, kind, args[2:], "")
		return
	}
	var out []string
	for _, a := range args[2:] {
		out = append(out, a.text)
	}
	s.emitPragma(pos, kind, out)
}

func (s *Scanner) emitPragma(pos token.Pos, kind string, args []string) {
	if s.pragma != nil {
		s.pragma(pos, kind, args)
	}
}

// lineMarker handles "<line> ["file" [flags]]".
func (s *Scanner) lineMarker(pos token.Pos, args []ctlWord) {
	bad := len(args) == 0 || args[0].quoted || !isNumber(args[0].text) ||
		len(args) > 1 && !args[1].quoted ||
		len(args) > 2 && (args[2].quoted || !isNumber(args[2].text))
	n := 0
	if !bad {
		v, err := strconv.Atoi(args[0].text)
		bad = err != nil || v > 1<<30
		n = v
	}
	if bad {
		s.error(pos, "D_PRAGMA_MALFORM", `malformed #line <line> [ ["file"] state ]`)
		return
	}
	// gcc's cpp starts with # 0 "<stdin>"; positions start at line 1.
	s.marked, s.markLine, s.markFile = true, max(n, 1), s.file
	if len(args) > 1 {
		s.markFile = args[1].text
	}
}

// controlWords reads the rest of a control line and splits it into words:
// runs of non-blank characters and double-quoted strings. It stops before
// the newline or at a comment.
func (s *Scanner) controlWords() (raw string, words []ctlWord) {
	start := s.off
	for !s.atEOF() {
		c := s.src[s.off]
		switch {
		case c == '\n':
			return string(s.src[start:s.off]), words
		case c == '/' && (s.peek(1) == '*' || s.peek(1) == '/'):
			return string(s.src[start:s.off]), words
		case isBlank(c):
			s.off++
		case c == '"':
			start := s.off
			s.off++
			if end, ok := s.quoteEnd('"'); ok {
				s.off = end
			}
			v, _ := StringValue(string(s.src[start:s.off]))
			words = append(words, ctlWord{v, true})
		default:
			words = append(words, ctlWord{s.controlRun(), false})
		}
	}
	return string(s.src[start:s.off]), words
}

// controlRun scans a run of characters that are neither blank nor quotes
// nor the start of a comment.
func (s *Scanner) controlRun() string {
	start := s.off
	for !s.atEOF() {
		c := s.src[s.off]
		if isBlank(c) || c == '"' || c == '/' && (s.peek(1) == '*' || s.peek(1) == '/') {
			break
		}
		s.off++
	}
	return string(s.src[start:s.off])
}

func joinWords(ws []ctlWord) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " ")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
