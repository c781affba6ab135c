package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// fault is the appliance's error payload, {"fault": {...}}: Code the HTTP
// status, Name and Message the appliance's error name (ERR_NOT_FOUND...),
// Details what went wrong (for bad D, the compiler's positioned text).
type fault struct {
	Code    int    `json:"code"`
	Name    string `json:"name"`
	Message string `json:"message"`
	Details string `json:"details"`
}

// faultNames are the appliance's names for the statuses it returns.
var faultNames = map[int]string{
	http.StatusBadRequest:            "ERR_INVALID_ARG",
	http.StatusUnauthorized:          "ERR_UNAUTHORIZED",
	http.StatusForbidden:             "ERR_DENIED",
	http.StatusNotFound:              "ERR_NOT_FOUND",
	http.StatusMethodNotAllowed:      "ERR_NOT_IMPLEMENTED",
	http.StatusConflict:              "ERR_OBJECT_EXISTS",
	http.StatusRequestEntityTooLarge: "ERR_OVER_LIMIT",
	http.StatusUnsupportedMediaType:  "ERR_UNSUPPORTED_MEDIA",
	http.StatusNotImplemented:        "ERR_NOT_IMPLEMENTED",
	http.StatusServiceUnavailable:    "ERR_BUSY",
}

// faultName is the appliance's name of a status.
func faultName(status int) string {
	if n, ok := faultNames[status]; ok {
		return n
	}
	if status >= 400 && status < 500 {
		return "ERR_INVALID_ARG"
	}
	return "ERR_INTERNAL"
}

// errorf is an error of the caller's, with its status.
func errorf(status int, format string, args ...any) error {
	return &analytics.Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// named is an error with an appliance name other than its status's
// (ERR_MISSING_ARG, ERR_UNKNOWN_ARG are 400s too).
type named struct {
	err  *analytics.Error
	name string
}

func (n *named) Error() string { return n.err.Message }
func (n *named) Unwrap() error { return n.err }

func missingArg(format string, args ...any) error {
	return &named{err: &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}, name: "ERR_MISSING_ARG"}
}

func unknownArg(format string, args ...any) error {
	return &named{err: &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}, name: "ERR_UNKNOWN_ARG"}
}

// faultOf turns an error into the status and payload it deserves: the
// backend's *analytics.Error keeps its status and message; anything else
// is the agent's fault (500).
func faultOf(err error) fault {
	var n *named
	if errors.As(err, &n) {
		return fault{Code: n.err.Status, Name: n.name, Message: n.name, Details: n.err.Message}
	}
	var ae *analytics.Error
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 600 {
		name := faultName(ae.Status)
		return fault{Code: ae.Status, Name: name, Message: name, Details: ae.Message}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		name := faultName(http.StatusServiceUnavailable)
		return fault{Code: http.StatusServiceUnavailable, Name: name, Message: name, Details: err.Error()}
	}
	name := faultName(http.StatusInternalServerError)
	return fault{Code: http.StatusInternalServerError, Name: name, Message: name, Details: err.Error()}
}

// writeFault answers with err's fault.
func writeFault(w http.ResponseWriter, err error) {
	f := faultOf(err)
	if f.Code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sonde", Basic realm="sonde"`)
	}
	writeJSON(w, f.Code, map[string]fault{"fault": f})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"fault": {"code": 500, "name": "ERR_INTERNAL", "message": "ERR_INTERNAL", "details": "encoding the answer failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
