package sym

// Demangling of C++ (Itanium ABI, "_Z...") and Rust ("_ZN...17h<hash>E"
// legacy and "_R..." v0) symbol names, with
// github.com/ianlancetaylor/demangle. DTrace prints user symbols
// demangled unless told otherwise; so does package sym (Users.Mangled
// turns it off).

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// isMangled reports whether name looks like a C++ or Rust mangled name.
func isMangled(name string) bool {
	return strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "_R")
}

// Demangle returns the human-readable form of a C++ or Rust symbol name,
// with C++ parameter lists ("ns::Class::method(int)"), or name itself when
// it is not mangled or does not demangle. Rust legacy names lose their
// "::h<16 hex digits>" hash, as rustfilt prints them.
func Demangle(name string) string {
	if !isMangled(name) {
		return name
	}
	d := demangle.Filter(name)
	if d == name {
		return name
	}
	if strings.HasPrefix(name, "_ZN") {
		d = stripRustHash(d)
	}
	return d
}

// stripRustHash removes a trailing "::h" and 16 hex digits, which a Rust
// legacy name keeps when the demangler took it for a C++ name (it
// recognises Rust only when the hash has at least 5 distinct digits).
func stripRustHash(s string) string {
	const n = len("::h") + 16
	if len(s) <= n || !strings.HasPrefix(s[len(s)-n:], "::h") {
		return s
	}
	for _, c := range s[len(s)-16:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return s
		}
	}
	return s[:len(s)-n]
}

// stripParams removes the parameter list (and what follows it: cv
// qualifiers, "[clone .cold]") from a demangled C++ function name:
// "ns::f(int) const" is "ns::f". Parentheses that belong to the name
// ("(anonymous namespace)::g()", "operator()(int)") are kept.
func stripParams(s string) string {
	depth := 0 // of <> and ()
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if strings.HasSuffix(s[:i], "operator") || strings.HasSuffix(s[:i], "operator<") {
				continue
			}
			depth++
		case '>':
			if strings.HasSuffix(s[:i], "operator") || strings.HasSuffix(s[:i], "operator>") || strings.HasSuffix(s[:i], "operator-") {
				continue
			}
			if depth > 0 {
				depth--
			}
		case '(':
			if depth == 0 {
				if strings.HasPrefix(s[i:], "(anonymous namespace)") {
					i += len("(anonymous namespace)") - 1
					continue
				}
				if strings.HasSuffix(s[:i], "operator") && strings.HasPrefix(s[i:], "()") {
					i++
					continue
				}
				return s[:i]
			}
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		}
	}
	return s
}
