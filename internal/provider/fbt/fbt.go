// Package fbt is the function boundary tracing provider. It needs kprobes
// (or fentry/fexit) in the running kernel; where they are missing, naming
// the provider explains that instead of matching nothing.
package fbt

import (
	"errors"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider is the fbt provider.
type Provider struct{}

// Name implements provider.Provider.
func (Provider) Name() string { return "fbt" }

// Available reports whether the kernel can support fbt, and why not.
func Available() error {
	if _, err := os.Stat("/sys/bus/event_source/devices/kprobe"); err == nil {
		return nil
	}
	return &provider.NotSupportedError{What: "the fbt provider", Need: "kprobes (or fentry/fexit)",
		Why: "CONFIG_KPROBES is not set", Hint: "use the stable providers instead: syscall, profile, and kernel tracepoints"}
}

// Probes implements provider.Provider: only an explicit "fbt" provider
// name asks for it, so globs such as *:::entry are not turned into errors.
func (Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	if d.Provider != "fbt" {
		return nil, nil
	}
	if err := Available(); err != nil {
		return nil, err
	}
	return nil, errors.New("the fbt provider is not implemented yet")
}

// ProgramType implements provider.Provider.
func (Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.Kprobe }

// Prologue implements provider.Provider.
func (Provider) Prologue(provider.Hook, []*provider.Probe, provider.Needs, string) (asm.Instructions, error) {
	return nil, errors.New("fbt: no probes")
}

// Guard implements provider.Provider.
func (Provider) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}
