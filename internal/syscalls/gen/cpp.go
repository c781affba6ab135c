package main

// A preprocessor for exactly as much C as the kernel's unistd headers use:
// object-like #define/#undef, #ifdef/#ifndef/#if/#elif/#else/#endif with
// integer expressions over defined(), ==, !=, <, >, &&, || and !, and
// #include of other unistd headers. Lines that are not directives are
// handed to a callback (the __SYSCALL(...) table lines).

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

type cpp struct {
	incDirs []string          // searched for #include <...>
	macros  map[string]string // object-like macros; function-like ones map to "()"
	onLine  func(line string) // called for each active non-directive line
}

type cond struct {
	active   bool // this branch is being read
	taken    bool // some branch of this #if has been taken
	parentOn bool // the enclosing branch is being read
}

func (p *cpp) file(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var stack []cond
	on := func() bool { return len(stack) == 0 || stack[len(stack)-1].active }
	lines := joinContinued(stripComments(string(data)))
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			if on() && line != "" {
				p.onLine(line)
			}
			continue
		}
		dir, rest, _ := strings.Cut(strings.TrimSpace(line[1:]), " ")
		rest = strings.TrimSpace(rest)
		var err error
		switch dir {
		case "ifdef", "ifndef", "if":
			v := false
			if on() {
				v, err = p.test(dir, rest)
			}
			stack = append(stack, cond{active: on() && v, taken: v, parentOn: on()})
		case "elif", "else":
			if len(stack) == 0 {
				return fmt.Errorf("%s:%d: #%s without #if", name, i+1, dir)
			}
			c := &stack[len(stack)-1]
			v := true
			if dir == "elif" && c.parentOn && !c.taken {
				v, err = p.test("if", rest)
			}
			c.active = c.parentOn && !c.taken && v
			c.taken = c.taken || c.active
		case "endif":
			if len(stack) == 0 {
				return fmt.Errorf("%s:%d: #endif without #if", name, i+1)
			}
			stack = stack[:len(stack)-1]
		case "define":
			if on() {
				p.define(rest)
			}
		case "undef":
			if on() {
				delete(p.macros, rest)
			}
		case "include":
			if on() {
				err = p.include(rest)
			}
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("%s: unterminated #if", name)
	}
	return nil
}

func (p *cpp) define(rest string) {
	name, val, _ := strings.Cut(rest, " ")
	if i := strings.IndexByte(name, '('); i >= 0 {
		p.macros[name[:i]] = "()"
		return
	}
	p.macros[name] = strings.TrimSpace(val)
}

// include reads a unistd header from the include path; other headers
// (asm/bitsperlong.h) hold nothing the tables need and are skipped.
func (p *cpp) include(rest string) error {
	h := strings.Trim(rest, "<>\"")
	if !strings.Contains(h, "unistd") {
		return nil
	}
	for _, dir := range p.incDirs {
		f := filepath.Join(dir, h)
		if _, err := os.Stat(f); err == nil {
			return p.file(f)
		}
	}
	return fmt.Errorf("include %s: not found in %v", h, p.incDirs)
}

func (p *cpp) test(dir, rest string) (bool, error) {
	switch dir {
	case "ifdef":
		_, ok := p.macros[rest]
		return ok, nil
	case "ifndef":
		_, ok := p.macros[rest]
		return !ok, nil
	}
	e := &expr{toks: tokenize(rest), p: p}
	v, err := e.or()
	if err == nil && e.i != len(e.toks) {
		err = fmt.Errorf("junk after expression %q", rest)
	}
	return v != 0, err
}

// value expands a macro to an integer: 0 if it is not defined, as in #if.
func (p *cpp) value(name string, depth int) (int64, error) {
	v, ok := p.macros[name]
	if !ok {
		return 0, nil
	}
	if n, err := strconv.ParseInt(v, 0, 64); err == nil {
		return n, nil
	}
	if depth > 16 || !isIdent(v) {
		return 0, fmt.Errorf("cannot evaluate %s = %q", name, v)
	}
	return p.value(v, depth+1)
}

// expr evaluates a #if expression by recursive descent.
type expr struct {
	toks []string
	i    int
	p    *cpp
}

func (e *expr) peek() string {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return ""
}

func (e *expr) next() string { t := e.peek(); e.i++; return t }

func (e *expr) or() (int64, error) {
	return e.binary(e.and, "||", func(a, b int64) int64 { return b2i(a != 0 || b != 0) })
}

func (e *expr) and() (int64, error) {
	return e.binary(e.cmp, "&&", func(a, b int64) int64 { return b2i(a != 0 && b != 0) })
}

func (e *expr) cmp() (int64, error) {
	a, err := e.unary()
	for err == nil {
		op := e.peek()
		var f func(a, b int64) bool
		switch op {
		case "==":
			f = func(a, b int64) bool { return a == b }
		case "!=":
			f = func(a, b int64) bool { return a != b }
		case "<":
			f = func(a, b int64) bool { return a < b }
		case ">":
			f = func(a, b int64) bool { return a > b }
		default:
			return a, nil
		}
		e.next()
		var b int64
		if b, err = e.unary(); err == nil {
			a = b2i(f(a, b))
		}
	}
	return a, err
}

func (e *expr) binary(sub func() (int64, error), op string, f func(a, b int64) int64) (int64, error) {
	a, err := sub()
	for err == nil && e.peek() == op {
		e.next()
		var b int64
		if b, err = sub(); err == nil {
			a = f(a, b)
		}
	}
	return a, err
}

func (e *expr) unary() (int64, error) {
	switch t := e.next(); {
	case t == "!":
		v, err := e.unary()
		return b2i(v == 0), err
	case t == "(":
		v, err := e.or()
		if err == nil && e.next() != ")" {
			err = fmt.Errorf("missing )")
		}
		return v, err
	case t == "defined":
		paren := e.peek() == "("
		if paren {
			e.next()
		}
		name := e.next()
		if paren && e.next() != ")" {
			return 0, fmt.Errorf("missing ) after defined(%s", name)
		}
		_, ok := e.p.macros[name]
		return b2i(ok), nil
	case isIdent(t):
		return e.p.value(t, 0)
	default:
		n, err := strconv.ParseInt(t, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected %q in #if", t)
		}
		return n, nil
	}
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case i+1 < len(s) && strings.Contains("== != && ||", s[i:i+2]):
			toks = append(toks, s[i:i+2])
			i += 2
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// joinContinued splits text into lines, joining those ending in a backslash
// with the next.
func joinContinued(text string) []string {
	var out []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			cur.WriteByte(' ')
			out = append(out, "") // keep line numbers right
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

// stripComments removes /* */ and // comments, keeping the line breaks
// inside block comments so that line numbers stay right.
func stripComments(text string) string {
	var b strings.Builder
	for len(text) > 0 {
		switch {
		case strings.HasPrefix(text, "/*"):
			end := strings.Index(text[2:], "*/")
			if end < 0 {
				return b.String() // unterminated: drop the rest
			}
			b.WriteString(strings.Repeat("\n", strings.Count(text[:end+2], "\n")))
			b.WriteByte(' ')
			text = text[end+4:]
		case strings.HasPrefix(text, "//"):
			nl := strings.IndexByte(text, '\n')
			if nl < 0 {
				nl = len(text)
			}
			text = text[nl:]
		default:
			b.WriteByte(text[0])
			text = text[1:]
		}
	}
	return b.String()
}
