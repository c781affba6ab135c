package alert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Handler serves the alert service under Prefix: thresholds, actions and
// their items, events. The caller guards it (the analytics API's Guard:
// credentials, body limits).
func (e *Engine) Handler() http.Handler { return http.HandlerFunc(e.route) }

func (e *Engine) route(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		fault(w, notFound("resource", r.URL.Path))
		return
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	switch parts[0] {
	case "":
		only(w, r, http.MethodGet, func() {
			reply(w, http.StatusOK, map[string]any{"service": map[string]any{
				"href": Prefix, "thresholds": Prefix + "/thresholds", "actions": Prefix + "/actions", "events": Prefix + "/events"}})
		})
	case "thresholds":
		e.routeThresholds(w, r, parts[1:])
	case "actions":
		e.routeActions(w, r, parts[1:])
	case "events":
		e.routeEvents(w, r, parts[1:])
	default:
		fault(w, notFound("resource", r.URL.Path))
	}
}

func (e *Engine) routeThresholds(w http.ResponseWriter, r *http.Request, p []string) {
	switch {
	case len(p) == 0 && r.Method == http.MethodGet:
		// Each as GET /thresholds/UUID shows it, alerts included: a
		// view of them all is one request.
		ts := e.Thresholds()
		vs := make([]thresholdView, len(ts))
		for i, t := range ts {
			vs[i] = e.thresholdView(t)
		}
		reply(w, http.StatusOK, map[string]any{"thresholds": vs})
	case len(p) == 0 && r.Method == http.MethodPost:
		t := defaults()
		if !decode(w, r, &t) {
			return
		}
		t, err := e.CreateThreshold(t)
		e.answer(w, http.StatusCreated, "threshold", err, func() any { return e.thresholdView(t) })
	case len(p) == 1 && r.Method == http.MethodGet:
		t, err := e.Threshold(p[0])
		e.answer(w, http.StatusOK, "threshold", err, func() any { return e.thresholdView(t) })
	case len(p) == 1 && r.Method == http.MethodPut:
		t, err := e.UpdateThreshold(p[0], func(t *Threshold) error { return decodeErr(r, t) })
		e.answer(w, http.StatusAccepted, "threshold", err, func() any { return e.thresholdView(t) })
	case len(p) == 1 && r.Method == http.MethodDelete:
		if err := e.DeleteThreshold(p[0]); err != nil {
			fault(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case len(p) == 2 && p[1] == "silence" && r.Method == http.MethodPost:
		var s struct {
			Seconds *int64 `json:"seconds"`
		}
		if !decode(w, r, &s) {
			return
		}
		if s.Seconds == nil {
			fault(w, badf("silence: {\"seconds\": N} is required (0 lifts it)"))
			return
		}
		t, err := e.Silence(p[0], time.Duration(*s.Seconds)*time.Second)
		e.answer(w, http.StatusAccepted, "threshold", err, func() any { return e.thresholdView(t) })
	default:
		notAllowed(w, r)
	}
}

// thresholdView is a threshold with its href, its alerts that are not
// inactive and its dataset's state (a threshold on a suspended dataset
// says so), as GET shows it, alone or in the list.
type thresholdView struct {
	Threshold
	Alerts       []AlertStatus   `json:"alerts"`
	DatasetState analytics.State `json:"dataset_state,omitempty"`
	Silenced     bool            `json:"silenced"`
}

func (e *Engine) thresholdView(t Threshold) thresholdView {
	t.Href = Prefix + "/thresholds/" + t.ID
	alerts, _ := e.Alerts(t.ID)
	v := thresholdView{Threshold: t, Alerts: alerts, Silenced: e.cfg.Now().Before(t.SilencedUntil)}
	if v.Alerts == nil {
		v.Alerts = []AlertStatus{}
	}
	if ds, err := e.cfg.Datasets.Dataset(t.Statname); err == nil {
		v.DatasetState = ds.State
	}
	return v
}

func (e *Engine) routeActions(w http.ResponseWriter, r *http.Request, p []string) {
	switch {
	case len(p) == 0 && r.Method == http.MethodGet:
		as := e.Actions()
		for i := range as {
			as[i].Href = Prefix + "/actions/" + as[i].ID
		}
		reply(w, http.StatusOK, map[string]any{"actions": as})
	case len(p) == 0 && r.Method == http.MethodPost:
		var a Action
		if !decode(w, r, &a) {
			return
		}
		a, err := e.CreateAction(a)
		a.Href = Prefix + "/actions/" + a.ID
		e.answer(w, http.StatusCreated, "action", err, func() any { return a })
	case len(p) == 1 && r.Method == http.MethodGet:
		a, err := e.Action(p[0])
		a.Href = Prefix + "/actions/" + a.ID
		e.answer(w, http.StatusOK, "action", err, func() any { return a })
	case len(p) == 1 && r.Method == http.MethodPut:
		var a Action
		if !decode(w, r, &a) {
			return
		}
		a, err := e.UpdateAction(p[0], a.ThresholdID)
		e.answer(w, http.StatusAccepted, "action", err, func() any { return a })
	case len(p) == 1 && r.Method == http.MethodDelete:
		if err := e.DeleteAction(p[0]); err != nil {
			fault(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case len(p) == 1 && r.Method == http.MethodPost:
		var it Item
		if !decode(w, r, &it) {
			return
		}
		it, err := e.AddItem(p[0], it)
		e.answer(w, http.StatusCreated, "item", err, func() any { return it })
	default:
		e.routeItem(w, r, p)
	}
}

func (e *Engine) routeItem(w http.ResponseWriter, r *http.Request, p []string) {
	switch {
	case len(p) == 2 && r.Method == http.MethodGet:
		it, err := e.Item(p[0], p[1])
		e.answer(w, http.StatusOK, "item", err, func() any { return it })
	case len(p) == 2 && r.Method == http.MethodPut:
		it, err := e.UpdateItem(p[0], p[1], func(it *Item) error { return decodeErr(r, it) })
		e.answer(w, http.StatusAccepted, "item", err, func() any { return it })
	case len(p) == 2 && r.Method == http.MethodDelete:
		if err := e.DeleteItem(p[0], p[1]); err != nil {
			fault(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case len(p) == 3 && p[2] == "test" && r.Method == http.MethodPost:
		ev, err := e.Test(p[0], p[1])
		e.answer(w, http.StatusOK, "event", err, func() any { return ev })
	default:
		notAllowed(w, r)
	}
}

func (e *Engine) routeEvents(w http.ResponseWriter, r *http.Request, p []string) {
	switch {
	case len(p) == 0 && r.Method == http.MethodGet:
		evs := e.Events()
		if th := r.URL.Query().Get("threshold"); th != "" {
			kept := evs[:0]
			for _, ev := range evs {
				if ev.Threshold == th {
					kept = append(kept, ev)
				}
			}
			evs = kept
		}
		reply(w, http.StatusOK, map[string]any{"events": evs})
	case len(p) == 1 && r.Method == http.MethodGet:
		ev, err := e.Event(p[0])
		e.answer(w, http.StatusOK, "event", err, func() any { return ev })
	case len(p) == 4 && p[1] == "captures" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		b, err := e.CapturePart(p[0], p[2], p[3])
		if err != nil {
			fault(w, err)
			return
		}
		ct := "text/plain; charset=utf-8"
		if p[3] == "svg" {
			ct = "image/svg+xml"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(b)
		}
	default:
		notAllowed(w, r)
	}
}

// answer writes {name: v()} with status, or err's fault.
func (e *Engine) answer(w http.ResponseWriter, status int, name string, err error, v func() any) {
	if err != nil {
		fault(w, err)
		return
	}
	reply(w, status, map[string]any{name: v()})
}

func only(w http.ResponseWriter, r *http.Request, method string, f func()) {
	if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		notAllowed(w, r)
		return
	}
	f()
}

func notAllowed(w http.ResponseWriter, r *http.Request) {
	fault(w, &analytics.Error{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path)})
}

// decode reads a JSON body onto v; unknown fields are errors.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := decodeErr(r, v); err != nil {
		fault(w, err)
		return false
	}
	return true
}

func decodeErr(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &analytics.Error{Status: http.StatusRequestEntityTooLarge, Message: "request body too large"}
		}
		if errors.Is(err, io.EOF) {
			return badf("a JSON body is required")
		}
		return badf("bad JSON: %v", err)
	}
	return nil
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// faultNames are the appliance's error names.
var faultNames = map[int]string{
	http.StatusBadRequest:            "ERR_INVALID_ARG",
	http.StatusNotFound:              "ERR_NOT_FOUND",
	http.StatusMethodNotAllowed:      "ERR_NOT_IMPLEMENTED",
	http.StatusRequestEntityTooLarge: "ERR_OVER_LIMIT",
}

// fault writes the appliance's error shape.
func fault(w http.ResponseWriter, err error) {
	st := status(err)
	name := faultNames[st]
	if name == "" {
		name = "ERR_INTERNAL"
	}
	reply(w, st, map[string]any{"fault": map[string]any{"code": st, "name": name, "message": name, "details": err.Error()}})
}
