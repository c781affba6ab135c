package format

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// parseCSpec parses a C conversion like "%-+06.3llx" for the engine.
func parseCSpec(t *testing.T, f string) (cspec, byte, bool) {
	t.Helper()
	s := cspec{prec: -1}
	i := 1
	for ; i < len(f) && strings.IndexByte("#0- +", f[i]) >= 0; i++ {
		switch f[i] {
		case '#':
			s.alt = true
		case '0':
			s.zero = true
		case '-':
			s.left = true
		case '+':
			s.plus = true
		case ' ':
			s.space = true
		}
	}
	j := i
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	if j > i {
		s.width, _ = strconv.Atoi(f[i:j])
	}
	if j < len(f) && f[j] == '.' {
		k := j + 1
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			k++
		}
		s.prec, _ = strconv.Atoi(f[j+1 : k])
		j = k
	}
	is64 := strings.HasPrefix(f[j:], "ll")
	return s, f[len(f)-1], is64
}

// testdata/cprintf.txt holds glibc's output for a grid of conversions
// (testdata/cprintf/gen.c): the engine must match it.
func TestCPrintfConformance(t *testing.T) {
	fh, err := os.Open("testdata/cprintf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	n := 0
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), "\t", 4)
		if len(fields) != 4 {
			t.Fatalf("bad line %q", sc.Text())
		}
		f, kind, arg, want := fields[0], fields[1], fields[2], fields[3]
		s, verb, is64 := parseCSpec(t, f)
		var got string
		if kind == "i" {
			v, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if verb == 'd' {
				verb = 'i'
			}
			got = string(fmtInt(nil, s, verb, uint64(v), is64))
		} else {
			v, err := strconv.ParseFloat(arg, 64)
			if err != nil {
				t.Fatal(err)
			}
			got = string(fmtFloat(nil, s, verb, v))
		}
		if got != want {
			t.Errorf("%s of %s = %q, glibc %q", f, arg, got, want)
		}
		n++
	}
	if n < 9000 {
		t.Errorf("only %d cases read", n)
	}
}

func TestCFormatStrings(t *testing.T) {
	tests := []struct {
		s    cspec
		in   string
		want string
	}{
		{cspec{prec: -1}, "abc", "abc"},
		{cspec{width: 5, prec: -1}, "abc", "  abc"},
		{cspec{width: 5, left: true, prec: -1}, "abc", "abc  "},
		{cspec{width: 5, zero: true, prec: -1}, "abc", "  abc"}, // glibc: no zero padding for %s
		{cspec{prec: 2}, "abc", "ab"},
		{cspec{prec: 0}, "abc", ""},
		{cspec{width: 2, prec: -1}, "héllo", "héllo"}, // bytes, not runes
		{cspec{width: 7, prec: -1}, "hé", "    hé"},
	}
	for _, tt := range tests {
		if got := string(fmtString(nil, tt.s, tt.in)); got != tt.want {
			t.Errorf("fmtString(%+v, %q) = %q, want %q", tt.s, tt.in, got, tt.want)
		}
	}
}
