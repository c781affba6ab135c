package provider

import "testing"

// TestProbeAttrs computes -lv's attributes as libdtrace's dt_probe_info
// does: the minimum over the provider and the fields a probe gives, part
// by part; the arguments' as the provider declares them.
func TestProbeAttrs(t *testing.T) {
	desc, args := ProbeAttrs(SyscallAttr, &Probe{Provider: "syscall", Function: "read", Name: "entry"})
	if want := (Attr{Private, Private, ClassISA}); desc != want || args != want {
		t.Errorf("syscall: %v %v, want %v for both", desc, args, want)
	}
	desc, _ = ProbeAttrs(PidAttr, &Probe{Provider: "pid1", Module: "libc.so.6", Function: "malloc", Name: "entry"})
	if want := (Attr{Private, Private, ClassUnknown}); desc != want {
		t.Errorf("pid: %v, want %v", desc, want)
	}
	desc, _ = ProbeAttrs(ProfileAttr, &Probe{Provider: "profile", Name: "profile-97"})
	if want := (Attr{Evolving, Evolving, ClassCommon}); desc != want {
		t.Errorf("profile: %v, want %v", desc, want)
	}
	if s := (Attr{Stable, Unstable, ClassCPU}).Min(Attr{Evolving, Standard, ClassCommon}); s != (Attr{Evolving, Unstable, ClassCPU}) {
		t.Errorf("Min = %v", s)
	}
	if Standard.String() != "Standard" || ClassCommon.String() != "Common" || Internal.String() != "Internal" {
		t.Error("names")
	}
}
