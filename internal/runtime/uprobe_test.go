package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCallRewritten: the sites sonde leaves out are the 5-byte
// instructions the kernel takes for nops, in 64-bit x86 objects only.
func TestCallRewritten(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !isAMD64(bytes.NewReader(self)) {
		t.Skip("the test binary is not an x86-64 object")
	}
	cases := []struct {
		name string
		code []byte
		want bool
	}{
		{"nopl 0(%rax,%rax,1)", []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, true},
		{"66 66 66 66 nop", []byte{0x66, 0x66, 0x66, 0x66, 0x90}, true},
		{"jmp .+5", []byte{0xe9, 0x00, 0x00, 0x00, 0x00}, true},
		{"lea 0(%rsi,%riz,1), %rsi", []byte{0x48, 0x8d, 0x74, 0x26, 0x00}, true},
		{"nop", []byte{0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00}, false},
		{"nop (sys/sdt.h)", []byte{0x90, 0xc3}, false},
		{"nopw %cs:0(%rax,%rax,1)", []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}, false},
		{"nopl 0(%rax)", []byte{0x0f, 0x1f, 0x40, 0x00}, false},
		{"jmp .+6", []byte{0xe9, 0x01, 0x00, 0x00, 0x00}, false},
		{"mov %rdi, -8(%rsp)", []byte{0x48, 0x89, 0x7c, 0x24, 0xf8}, false},
		{"lea 8(%rsi,%riz,1), %rsi", []byte{0x48, 0x8d, 0x74, 0x26, 0x08}, false},
		{"call", []byte{0xe8, 0x00, 0x00, 0x00, 0x00}, false},
	}
	dir := t.TempDir()
	for i, c := range cases {
		path := filepath.Join(dir, "obj"+string(rune('a'+i)))
		if err := os.WriteFile(path, append(append([]byte{}, self...), c.code...), 0o644); err != nil {
			t.Fatal(err)
		}
		var r codeReader
		if got := r.callRewritten(path, uint64(len(self))); got != c.want {
			t.Errorf("%s: callRewritten = %v, want %v", c.name, got, c.want)
		}
		r.close()
	}
	// Not an x86-64 object: nothing is left out.
	path := filepath.Join(dir, "text")
	if err := os.WriteFile(path, []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, 0o644); err != nil {
		t.Fatal(err)
	}
	var r codeReader
	defer r.close()
	if r.callRewritten(path, 0) {
		t.Error("a file that is no ELF object: callRewritten = true")
	}
}
