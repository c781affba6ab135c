package tracer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// SourceKind says how a source was given, as dtrace's options say it.
type SourceKind int

// Source kinds.
const (
	Inline   SourceKind = iota // -n: a program text
	File                       // -s: a script file
	Provider                   // -P provider
	Module                     // -m module
	Function                   // -f function
	Name                       // -i probe ID
)

// Source is one D source of a program.
type Source struct {
	Kind SourceKind
	Text string // the program, or the file name for File, or the name for the others
}

// Load returns the name a source's positions carry, its D text (a script
// run through cpp when asked) and the text as written, for messages.
func (s Source) Load(cpp bool) (name, text, orig string, err error) {
	return s.LoadCpp(cpp, nil)
}

// LoadCpp is Load with cpp's own arguments (-D, -U, -I, -H), given to it
// before the script.
func (s Source) LoadCpp(cpp bool, cppArgs []string) (name, text, orig string, err error) {
	switch s.Kind {
	case File:
		b, err := os.ReadFile(s.Text)
		if err != nil {
			return "", "", "", fmt.Errorf("failed to open %s: %w", s.Text, errors.Unwrap(err))
		}
		text := string(b)
		if cpp {
			out, err := runCPP(s.Text, text, cppArgs)
			if err != nil {
				return "", "", "", err
			}
			return s.Text, out, text, nil
		}
		return s.Text, text, text, nil
	case Provider:
		t := partialDesc(s.Text, 0)
		return "-P", t, t, nil
	case Module:
		t := partialDesc(s.Text, 1)
		return "-m", t, t, nil
	case Function:
		t := partialDesc(s.Text, 2)
		return "-f", t, t, nil
	case Name:
		return "-i", s.Text, s.Text, nil
	}
	return "-n", s.Text, s.Text, nil
}

// partialDesc completes the description that starts text, as dtrace's -P
// provider, -m [provider:]module and -f [[provider:]module:]function give
// it: field is the index of the field it ends with (0 provider, 1 module,
// 2 function), the fields before it that it omits are empty, and those
// after it too; a predicate and action after it are kept.
func partialDesc(text string, field int) string {
	end := strings.IndexAny(text, " \t\n/{")
	if end < 0 {
		end = len(text)
	}
	desc, rest := text[:end], text[end:]
	given := strings.Count(desc, ":")
	if given > field {
		return text // more fields than the option names: the parser says so
	}
	return strings.Repeat(":", field-given) + desc + strings.Repeat(":", 3-field) + rest
}

// describe is how dtrace names a source when it says what it matched.
func (s Source) describe() string {
	if s.Kind == File {
		return "script '" + s.Text + "'"
	}
	// dtrace crops a -n description at its predicate or body for reporting
	text := s.Text
	if i := strings.IndexAny(text, "{/;"); i >= 0 {
		text = text[:i]
	}
	return "description '" + text + "'"
}

// runCPP runs the C preprocessor over a script.
//
// cpp runs as DTrace runs it on Linux, with the compiler's own predefined
// macros (__linux__, __x86_64__, __GNUC__...), so that system headers
// (#include <sys/mman.h>) work; the traditional names linux and unix are
// undefined, as they are no reserved words of D and scripts use them.
func runCPP(name, text string, args []string) (string, error) {
	path, err := exec.LookPath("cpp")
	if err != nil {
		return "", errors.New("-C requires the C preprocessor, but cpp was not found in PATH (install cpp, e.g. apt-get install cpp)")
	}
	// A #! line is not C: blank it, keeping the line count.
	if strings.HasPrefix(text, "#!") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i:]
		} else {
			text = ""
		}
	}
	argv := append([]string{"-Ulinux", "-Uunix", "-D__linux", "-D__sonde", "-D__SUNW_D=1"}, args...)
	cmd := exec.Command(path, append(argv, "-")...)
	if dir := filepath.Dir(name); name != "" && dir != "" {
		// #include "x.h" is looked for beside the script, as cpp does
		// for a file it reads itself
		cmd.Args = append(cmd.Args[:len(cmd.Args)-1], "-I"+dir, "-")
	}
	cmd.Stdin = strings.NewReader(text)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("cpp failed on %s:\n%s", name, stderr.String())
		}
		return "", fmt.Errorf("cpp failed on %s: %w", name, err)
	}
	// -H: the headers cpp read, on standard error, as dtrace -H prints them
	os.Stderr.WriteString(stderr.String())
	// Line markers name the script, so errors point into it.
	return skipSystemHeaders(strings.ReplaceAll(string(out), `"<stdin>"`, strconv.Quote(name))), nil
}

// errnoMacro is glibc's errno (<errno.h>, <bits/errno.h>): a call of a C
// function, where D has the built-in variable.
var errnoMacro = regexp.MustCompile(`\(\s*\*\s*__errno_location\s*\(\s*\)\s*\)`)

// skipSystemHeaders blanks, in cpp's output, the lines of the system
// headers (those its line markers flag 3: found in the system include
// directories): their C declarations (function prototypes, externs,
// inline functions, __attribute__s, glibc's own typedefs) are not D and
// name nothing a probe can reach; their macros, already expanded into
// the script, are what a D program includes them for. The lines stay, as
// empty lines, so that positions do not move; the line markers stay too.
// glibc's errno macro is turned back into D's errno. cpp also flags 3 the
// script's own lines where a system header's macro expands (GCC keeps
// warnings quiet there), so a file first seen without the flag is never a
// system header.
func skipSystemHeaders(out string) string {
	lines := strings.Split(out, "\n")
	system := false
	user := map[string]bool{}
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") {
			// # LINE "FILE" FLAGS...: flag 3 marks a system header
			if f := strings.Fields(l); len(f) >= 3 && strings.HasPrefix(f[2], `"`) {
				system = false
				for _, flag := range f[3:] {
					system = system || flag == "3"
				}
				if !system {
					user[f[2]] = true
				}
				system = system && !user[f[2]]
				continue
			}
		}
		if system {
			lines[i] = ""
		} else if strings.Contains(l, "__errno_location") {
			lines[i] = errnoMacro.ReplaceAllString(l, "errno")
		}
	}
	return strings.Join(lines, "\n")
}
