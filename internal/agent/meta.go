package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
)

// Meta documents in the store: what survives a restart.
const (
	keyInit      = "agent/initialised"
	keyDataset   = "dataset/"
	keyStatistic = "statistic/"
	keySheet     = "worksheet/"
	keyEvent     = "event/"
	keyNextID    = "agent/next-dataset-id"
)

func eventKey(seq uint64) string { return fmt.Sprintf("%s%016d", keyEvent, seq) }

// datasetDoc is a dataset as kept: its name (the spec) and state.
type datasetDoc struct {
	// ID is nil in what was kept before datasets had ids of their own.
	ID       *int            `json:"id,omitempty"`
	Name     string          `json:"name"`
	State    analytics.State `json:"state"`
	Open     bool            `json:"open,omitempty"` // kept in memory only, also while suspended
	Created  time.Time       `json:"created"`
	Overflow int64           `json:"overflow,omitempty"`
	Dropped  int64           `json:"dropped,omitempty"`
	Export   bool            `json:"export,omitempty"`
}

// statisticDoc is a user's statistic as kept.
type statisticDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

// putJSON keeps a document; a failure is logged (the state in memory
// stays right; what a restart finds may be older).
func (a *Agent) putJSON(key string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = a.st.PutMeta(key, b)
	}
	if err != nil {
		a.cfg.Logf("saving %s: %v", key, err)
	}
}

func (a *Agent) getJSON(key string, v any) error {
	b, err := a.st.GetMeta(key)
	if err != nil {
		return err
	}
	if b == nil {
		return fmt.Errorf("%s: missing", key)
	}
	return json.Unmarshal(b, v)
}

// saveDataset keeps ds's definition and state (a.mu held).
func (a *Agent) saveDataset(ds *dataset) {
	id := ds.info.ID
	a.putJSON(keyDataset+ds.info.Name, datasetDoc{ID: &id, Name: ds.info.Name, State: ds.info.State, Open: ds.open, Created: ds.info.Created,
		Overflow: ds.info.Overflow, Dropped: ds.info.Dropped, Export: ds.info.Export})
}

// load reads what the store keeps, or creates the defaults on a store
// never initialised.
func (a *Agent) load() error {
	init, err := a.st.GetMeta(keyInit)
	if err != nil {
		return fmt.Errorf("agent: reading the store: %w", err)
	}
	a.loadEvents()
	a.loadStatistics()
	a.loadWorksheets()
	if init == nil {
		for _, name := range stats.Defaults() {
			_, err := a.Create(name, analytics.Archived)
			if err == nil {
				_, err = a.SetExport(name, true)
			}
			if err != nil {
				a.mu.Lock()
				a.event("error", name, "the default dataset could not be created: %v", err)
				a.mu.Unlock()
			}
		}
		return a.st.PutMeta(keyInit, []byte(a.now().UTC().Format(time.RFC3339)))
	}
	return a.loadDatasets()
}

func (a *Agent) list(prefix string) []string {
	keys, err := a.st.ListMeta(prefix)
	if err != nil {
		a.cfg.Logf("listing %s: %v", prefix, err)
	}
	return keys
}

func (a *Agent) loadEvents() {
	keys := a.list(keyEvent)
	sort.Strings(keys)
	for _, k := range keys {
		var e analytics.Event
		if err := a.getJSON(k, &e); err != nil {
			a.cfg.Logf("event %s: %v", k, err)
			continue
		}
		a.events = append(a.events, e)
		var seq uint64
		if _, err := fmt.Sscanf(strings.TrimPrefix(k, keyEvent), "%d", &seq); err == nil && seq > a.eventSeq {
			a.eventSeq = seq
		}
	}
	if len(a.events) > maxEvents {
		a.events = a.events[len(a.events)-maxEvents:]
	}
}

func (a *Agent) loadStatistics() {
	for _, k := range a.list(keyStatistic) {
		var d statisticDoc
		err := a.getJSON(k, &d)
		if err == nil {
			_, err = a.cat.Define(d.Name, d.Description, d.Source)
		}
		if err != nil {
			a.mu.Lock()
			a.event("error", "", "the statistic %s could not be defined again: %v", strings.TrimPrefix(k, keyStatistic), err)
			a.mu.Unlock()
		}
	}
}

func (a *Agent) loadWorksheets() {
	for _, k := range a.list(keySheet) {
		var w analytics.Worksheet
		if err := a.getJSON(k, &w); err != nil {
			a.cfg.Logf("worksheet %s: %v", k, err)
			continue
		}
		a.sheets[w.ID] = w
	}
}

// loadDatasets starts the datasets kept. One that cannot start (its
// program fails) is reported and shown suspended; its kept state is
// left as it was, so that the next start tries again.
func (a *Agent) loadDatasets() error {
	if b, err := a.st.GetMeta(keyNextID); err == nil && b != nil {
		if err := json.Unmarshal(b, &a.nextID); err != nil {
			a.cfg.Logf("%s: %v", keyNextID, err)
		}
	}
	var unnumbered []*dataset
	for _, k := range a.list(keyDataset) {
		var d datasetDoc
		if err := a.getJSON(k, &d); err != nil {
			a.cfg.Logf("dataset %s: %v", k, err)
			continue
		}
		ds, err := a.prepare(d.Name, d.Export)
		if err != nil {
			a.mu.Lock()
			a.event("error", d.Name, "the dataset could not be loaded: %v", err)
			a.mu.Unlock()
			continue
		}
		if d.ID != nil {
			ds.info.ID = *d.ID
			a.nextID = max(a.nextID, ds.info.ID+1)
		} else {
			unnumbered = append(unnumbered, ds)
		}
		ds.info.State, ds.info.Created, ds.open = d.State, d.Created, d.Open || d.State == analytics.Open
		ds.info.Overflow, ds.info.Dropped = d.Overflow, d.Dropped
		ds.lostReported = d.Dropped
		ds.last = a.st.Last(d.Name)
		var c collector
		if d.State != analytics.Suspended {
			if c, err = a.run(ds); err != nil {
				ds.info.State = analytics.Suspended
			}
		}
		a.mu.Lock()
		if err != nil {
			a.event("error", d.Name, "the dataset could not start: %v", err)
		}
		ds.coll = c
		a.sets[ds.info.Name] = ds
		a.mu.Unlock()
	}
	// Datasets kept before they had ids of their own were numbered by
	// their place in the list by name: they keep those numbers.
	sort.Slice(unnumbered, func(i, j int) bool { return unnumbered[i].info.Name < unnumbered[j].info.Name })
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ds := range unnumbered {
		ds.info.ID = a.newID()
		a.saveDataset(ds)
	}
	return nil
}

// newID numbers a new dataset (a.mu held).
func (a *Agent) newID() int {
	id := a.nextID
	a.nextID++
	a.putJSON(keyNextID, a.nextID)
	return id
}
