package provider

// Stability and dependency class are DTrace's attributes of a provider's
// names and data (sys/dtrace.h: DTRACE_STABILITY_*, DTRACE_CLASS_*), in
// increasing order, as -lv prints them.
type (
	Stability int
	Class     int
)

// DTrace's stability levels.
const (
	Internal Stability = iota
	Private
	Obsolete
	External
	Unstable
	Evolving
	Stable
	Standard
)

// DTrace's dependency classes.
const (
	ClassUnknown Class = iota
	ClassCPU
	ClassPlatform
	ClassGroup
	ClassISA
	ClassCommon
)

func (s Stability) String() string {
	return [...]string{"Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard"}[s]
}

func (c Class) String() string {
	return [...]string{"Unknown", "CPU", "Platform", "Group", "ISA", "Common"}[c]
}

// Attr is one attribute triple: identifier names' stability, data
// semantics' stability, dependency class (dtrace_attribute_t).
type Attr struct {
	Name, Data Stability
	Class      Class
}

// Min is the lesser of two attributes, part by part (dt_attr_min).
func (a Attr) Min(b Attr) Attr {
	return Attr{min(a.Name, b.Name), min(a.Data, b.Data), min(a.Class, b.Class)}
}

// Pattr is a provider's attributes (dtrace_pattr_t): of its provider,
// module, function and name fields, and of its probes' arguments.
type Pattr struct {
	Provider, Module, Function, Name, Args Attr
}

// Attributed is a provider that declares DTrace's stability attributes.
type Attributed interface {
	Attributes() Pattr
}

// Sets of attributes the illumos providers declare, which sonde's
// providers of the same names and kinds declare too.
var (
	// DTraceAttr is the dtrace provider's (dtrace.c dtrace_provider_attr).
	DTraceAttr = Pattr{Attr{Stable, Stable, ClassCommon}, Attr{Private, Private, ClassUnknown},
		Attr{Private, Private, ClassUnknown}, Attr{Stable, Stable, ClassCommon}, Attr{Stable, Stable, ClassCommon}}
	// SyscallAttr is syscall's (systrace.c).
	SyscallAttr = Pattr{Attr{Evolving, Evolving, ClassCommon}, Attr{Private, Private, ClassUnknown},
		Attr{Private, Private, ClassISA}, Attr{Evolving, Evolving, ClassCommon}, Attr{Private, Private, ClassISA}}
	// ProfileAttr is profile's (profile.c).
	ProfileAttr = Pattr{Attr{Evolving, Evolving, ClassCommon}, Attr{Unstable, Unstable, ClassUnknown},
		Attr{Private, Private, ClassUnknown}, Attr{Evolving, Evolving, ClassCommon}, Attr{Evolving, Evolving, ClassCommon}}
	// StableSDTAttr is that of the stable SDT providers: sched, proc, io,
	// ip, tcp, udp (sdt_subr.c stab_attr).
	StableSDTAttr = Pattr{Attr{Evolving, Evolving, ClassISA}, Attr{Private, Private, ClassUnknown},
		Attr{Private, Private, ClassUnknown}, Attr{Evolving, Evolving, ClassISA}, Attr{Evolving, Evolving, ClassISA}}
	// PidAttr is pid's (fasttrap.c pid_attr).
	PidAttr = Pattr{Attr{Evolving, Evolving, ClassISA}, Attr{Private, Private, ClassUnknown},
		Attr{Private, Private, ClassUnknown}, Attr{Evolving, Evolving, ClassISA}, Attr{Private, Private, ClassUnknown}}
)

// ProbeAttrs are a probe's Probe Description Attributes and Argument
// Attributes as dtrace -lv prints them (libdtrace's dt_probe_info): the
// minimum of the provider's attributes and those of each field the
// probe's description gives (an empty field gives none), and those of the
// arguments.
func ProbeAttrs(pa Pattr, p *Probe) (desc, args Attr) {
	desc = pa.Provider
	if p.Module != "" {
		desc = desc.Min(pa.Module)
	}
	if p.Function != "" {
		desc = desc.Min(pa.Function)
	}
	if p.Name != "" {
		desc = desc.Min(pa.Name)
	}
	return desc, pa.Args
}
