package ktype

import (
	"os"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/check"
)

func kernel(t *testing.T) *Kernel {
	t.Helper()
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("this kernel has no BTF")
	}
	return &Kernel{}
}

func field(t *testing.T, st *check.Type, name string) *check.Field {
	t.Helper()
	f := st.FieldByName(name)
	if f == nil {
		t.Fatalf("%s has no member %s", st, name)
	}
	return f
}

func TestTaskStruct(t *testing.T) {
	k := kernel(t)
	task := k.KernelType("struct task_struct")
	if task == nil || task.Kind != check.Struct || task.Align == 0 || task.Size < 1000 {
		t.Fatalf("struct task_struct: %+v (%v)", task, k.Err())
	}
	comm := field(t, task, "comm")
	if comm.Type.Kind != check.Array || comm.Type.Size != 16 || comm.Type.Elem.Size != 1 || comm.Kernel != "task_struct" {
		t.Errorf("comm: %+v of %+v", comm, comm.Type)
	}
	// a pointer member points to the same (complete) type
	rp := field(t, task, "real_parent")
	if rp.Type.Kind != check.Pointer || rp.Type.Elem != task {
		t.Errorf("real_parent: %+v", rp.Type)
	}
	pid, tgid := field(t, task, "pid"), field(t, task, "tgid")
	if pid.Type.Size != 4 || !pid.Type.Signed || tgid.Offset != pid.Offset+4 {
		t.Errorf("pid %+v, tgid %+v: pid_t pid; pid_t tgid; in a row", pid, tgid)
	}
	bits := 0
	for _, f := range task.Fields {
		if f.Bits == 0 {
			continue
		}
		bits++
		if f.Kernel != "" || f.BitOff+f.Bits > 8*f.Type.Size || f.Offset%f.Type.Size != 0 {
			t.Errorf("bit-field %+v", f)
		}
	}
	if bits == 0 {
		t.Errorf("struct task_struct has no bit-field (sched_reset_on_fork:1...)")
	}
}

// The members of sock_common's anonymous unions and structs are its own:
// union { __portpair skc_portpair; struct { __be16 skc_dport; __u16 skc_num; }; }.
func TestAnonymousMembers(t *testing.T) {
	k := kernel(t)
	sc := k.KernelType("struct sock_common")
	if sc == nil {
		t.Fatalf("no struct sock_common (%v)", k.Err())
	}
	pp, dport, num := field(t, sc, "skc_portpair"), field(t, sc, "skc_dport"), field(t, sc, "skc_num")
	if dport.Offset != pp.Offset || num.Offset != pp.Offset+2 || dport.Type.Size != 2 || dport.Kernel != "sock_common" {
		t.Errorf("skc_portpair %+v, skc_dport %+v, skc_num %+v", pp, dport, num)
	}
	sock := k.KernelType("struct sock")
	if f := field(t, sock, "__sk_common"); f.Offset != 0 || f.Type != sc {
		t.Errorf("__sk_common: %+v", f)
	}
}

func TestOtherKinds(t *testing.T) {
	k := kernel(t)
	if at := k.KernelType("atomic_t"); at == nil || at.Kind != check.Struct || at.Size != 4 || at.FieldByName("counter") == nil {
		t.Errorf("atomic_t: %+v", at)
	}
	if e := k.KernelType("enum pid_type"); e == nil || e.Kind != check.Int || e.Size != 4 {
		t.Errorf("enum pid_type: %+v", e)
	}
	if u := k.KernelType("union bpf_attr"); u == nil || !u.Union || u.Align == 0 {
		t.Errorf("union bpf_attr: %+v", u)
	}
	for _, name := range []string{"struct sonde_no_such", "union task_struct", "task_struct", "enum task_struct", ""} {
		if got := k.KernelType(name); got != nil {
			t.Errorf("%q: %+v, want none", name, got)
		}
	}
}
