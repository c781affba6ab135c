// Package diag holds D compile errors: a position, DTrace's stable error tag
// (D_SYNTAX, D_PROTO_ARG, ...) and a message. Errors print as
// "file:line:col: message" and, with Render, with the source line and a
// caret under the offending column.
package diag

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/token"
)

// Error is one D compile error.
type Error struct {
	Pos token.Pos
	Tag string // DTrace error tag, e.g. "D_SYNTAX"; may be empty
	Msg string // lowercase, no final period
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// List is a list of errors, sorted by position when returned by Err.
type List []*Error

// Add appends an error.
func (l *List) Add(pos token.Pos, tag, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Tag: tag, Msg: fmt.Sprintf(format, args...)})
}

// Len, Less and Swap sort by file, line, column.
func (l List) Len() int      { return len(l) }
func (l List) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l List) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// Sort sorts l by position and removes errors repeated at the same line
// (only the first error per line is kept, as follow-on errors rarely help).
func (l *List) Sort() {
	sort.Stable(*l)
	out := (*l)[:0]
	var last token.Pos
	for i, e := range *l {
		if i > 0 && e.Pos.File == last.File && e.Pos.Line == last.Line && e.Pos.IsValid() {
			continue
		}
		out = append(out, e)
		last = e.Pos
	}
	*l = out
}

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list, else the sorted list as an error.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Sources maps file names to their text, for Render.
type Sources map[string]string

// Render formats one error as
//
//	prog.d:3:14: [D_SYNTAX] syntax error near "}"
//	    @a = count(;
//	               ^
//
// The tag is shown only when tags is set (-x errtags).
func Render(e *Error, src Sources, tags bool) string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if tags && e.Tag != "" {
		b.WriteString("[" + e.Tag + "] ")
	}
	b.WriteString(e.Msg)
	b.WriteByte('\n')
	if text, ok := src[e.Pos.File]; ok && e.Pos.IsValid() {
		lines := strings.Split(text, "\n")
		if e.Pos.Line-1 < len(lines) {
			line := strings.TrimRight(lines[e.Pos.Line-1], "\r")
			b.WriteString("    " + strings.ReplaceAll(line, "\t", " ") + "\n")
			col := e.Pos.Col - 1
			if col > len(line) {
				col = len(line)
			}
			if col < 0 {
				col = 0
			}
			b.WriteString("    " + strings.Repeat(" ", col) + "^\n")
		}
	}
	return b.String()
}

// RenderDTrace formats an error in dtrace(1)'s layout, for scripts that
// match on it when sonde is installed as dtrace:
//
//	dtrace: failed to compile script prog.d: [D_SYNTAX] line 3: syntax error near "}"
//	dtrace: invalid probe specifier BEGIN { x = ; }: line 1: syntax error near ";"
//
// (dfatal's prefix and dt_set_errmsg's "[TAG] line N: "); the tag is shown
// only when tags is set (-x errtags), as dtrace shows it.
func RenderDTrace(e *Error, src Sources, tags bool) string {
	var b strings.Builder
	b.WriteString("dtrace: ")
	if e.Pos.File == "-n" {
		fmt.Fprintf(&b, "invalid probe specifier %s: ", src[e.Pos.File])
	} else {
		fmt.Fprintf(&b, "failed to compile script %s: ", e.Pos.File)
	}
	if tags && e.Tag != "" {
		b.WriteString("[" + e.Tag + "] ")
	}
	if e.Pos.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Pos.Line)
	}
	b.WriteString(e.Msg)
	b.WriteByte('\n')
	return b.String()
}
