package tracefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Event names one trace event.
type Event struct {
	Subsystem string // "sched"
	Name      string // "sched_switch"
}

func (e Event) String() string { return e.Subsystem + ":" + e.Name }

// Events lists every trace event, sorted by subsystem and name. It reads
// available_events and, where that file is missing, walks events/.
func (fs *FS) Events() ([]Event, error) {
	evs, err := fs.availableEvents()
	if errors.Is(err, os.ErrNotExist) {
		evs, err = fs.walkEvents()
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].Subsystem != evs[j].Subsystem {
			return evs[i].Subsystem < evs[j].Subsystem
		}
		return evs[i].Name < evs[j].Name
	})
	return evs, nil
}

func (fs *FS) availableEvents() ([]Event, error) {
	data, err := os.ReadFile(fs.path("available_events"))
	if err != nil {
		return nil, err
	}
	var evs []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sys, name, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if ok {
			evs = append(evs, Event{sys, name})
		}
	}
	return evs, sc.Err()
}

func (fs *FS) walkEvents() ([]Event, error) {
	subs, err := os.ReadDir(fs.path("events"))
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	var evs []Event
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		names, err := os.ReadDir(fs.path("events", sub.Name()))
		if err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		for _, n := range names {
			if n.IsDir() {
				evs = append(evs, Event{sub.Name(), n.Name()})
			}
		}
	}
	return evs, nil
}

// EventsIn lists the events of one subsystem ("syscalls"), sorted by name.
func (fs *FS) EventsIn(subsystem string) ([]string, error) {
	ents, err := os.ReadDir(fs.path("events", subsystem))
	if err != nil {
		return nil, fmt.Errorf("list events of %s: %w", subsystem, err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// HasEvent reports whether events/<subsystem>/<event> exists.
func (fs *FS) HasEvent(subsystem, event string) bool {
	st, err := os.Stat(fs.path("events", subsystem, event))
	return err == nil && st.IsDir()
}

// EventID reads the event's id (what perf_event_open's config takes for
// PERF_TYPE_TRACEPOINT) without parsing the whole format.
func (fs *FS) EventID(subsystem, event string) (uint32, error) {
	data, err := os.ReadFile(fs.path("events", subsystem, event, "id"))
	if err != nil {
		return 0, fmt.Errorf("event %s:%s: %w", subsystem, event, err)
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("event %s:%s: bad id: %w", subsystem, event, err)
	}
	return uint32(id), nil
}
