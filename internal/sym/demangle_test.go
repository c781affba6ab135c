package sym

import "testing"

func TestDemangle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main", "main"},
		{"_start", "_start"},
		{"_ZN2ns5Class6methodEi", "ns::Class::method(int)"},
		{"_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const"},
		{"_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()"},
		{"_ZN2ns5ClassclEi.cold", "ns::Class::operator()(int) [clone .cold]"},
		// Rust legacy: the hash goes, as rustfilt prints it.
		{"_ZN3std2rt10lang_start17h0123456789abcdefE", "std::rt::lang_start"},
		// ... also when the demangler takes it for C++ (too few distinct digits).
		{"_ZN3foo3bar17h0000000000000000E", "foo::bar"},
		// Rust v0.
		{"_RNvCsfRwFVSzJQ2p_7mycrate3foo", "mycrate::foo"},
		{"_RNvNtCs1234_7mycrate3bar3baz", "mycrate::bar::baz"},
		// Not mangled after all: unchanged.
		{"_Zfoo", "_Zfoo"},
		{"_Rust_is_not_mangled", "_Rust_is_not_mangled"},
	} {
		if got := Demangle(c.in); got != c.want {
			t.Errorf("Demangle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStripParams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"foo", "foo"},
		{"ns::Class::method(int)", "ns::Class::method"},
		{"std::vector<int, std::allocator<int> >::size() const", "std::vector<int, std::allocator<int> >::size"},
		{"(anonymous namespace)::foo()", "(anonymous namespace)::foo"},
		{"ns::Class::operator()(int) [clone .cold]", "ns::Class::operator()"},
		{"ns::operator<(ns::A const&, ns::A const&)", "ns::operator<"},
		{"ns::operator<<(std::ostream&, ns::A const&)", "ns::operator<<"},
		{"ns::A::operator->()", "ns::A::operator->"},
		{"f<(int)3>(int)", "f<(int)3>"},
	} {
		if got := stripParams(c.in); got != c.want {
			t.Errorf("stripParams(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
