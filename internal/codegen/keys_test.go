package codegen

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/d/check"
)

// TestKeyWidth checks that a map's key is laid out once, as wide as the
// widest string any clause stores in it, and that keys built from
// probefunc and the like are their text wherever BPF code looks them up.
func TestKeyWidth(t *testing.T) {
	for _, tt := range []struct {
		src     string
		mapName string
		keySize uint32
	}{
		// the first key no longer decides: "abcdefgh_1" needs 11 bytes
		{`BEGIN { @c["a"] = count(); @c["abcdefgh_1"] = count(); }`, "agg_0", 16},
		{`BEGIN { a["a"] = 1; a["abcdefgh_1"] = 2; }`, "assoc_a", 16},
		{`BEGIN { self->s["a"] = 1; self->s["abcdefgh_1"] = 2; }`, "self_s", 8 + 16},
		{`BEGIN { m[1, "a"] = 1; m[2, "abcdefgh_1"] = 1; }`, "assoc_m", 8 + 16},
		{`BEGIN { @t["x"] = count(); @t[pid ? "x" : "abcdefghijklmnopq"] = count(); }`, "agg_0", 24},
		{`BEGIN { a["x"] = 1; a[execname] = 2; }`, "assoc_a", 16},
		{`BEGIN { a["x"] = 1; a[copyinstr(0)] = 2; }`, "assoc_a", 256},
		// @[probefunc]: "abc" then probefunc, the text at its widest
		{`BEGIN { @["abc"] = count(); } syscall::read:entry { @[pid ? "abc" : probefunc] = count(); }`, "agg_0", 128},
		// n[probename] is looked up from another probe: the text, not the
		// probe ID (8 bytes), as long as the longest the probes give
		// ("profile-997")
		{"profile-997 { n[probename] = 1; }\ntick-1sec { trace(n[probename]); }", "assoc_n", 16},
		{"syscall::read:entry { ts[probefunc] = 1; }\nsyscall::read:return { trace(ts[\"abcdefghijklmnop\"]); }", "assoc_ts", 24},
		{`BEGIN { n[probename, probeprov] = 1; }`, "assoc_n", 8 + 8},
		// an aggregation keeps the probe ID, merged by text when read
		{`syscall::read:entry,syscall::read:return { @[probefunc] = count(); }`, "agg_0", 8},
	} {
		p, err := compileSource(tt.src, false)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		found := false
		for _, m := range p.Maps {
			if m.Name == tt.mapName {
				found = true
				if m.KeySize != tt.keySize {
					t.Errorf("%s: %s key is %d bytes, want %d", tt.src, m.Name, m.KeySize, tt.keySize)
				}
			}
		}
		if !found {
			t.Errorf("%s: no map %s", tt.src, tt.mapName)
		}
	}
}

// TestStringVarIsText checks that a variable assigned probename holds its
// text (a strsize buffer), not the probe ID, which another clause would
// read as its own probe's.
func TestStringVarIsText(t *testing.T) {
	for _, src := range []string{
		`BEGIN { x = probename; } END { trace(x); }`,
		`BEGIN { x = "a"; x = probename; } END { trace(x); }`,
		`BEGIN { self->x = probename; } END { trace(self->x); }`,
		`BEGIN { a[1] = probename; } END { trace(a[1]); }`,
	} {
		info, err := checkSource(src, false)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, v := range append(info.Globals, info.Selfs...) {
			if v.Type.Size != 256 || v.Type.Repr != check.StrBuf {
				t.Errorf("%s: %s is %+v, want a 256-byte string buffer", src, v.Name, v.Type)
			}
		}
	}
}
