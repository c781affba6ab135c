package runtime

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
)

// Aggregations kept in generations (codegen.Options.AggGenerations): each
// has an outer map of two slots (a plan's ARRAY_OF_MAPS with an InnerMap
// spec), each holding a generation, and the plan's generation index
// (plan.MapGenerations) says which slot the programs use. The programs
// name the generations directly (plan.GenerationSlot, associated at
// load); the outer map holds them for the wait of Settle. Session.Maps
// holds, under the inner spec's name, the generation not in use: the one
// swapped out last, for the caller to read.

// generation is one aggregation's pair of generations.
type generation struct {
	outer *ebpf.Map
	slots [2]*ebpf.Map
	// empty: the generation not in use is empty (Recycle), ready to be
	// made current.
	empty bool
}

// generations are a session's aggregations kept in generations.
type generations struct {
	byName map[string]*generation
	index  *ebpf.Map // plan.MapGenerations
	cur    uint32    // the slot in use
	// settled: no program can be using the slot not in use any more.
	settled bool
}

// newGeneration fills the outer map created from spec with two
// generations, and returns them.
func newGeneration(outer *ebpf.Map, spec *ebpf.MapSpec) (*generation, error) {
	g := &generation{outer: outer, empty: true}
	for i := range g.slots {
		m, err := ebpf.NewMap(spec.InnerMap)
		if err != nil {
			g.close()
			return nil, mapError(spec.InnerMap, err)
		}
		g.slots[i] = m
		if err := outer.Put(uint32(i), m); err != nil {
			g.close()
			return nil, fmt.Errorf("putting a generation of %s in %s: %w", spec.InnerMap.Name, spec.Name, err)
		}
	}
	return g, nil
}

func (g *generation) close() {
	for _, m := range g.slots {
		if m != nil {
			m.Close()
		}
	}
}

// addGeneration makes the aggregation of an outer map spec one kept in
// generations (Load): the generation not in use goes in Maps.
func (s *Session) addGeneration(outer *ebpf.Map, spec *ebpf.MapSpec) error {
	g, err := newGeneration(outer, spec)
	if err != nil {
		return err
	}
	if s.gens.byName == nil {
		s.gens.byName = map[string]*generation{}
	}
	s.gens.byName[spec.InnerMap.Name] = g
	s.Maps[spec.InnerMap.Name] = g.slots[1-s.gens.cur]
	s.gens.settled = true
	return nil
}

// associateGenerations gives the code's references to each generation
// (plan.GenerationSlot) their maps.
func (s *Session) associateGenerations(insns asm.Instructions) error {
	for name, g := range s.gens.byName {
		for i, m := range g.slots {
			if err := insns.AssociateMap(plan.GenerationSlot(name, i), m); err != nil && !isUnreferenced(err) {
				return fmt.Errorf("generation %d of %s: %w", i, name, err)
			}
		}
	}
	return nil
}

// closeGenerations releases the generations Maps does not hold.
func (s *Session) closeGenerations() {
	for _, g := range s.gens.byName {
		g.slots[s.gens.cur].Close()
	}
	s.gens = generations{}
}

// Flip starts new generations of the session's aggregations: the
// generations not in use, emptied, become current, and Maps holds the
// ones they replace. The flip is a single store, done when Flip returns;
// programs already running may still be counting into the generations
// swapped out until Settle returns.
func (s *Session) Flip() error { return s.flip(true) }

// Followed is Flip for a session loaded to follow another (Options.Follow)
// once that one has flipped, which flipped this one's programs too: it
// writes nothing the programs read.
func (s *Session) Followed() error { return s.flip(false) }

func (s *Session) flip(store bool) error {
	gs := &s.gens
	if gs.index == nil {
		return errors.New("the session keeps no aggregations in generations")
	}
	if err := s.Recycle(); err != nil {
		return err
	}
	next := 1 - gs.cur
	if store {
		if err := gs.index.Put(uint32(0), next); err != nil {
			return fmt.Errorf("flipping the generations: %w", err)
		}
	}
	for name, g := range gs.byName {
		s.Maps[name] = g.slots[gs.cur]
		g.empty = false
	}
	gs.cur, gs.settled = next, false
	return nil
}

// Settle waits until no program can still be counting into the
// generations the last Flip swapped out: the kernel's update of an outer
// map's slot (here with the map it holds) returns only once every
// program that was running has finished (an RCU grace period, which
// every non-sleepable BPF program runs inside), and every program that
// started since sees the flip. Maps then hold exactly what was counted
// between the last two flips.
func (s *Session) Settle() error {
	gs := &s.gens
	if gs.settled {
		return nil
	}
	for _, g := range gs.byName {
		if err := g.outer.Put(gs.cur, g.slots[gs.cur]); err != nil {
			return fmt.Errorf("waiting for the programs: %w", err)
		}
		break // one wait covers every program of the machine
	}
	gs.settled = true
	return nil
}

// Rotate flips the generations and settles them.
func (s *Session) Rotate() error {
	if err := s.Flip(); err != nil {
		return err
	}
	return s.Settle()
}

// Recycle empties the generations read last (Maps), once the caller is
// done with them: the next Flip is then a single store. Flip does it if
// the caller did not.
func (s *Session) Recycle() error {
	gs := &s.gens
	if err := s.Settle(); err != nil {
		return err
	}
	for name, g := range gs.byName {
		if g.empty {
			continue
		}
		if err := empty(s.Maps[name]); err != nil {
			return fmt.Errorf("emptying a generation of %s: %w", name, err)
		}
		g.empty = true
	}
	return nil
}

// loadGenerations finds the plan's generation index, once its maps are
// created.
func (s *Session) loadGenerations() {
	if len(s.gens.byName) > 0 {
		s.gens.index = s.Maps[plan.MapGenerations]
	}
}

// newMap creates the map of spec; a session following another (Options.Follow)
// shares that one's generation index instead.
func newMap(spec *ebpf.MapSpec, follow *Session) (*ebpf.Map, error) {
	if spec.Name == plan.MapGenerations && follow != nil && follow.gens.index != nil {
		return follow.gens.index.Clone()
	}
	return ebpf.NewMap(spec)
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
