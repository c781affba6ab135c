package alert

import "time"

// State is an alert's state.
type State string

// The states of an alert, as Prometheus names them (and clearing, the
// appliance's minclear).
const (
	Inactive State = "inactive" // the condition does not hold
	Pending  State = "pending"  // it holds, not yet for minpost
	Firing   State = "firing"   // posted
	Clearing State = "clearing" // posted, and gone, not yet for minclear
)

// Step is what a second did to an alert.
type Step string

// Steps that run actions.
const (
	Nothing  Step = ""
	Post     Step = "post"
	Renotify Step = "renotify"
	Clear    Step = "clear"
)

// machine is one alert's state: of a threshold's total, or of one key.
type machine struct {
	state State
	// since: when the condition began to hold (pending) or to be gone
	// (clearing): the start of that second.
	since time.Time
	// notified: when the alert last posted or re-notified.
	notified time.Time
	// event is the alert's event while it is posted.
	event *Event
}

// step moves the machine by one second [start, end): over says whether
// the condition held in it, active whether alerts may post then (days and
// window). A pending alert outside the window goes back to inactive; a
// posted one is judged as always (it re-notifies and clears).
func (m *machine) step(t *Threshold, start, end time.Time, over, active bool) Step {
	if m.state == "" {
		m.state = Inactive
	}
	switch m.state {
	case Inactive:
		if !over || !active {
			return Nothing
		}
		m.state, m.since = Pending, start
		return m.pending(t, end)
	case Pending:
		if !over || !active {
			m.state = Inactive
			return Nothing
		}
		return m.pending(t, end)
	case Firing:
		if over {
			if t.Frequency > 0 && end.Sub(m.notified) >= seconds(t.Frequency) {
				m.notified = end
				return Renotify
			}
			return Nothing
		}
		m.state, m.since = Clearing, start
		return m.clearing(t, end)
	case Clearing:
		if over {
			m.state = Firing
			return Nothing
		}
		return m.clearing(t, end)
	}
	return Nothing
}

func (m *machine) pending(t *Threshold, end time.Time) Step {
	if end.Sub(m.since) < seconds(t.Minpost) {
		return Nothing
	}
	m.state, m.notified = Firing, end
	return Post
}

func (m *machine) clearing(t *Threshold, end time.Time) Step {
	if end.Sub(m.since) < seconds(t.Minclear) {
		return Nothing
	}
	m.state = Inactive
	return Clear
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }
