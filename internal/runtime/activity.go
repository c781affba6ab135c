package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/sonde-trace/sonde/internal/plan"
)

// Stop ends tracing as dtrace_stop() does: from now on only the dtrace
// provider's probes (END, ERROR) record, so that what is left in the ring
// buffer can be drained while the probes stay attached. It writes the
// activity word alone, through the globals map's memory, leaving the D
// program's globals, which probes may be writing, untouched.
func (s *Session) Stop() error {
	mem, err := s.globals()
	if err != nil {
		return err
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], plan.ActDraining)
	if _, err := mem.WriteAt(b[:], plan.GlobActivity); err != nil {
		return fmt.Errorf("stopping tracing: %w", err)
	}
	return nil
}

// Exiting reports whether a clause has called exit(), and with what status.
// It knows of exit() even when the ring buffer had no room for its record.
func (s *Session) Exiting() (bool, int, error) {
	mem, err := s.globals()
	if err != nil {
		return false, 0, err
	}
	var act, status [8]byte
	// activity first: exit() stores its status before it
	if _, err := mem.ReadAt(act[:], plan.GlobActivity); err != nil {
		return false, 0, fmt.Errorf("reading the activity state: %w", err)
	}
	if binary.LittleEndian.Uint64(act[:]) != plan.ActDraining {
		return false, 0, nil
	}
	if _, err := mem.ReadAt(status[:], plan.GlobExit); err != nil {
		return false, 0, fmt.Errorf("reading the exit status: %w", err)
	}
	return true, int(int64(binary.LittleEndian.Uint64(status[:]))), nil
}

// globals is the memory of the globals map.
func (s *Session) globals() (*ebpf.Memory, error) {
	m := s.Maps[plan.MapGlobals]
	if m == nil {
		return nil, fmt.Errorf("no globals map")
	}
	mem, err := m.Memory()
	if err != nil {
		return nil, fmt.Errorf("mapping the globals map: %w", err)
	}
	return mem, nil
}
