package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// worksheetJSON is a worksheet with its href.
type worksheetJSON struct {
	analytics.Worksheet
	Href string `json:"href"`
}

func showWorksheet(ws analytics.Worksheet) worksheetJSON {
	ws.Datasets = nonNil(ws.Datasets)
	return worksheetJSON{ws, Prefix + "/worksheets/" + escape(ws.ID)}
}

// worksheetInput is the body of POST and PUT on worksheets: the fields
// given replace the worksheet's.
type worksheetInput struct {
	Name     *string    `json:"name"`
	Datasets []string   `json:"datasets"`
	Start    *time.Time `json:"start"`
	Seconds  *int       `json:"seconds"`
	Notes    *string    `json:"notes"`
}

// apply sets ws's fields from in.
func (in worksheetInput) apply(ws *analytics.Worksheet) error {
	if in.Name != nil {
		if strings.TrimSpace(*in.Name) == "" {
			return errorf(http.StatusBadRequest, `"name" must not be empty`)
		}
		ws.Name = *in.Name
	}
	if in.Datasets != nil {
		ws.Datasets = in.Datasets
	}
	if in.Start != nil {
		ws.Start = in.Start.UTC()
	}
	if in.Seconds != nil {
		if *in.Seconds < 0 {
			return errorf(http.StatusBadRequest, `"seconds" must not be negative`)
		}
		ws.Seconds = *in.Seconds
	}
	if in.Notes != nil {
		ws.Notes = *in.Notes
	}
	return nil
}

// routeWorksheets serves /worksheets, /worksheets/ID and its suspend and
// resume.
func (h *Handler) routeWorksheets(w http.ResponseWriter, r *http.Request, item string) {
	if item == "" {
		methods{http.MethodGet: h.listWorksheets, http.MethodPost: h.createWorksheet}.serve(w, r)
		return
	}
	seg, sub, _ := strings.Cut(item, "/")
	id, err := unescape(seg)
	if err != nil {
		writeFault(w, err)
		return
	}
	switch sub {
	case "":
		methods{
			http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
				if ws, err := h.worksheet(id); err != nil {
					writeFault(w, err)
				} else {
					writeJSON(w, http.StatusOK, map[string]any{"worksheet": showWorksheet(ws)})
				}
			},
			http.MethodPut:    func(w http.ResponseWriter, r *http.Request) { h.modifyWorksheet(w, r, id) },
			http.MethodDelete: func(w http.ResponseWriter, r *http.Request) { h.destroyWorksheet(w, r, id) },
		}.serve(w, r)
	case "suspend", "resume":
		state := analytics.Suspended
		if sub == "resume" {
			state = analytics.Archived
		}
		methods{http.MethodPut: func(w http.ResponseWriter, r *http.Request) { h.worksheetState(w, r, id, state) }}.serve(w, r)
	default:
		writeFault(w, errorf(http.StatusNotFound, "no such resource: %s", r.URL.Path))
	}
}

// worksheet finds a worksheet by id.
func (h *Handler) worksheet(id string) (analytics.Worksheet, error) {
	for _, ws := range h.b.Worksheets() {
		if ws.ID == id {
			return ws, nil
		}
	}
	return analytics.Worksheet{}, errorf(http.StatusNotFound, "no worksheet %q", id)
}

func (h *Handler) listWorksheets(w http.ResponseWriter, r *http.Request) {
	out := []worksheetJSON{}
	for _, ws := range h.b.Worksheets() {
		out = append(out, showWorksheet(ws))
	}
	writeJSON(w, http.StatusOK, map[string]any{"worksheets": out})
}

func (h *Handler) createWorksheet(w http.ResponseWriter, r *http.Request) {
	var in worksheetInput
	if err := decode(r, &in); err != nil {
		writeFault(w, err)
		return
	}
	if in.Name == nil {
		writeFault(w, missingArg(`"name" is required`))
		return
	}
	var ws analytics.Worksheet
	if err := in.apply(&ws); err != nil {
		writeFault(w, err)
		return
	}
	h.saveWorksheet(w, ws, http.StatusCreated)
}

func (h *Handler) modifyWorksheet(w http.ResponseWriter, r *http.Request, id string) {
	var in worksheetInput
	if err := decode(r, &in); err != nil {
		writeFault(w, err)
		return
	}
	ws, err := h.worksheet(id)
	if err == nil {
		err = in.apply(&ws)
	}
	if err != nil {
		writeFault(w, err)
		return
	}
	h.saveWorksheet(w, ws, http.StatusAccepted)
}

// saveWorksheet saves ws and answers with it.
func (h *Handler) saveWorksheet(w http.ResponseWriter, ws analytics.Worksheet, status int) {
	ws, err := h.b.SaveWorksheet(ws)
	if err != nil {
		writeFault(w, err)
		return
	}
	out := showWorksheet(ws)
	if status == http.StatusCreated {
		w.Header().Set("Location", out.Href)
	}
	writeJSON(w, status, map[string]any{"worksheet": out})
}

func (h *Handler) destroyWorksheet(w http.ResponseWriter, r *http.Request, id string) {
	if err := h.b.DeleteWorksheet(id); err != nil {
		writeFault(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// worksheetState suspends or resumes every dataset of a worksheet; the
// first failure stops it and is the answer.
func (h *Handler) worksheetState(w http.ResponseWriter, r *http.Request, id string, state analytics.State) {
	ws, err := h.worksheet(id)
	if err != nil {
		writeFault(w, err)
		return
	}
	for _, name := range ws.Datasets {
		if _, err := h.b.SetState(name, state); err != nil {
			writeFault(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
