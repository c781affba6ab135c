package aggprom

import (
	"math/rand"
	"net/netip"
	"strings"
	"testing"
)

// parseIP agrees with net/netip on what is an address and which; IPv4
// mapped addresses are IPv4.
func TestParseIPAgainstNetip(t *testing.T) {
	inputs := []string{
		"127.0.0.1", "0.0.0.0", "255.255.255.255", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.04",
		"1..2.3", "1.2.3.", ".1.2.3", "a.b.c.d", "1.2.3.-4", "+1.2.3.4", "1.2.3.4 ", "",
		"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7", "1::2::3", ":::", "1:::2", ":1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:", "12345::",
		"fe80::1", "FE80::ABCD", "::ffff:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4",
		"1.2.3.4::", "::1.2.3.4:5", "::ffff:1.2.3", "2001:db8::1:0:0:1", "g::1", "1:2:3:4:5:6::7:8",
		"::0:0:0:0:0:0:0", "0:0:0:0:0:0:0:0", "::ffff:0.0.0.0", "+1::", "0x1::", "1_0::",
	}
	for _, s := range inputs {
		check6(t, s)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b [16]byte
		r.Read(b[:])
		for j := range b { // zero runs, for "::"
			if r.Intn(3) == 0 {
				b[j] = 0
			}
		}
		s := netip.AddrFrom16(b).String()
		check6(t, s)
		// and mutations of it
		m := []byte(s)
		m[r.Intn(len(m))] = ":.0f1g"[r.Intn(6)]
		check6(t, string(m))
	}
}

func check6(t *testing.T, s string) {
	t.Helper()
	want, err := netip.ParseAddr(s)
	got := parseIP(s)
	if err != nil || want.Zone() != "" {
		if got != nil {
			t.Errorf("%q: %v, netip refuses it (%v)", s, got, err)
		}
		return
	}
	want = want.Unmap()
	if got == nil || string(got) != string(want.AsSlice()) {
		t.Errorf("%q: %v, want %v", s, got, want.AsSlice())
	}
}

// formatHostPort writes what netip.AddrPort's String does.
func TestFormatAgainstNetip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20000; i++ {
		var b [16]byte
		r.Read(b[:])
		for j := range b {
			if r.Intn(2) == 0 {
				b[j] = 0
			}
		}
		ip := netip.AddrFrom16(b)
		if ip.Is4In6() {
			continue // unmapped before it is formatted
		}
		want := netip.AddrPortFrom(ip, 9400).String()
		if got := formatHostPort(b[:], 9400); got != want {
			t.Fatalf("%v: %s, want %s", b, got, want)
		}
		v4 := netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
		if got, want := formatHostPort(b[:4], 80), netip.AddrPortFrom(v4, 80).String(); got != want {
			t.Fatalf("%v: %s, want %s", b[:4], got, want)
		}
	}
	for _, s := range []string{"::", "::1", "1::", "1:0:0:1:0:0:0:1", "1:0:0:1:0:0:1:1", "0:1:0:1:0:1:0:1"} {
		if got, want := formatHostPort(netip.MustParseAddr(s).AsSlice(), 1), "["+s+"]:1"; got != want && got != "["+netip.MustParseAddr(s).String()+"]:1" {
			t.Errorf("%s: %s", s, got)
		}
	}
}

// Escaping as the text format wants it.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{`a"b\c` + "\nd": `a\"b\\c\nd`, "plain": "plain", "": ""} {
		if got := escapeLabel(in); got != want {
			t.Errorf("label %q: %q, want %q", in, got, want)
		}
		if got, want := escapeHelp(in), strings.ReplaceAll(want, `\"`, `"`); got != want {
			t.Errorf("help %q: %q, want %q", in, got, want)
		}
	}
}
