package runtime

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
)

// generation is an aggregation map kept in generations (a plan's
// ARRAY_OF_MAPS with an InnerMap spec, codegen.Options.AggGenerations):
// live is in the outer map's slot, where the programs update it;
// Session.Maps holds, under the inner spec's name, the generation swapped
// out last, which no program can reach any more.
type generation struct {
	outer *ebpf.Map
	live  *ebpf.Map
	// empty: the generation in Maps is empty (Recycle), ready to be
	// swapped in at once.
	empty bool
}

// newGeneration fills the outer map created from spec with a first
// generation, and returns it with a second, empty, for Session.Maps.
func newGeneration(outer *ebpf.Map, spec *ebpf.MapSpec) (*generation, *ebpf.Map, error) {
	live, err := ebpf.NewMap(spec.InnerMap)
	if err != nil {
		return nil, nil, mapError(spec.InnerMap, err)
	}
	if err := outer.Put(uint32(0), live); err != nil {
		live.Close()
		return nil, nil, fmt.Errorf("putting a generation of %s in %s: %w", spec.InnerMap.Name, spec.Name, err)
	}
	read, err := ebpf.NewMap(spec.InnerMap)
	if err != nil {
		live.Close()
		return nil, nil, mapError(spec.InnerMap, err)
	}
	return &generation{outer: outer, live: live, empty: true}, read, nil
}

// HasGenerations reports whether the aggregation map named name is kept in
// generations (Rotate).
func (s *Session) HasGenerations(name string) bool { return s.gens[name] != nil }

// Rotate starts a new generation of the aggregation map named name: the
// generation read last (Maps[name]), emptied, is put in the outer map's
// slot, and the one it replaces becomes Maps[name]. The kernel's update of
// the slot returns only once every program that was running has finished
// (a grace period of RCU, which every non-sleepable BPF program runs
// inside), so Maps[name] then holds exactly what the programs counted
// between the last two rotations: no update is still on its way into it,
// and every later one goes to the new generation. The boundary between
// the two is the moment of the update: a caller that reads the
// generation and then calls Recycle has it emptied before, not during,
// the next rotation.
func (s *Session) Rotate(name string) error {
	g := s.gens[name]
	if g == nil {
		return fmt.Errorf("the map %s is not kept in generations", name)
	}
	spare := s.Maps[name]
	if !g.empty {
		if err := empty(spare); err != nil {
			return fmt.Errorf("emptying a generation of %s: %w", name, err)
		}
	}
	if err := g.outer.Put(uint32(0), spare); err != nil {
		g.empty = true
		return fmt.Errorf("swapping the generation of %s: %w", name, err)
	}
	s.Maps[name], g.live, g.empty = g.live, spare, false
	return nil
}

// Recycle empties the generation of name read last (Maps[name]), once the
// caller is done with it: the next Rotate puts it in the slot at once.
func (s *Session) Recycle(name string) error {
	g := s.gens[name]
	if g == nil {
		return fmt.Errorf("the map %s is not kept in generations", name)
	}
	if g.empty {
		return nil
	}
	if err := empty(s.Maps[name]); err != nil {
		return fmt.Errorf("emptying a generation of %s: %w", name, err)
	}
	g.empty = true
	return nil
}

// empty removes every entry of a hash map, or zeroes the entries of an
// array; no program may be writing to it.
func empty(m *ebpf.Map) error {
	switch m.Type() {
	case ebpf.PerCPUArray, ebpf.Array:
		return zeroArray(m)
	}
	var keys [][]byte
	var next []byte
	var prev any
	for m.NextKey(prev, &next) == nil {
		keys = append(keys, next)
		prev, next = next, nil
	}
	if len(keys) == 0 {
		return nil
	}
	n, err := m.BatchDelete(keyList(keys), nil)
	if err == nil && n == len(keys) {
		return nil
	}
	if err != nil && !errors.Is(err, ebpf.ErrNotSupported) {
		return err
	}
	for _, k := range keys {
		if err := m.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return err
		}
	}
	return nil
}

// zeroArray zeroes every entry of an array (per-CPU or not).
func zeroArray(m *ebpf.Map) error {
	var zero any = make([]byte, m.ValueSize())
	if m.Type() == ebpf.PerCPUArray {
		n, err := ebpf.PossibleCPU()
		if err != nil {
			return err
		}
		per := make([][]byte, n)
		for i := range per {
			per[i] = make([]byte, m.ValueSize())
		}
		zero = per
	}
	for i := uint32(0); i < m.MaxEntries(); i++ {
		if err := m.Put(i, zero); err != nil {
			return err
		}
	}
	return nil
}

// keyList is keys as BatchDelete takes them: a slice, one key each,
// marshalled end to end.
type keyList [][]byte

func (l keyList) MarshalBinary() ([]byte, error) {
	var b []byte
	for _, k := range l {
		b = append(b, k...)
	}
	return b, nil
}
