package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// datasetJSON is a dataset as the API shows it: the appliance's
// properties (dataset, href, name, grouping, explanation, incore, size,
// suspended, activity) and ours.
type datasetJSON struct {
	// Dataset is the appliance's id, "dataset-NNN": given when the
	// dataset is created, never reused. The name is its address.
	Dataset     string `json:"dataset"`
	Href        string `json:"href"`
	Name        string `json:"name"`
	Grouping    string `json:"grouping"`
	Explanation string `json:"explanation"`
	Incore      int64  `json:"incore"`
	Size        int64  `json:"size"`
	Suspended   bool   `json:"suspended"`
	Activity    string `json:"activity"`

	Statistic       string             `json:"statistic"`
	Filters         []analytics.Filter `json:"filters"`
	Breakdowns      []string           `json:"breakdowns"`
	State           analytics.State    `json:"state"`
	Kind            analytics.Kind     `json:"kind,omitempty"`
	Unit            string             `json:"unit,omitempty"`
	Created         time.Time          `json:"created"`
	OnDisk          int64              `json:"ondisk"`
	EventsPerSecond float64            `json:"events_per_second"`
	NsPerEvent      float64            `json:"ns_per_event"`
	Program         string             `json:"program,omitempty"`
	Overflow        int64              `json:"overflow"`
	Dropped         int64              `json:"dropped"`
	Export          bool               `json:"export"`
}

// datasetHref is the URL of a dataset.
func datasetHref(name string) string {
	return Prefix + "/datasets/" + escape(name)
}

// sortedDatasets lists the backend's datasets by name.
func (h *Handler) sortedDatasets() []analytics.Dataset {
	ds := h.b.Datasets()
	slices.SortFunc(ds, func(a, b analytics.Dataset) int { return strings.Compare(a.Name, b.Name) })
	return ds
}

// statistics maps the catalogue's names to their statistics.
func (h *Handler) statistics() map[string]analytics.Statistic {
	m := map[string]analytics.Statistic{}
	for _, s := range h.b.Statistics() {
		m[s.Name] = s
	}
	return m
}

// showDataset makes the API's view of d.
func showDataset(d analytics.Dataset, stats map[string]analytics.Statistic) datasetJSON {
	st := stats[d.Statistic]
	grouping, _, _ := strings.Cut(d.Statistic, ".")
	expl := st.Description
	if len(d.Breakdowns) > 0 {
		expl += " broken down by " + strings.Join(d.Breakdowns, " and ")
	}
	for _, f := range d.Filters {
		expl += fmt.Sprintf(" where %s is %s", f.Breakdown, f.Value)
	}
	return datasetJSON{
		Dataset: fmt.Sprintf("dataset-%03d", d.ID), Href: datasetHref(d.Name), Name: d.Name, Grouping: grouping,
		Explanation: strings.TrimSpace(expl), Incore: d.InCore, Size: d.OnDisk,
		Suspended: d.State == analytics.Suspended, Activity: "none",
		Statistic: d.Statistic, Filters: nonNil(d.Filters), Breakdowns: nonNil(d.Breakdowns),
		State: d.State, Kind: st.Kind, Unit: st.Unit, Created: d.Created, OnDisk: d.OnDisk,
		EventsPerSecond: d.EventsPerSecond, NsPerEvent: d.NsPerEvent, Program: d.Program,
		Overflow: d.Overflow, Dropped: d.Dropped, Export: d.Export,
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// showOne shows d with its id among all datasets.
func (h *Handler) showOne(d analytics.Dataset) datasetJSON {
	return showDataset(d, h.statistics())
}

// routeDatasets serves /datasets, /datasets/data (prune),
// /datasets/NAME, /datasets/NAME/data and /datasets/NAME/save.
func (h *Handler) routeDatasets(w http.ResponseWriter, r *http.Request, item string) {
	if item == "" {
		methods{http.MethodGet: h.listDatasets, http.MethodPost: h.createDataset}.serve(w, r)
		return
	}
	if item == "data" {
		methods{http.MethodDelete: h.pruneAll}.serve(w, r)
		return
	}
	seg, sub := item, ""
	for _, s := range []string{"data", "save"} {
		if n, ok := strings.CutSuffix(item, "/"+s); ok {
			seg, sub = n, s
			break
		}
	}
	name, err := unescape(seg)
	if err != nil {
		writeFault(w, err)
		return
	}
	switch sub {
	case "data":
		methods{
			http.MethodGet:    func(w http.ResponseWriter, r *http.Request) { h.readData(w, r, name) },
			http.MethodDelete: func(w http.ResponseWriter, r *http.Request) { h.pruneDataset(w, r, name) },
		}.serve(w, r)
	case "save":
		methods{http.MethodPut: func(w http.ResponseWriter, r *http.Request) { h.saveDataset(w, r, name) }}.serve(w, r)
	default:
		methods{
			http.MethodGet:    func(w http.ResponseWriter, r *http.Request) { h.getDataset(w, r, name) },
			http.MethodPut:    func(w http.ResponseWriter, r *http.Request) { h.modifyDataset(w, r, name) },
			http.MethodDelete: func(w http.ResponseWriter, r *http.Request) { h.destroyDataset(w, r, name) },
		}.serve(w, r)
	}
}

func (h *Handler) listDatasets(w http.ResponseWriter, r *http.Request) {
	stats := h.statistics()
	out := []datasetJSON{}
	for _, d := range h.sortedDatasets() {
		out = append(out, showDataset(d, stats))
	}
	writeJSON(w, http.StatusOK, map[string]any{"datasets": out})
}

func (h *Handler) getDataset(w http.ResponseWriter, r *http.Request, name string) {
	d, err := h.b.Dataset(name)
	if err != nil {
		writeFault(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"dataset": h.showOne(d)})
}

// createInput is POST /datasets' body: the appliance's {"statistic":
// NAME}, and optionally the state to start in (archived by default, or
// open: kept in memory only) and whether it is exported as Prometheus
// metrics (not by default).
type createInput struct {
	Statistic string          `json:"statistic"`
	State     analytics.State `json:"state"`
	Export    bool            `json:"export"`
}

func (h *Handler) createDataset(w http.ResponseWriter, r *http.Request) {
	var in createInput
	if err := decode(r, &in); err != nil {
		writeFault(w, err)
		return
	}
	if strings.TrimSpace(in.Statistic) == "" {
		writeFault(w, missingArg(`"statistic" is required: the dataset's name, as "syscall.ops[execname=dd][name]"`))
		return
	}
	switch in.State {
	case "":
		in.State = analytics.Archived
	case analytics.Archived, analytics.Open:
	default:
		writeFault(w, errorf(http.StatusBadRequest, `"state" must be %q or %q, not %q`, analytics.Archived, analytics.Open, in.State))
		return
	}
	d, err := h.b.Create(in.Statistic, in.State)
	if err == nil && in.Export {
		d, err = h.b.SetExport(d.Name, true)
	}
	if err != nil {
		writeFault(w, err)
		return
	}
	w.Header().Set("Location", datasetHref(d.Name))
	writeJSON(w, http.StatusCreated, map[string]any{"dataset": h.showOne(d)})
}

// modifyInput is PUT /datasets/NAME's body: {"suspended": true|false}
// as on the appliance, or a state ("open", "archived", "suspended"),
// and/or {"export": true|false}.
type modifyInput struct {
	Suspended *bool           `json:"suspended"`
	State     analytics.State `json:"state"`
	Export    *bool           `json:"export"`
}

func (h *Handler) modifyDataset(w http.ResponseWriter, r *http.Request, name string) {
	var in modifyInput
	if err := decode(r, &in); err != nil {
		writeFault(w, err)
		return
	}
	var state analytics.State
	var err error
	setState := in.Suspended != nil || in.State != "" || in.Export == nil
	if setState {
		if state, err = in.target(); err != nil {
			writeFault(w, err)
			return
		}
	}
	var d analytics.Dataset
	if in.Export != nil {
		d, err = h.b.SetExport(name, *in.Export)
	}
	if err == nil && setState {
		d, err = h.b.SetState(name, state)
	}
	if err != nil {
		writeFault(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"dataset": h.showOne(d)})
}

// target is the state a PUT asks for: resuming a dataset archives it
// unless "state" says open.
func (in modifyInput) target() (analytics.State, error) {
	switch in.State {
	case "", analytics.Open, analytics.Archived, analytics.Suspended:
	default:
		return "", errorf(http.StatusBadRequest, `"state" must be open, archived or suspended, not %q`, in.State)
	}
	if in.Suspended == nil {
		if in.State == "" {
			return "", missingArg(`"suspended" (true or false), "state" or "export" is required`)
		}
		return in.State, nil
	}
	if *in.Suspended {
		if in.State != "" && in.State != analytics.Suspended {
			return "", errorf(http.StatusBadRequest, `"suspended": true contradicts "state": %q`, in.State)
		}
		return analytics.Suspended, nil
	}
	switch in.State {
	case "":
		return analytics.Archived, nil
	case analytics.Suspended:
		return "", errorf(http.StatusBadRequest, `"suspended": false contradicts "state": "suspended"`)
	}
	return in.State, nil
}

// saveDataset is the appliance's "save": archive the dataset to disk.
func (h *Handler) saveDataset(w http.ResponseWriter, r *http.Request, name string) {
	d, err := h.b.SetState(name, analytics.Archived)
	if err != nil {
		writeFault(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"dataset": h.showOne(d)})
}

func (h *Handler) destroyDataset(w http.ResponseWriter, r *http.Request, name string) {
	if err := h.b.Destroy(name); err != nil {
		writeFault(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
