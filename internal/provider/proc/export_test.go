package proc

import "testing"

// GroupDeadArg is groupDeadArg.
func GroupDeadArg() bool { return groupDeadArg() }

// SetGroupDeadArg makes the prologues built during t take the last
// thread from group_dead (v) or from signal->live (!v).
func SetGroupDeadArg(t testing.TB, v bool) {
	old := groupDeadArg
	groupDeadArg = func() bool { return v }
	t.Cleanup(func() { groupDeadArg = old })
}
