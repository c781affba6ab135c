package codegen

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
)

const xlateDecls = `
struct req { uint64_t uri; uint32_t status; char method[8]; struct req *next; int16_t codes[3]; unsigned flag : 1, kind : 3; int neg : 4; };
typedef struct reqinfo { string ri_uri; uint32_t ri_status; string ri_method; int64_t ri_id; char ri_tag[6]; } reqinfo_t;
translator reqinfo_t < struct req *r > {
	ri_uri = copyinstr(*(uint64_t *)copyin((uintptr_t)&r->uri, 8));
	ri_status = *(uint32_t *)copyin((uintptr_t)&r->status, 4);
	ri_method = stringof(((userland struct req *)r)->method);
	ri_tag = "abcdefgh";
};
typedef struct num { int64_t twice; string s; uint8_t low; } num_t;
translator num_t < int64_t n > { twice = n * 2; s = lltostr(n); low = n; };
`

// xlatePrograms must compile.
var xlatePrograms = []string{
	xlateDecls + `BEGIN { printf("%d %s %d\n", xlate<num_t>(21).twice, xlate<num_t *>(4)->s, xlate<num_t>(300).low); }`,
	xlateDecls + `BEGIN { this->n = xlate<num_t *>(7); printf("%d %s %d\n", this->n->twice, this->n->s, this->n->low); }`,
	xlateDecls + `BEGIN { trace((*xlate<num_t *>(7)).twice); }`,
	xlateDecls + `xlt:::req { printf("%s %d %s %d\n", args[0]->ri_uri, args[0]->ri_status, args[1], args[2]); }`,
	xlateDecls + `xlt:::req { this->r = args[0]; printf("%s %s %s\n", this->r->ri_uri, this->r->ri_method, this->r->ri_tag); }`,
	xlateDecls + `xlt:::req /args[0]->ri_status == 200 && args[1] == "GET"/ { @[args[0]->ri_uri] = count(); }`,
	xlateDecls + `BEGIN { p = (userland struct req *)arg0; printf("%s %d %d %d %d %d\n", p->method, p->codes[2], p->next->status, p->flag, p->kind, p->neg); }`,
	xlateDecls + `BEGIN { p = (struct req *)arg0; trace((uintptr_t)&p->codes[1] - (uintptr_t)p); trace(p->method[1]); trace((*p).status); trace(p[1].uri); }`,
	xlateDecls + `BEGIN { trace(offsetof(struct req, codes) + sizeof(reqinfo_t)); }`,
	`enum e { A = 3, B }; BEGIN { trace(B); }`,
	xlateDecls + `inline num_t *N = xlate<num_t *>(arg0); inline string S = N->s; BEGIN { printf("%d %s\n", N->twice, S); }`,
}

func TestXlatePrograms(t *testing.T) {
	for _, src := range xlatePrograms {
		if _, err := compileSource(src, false); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestXlateErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`struct o { int a; }; translator struct o < int x > { a = xlate<struct o>(x + 1).a; }; BEGIN { trace(xlate<struct o>(1).a); }`,
			"nests too deeply"},
		{xlateDecls + `BEGIN { trace(xlate<num_t>(1)); }`, "can only be used with operator ."},
	} {
		_, err := compileSource(tt.src, false)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestXlateMemberOnly checks that a member of a translation compiles its
// translator's expression for that member alone: a translator whose other
// members call copyinstr() compiles none of them.
func TestXlateMemberOnly(t *testing.T) {
	count := func(src string) int {
		p, err := compileSource(src, false)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		n := 0
		for _, prog := range p.Programs {
			for _, ins := range prog.Insns {
				if ins.IsBuiltinCall() && asm.BuiltinFunc(ins.Constant) == asm.FnProbeReadUserStr {
					n++
				}
			}
		}
		return n
	}
	if n := count(xlateDecls + `xlt:::req { trace(args[0]->ri_status); }`); n != 0 {
		t.Errorf("ri_status alone: %d copyinstr calls, want 0", n)
	}
	if n := count(xlateDecls + `xlt:::req { trace(args[0]->ri_uri); }`); n != 1 {
		t.Errorf("ri_uri: %d copyinstr calls, want 1", n)
	}
	if n := count(xlateDecls + `xlt:::req { this->r = args[0]; }`); n != 2 {
		t.Errorf("the whole struct: %d user string reads, want 2 (ri_uri, ri_method)", n)
	}
}
