package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// decode reads r's JSON body into v: unknown fields are ERR_UNKNOWN_ARG,
// malformed JSON ERR_INVALID_ARG, a body past the limit ERR_OVER_LIMIT.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = fmt.Errorf("unexpected data after the JSON object")
		}
	}
	return bodyError(err)
}

// bodyError says what is wrong with a request's body.
func bodyError(err error) error {
	if err == nil {
		return nil
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", tooBig.Limit)
	}
	if errors.Is(err, io.EOF) {
		return missingArg("request body: a JSON object is required")
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return unknownArg("request body: unknown property %s", field)
	}
	return errorf(http.StatusBadRequest, "request body: %v", err)
}

// unescape reads a path segment (a dataset's name or a worksheet's id).
func unescape(seg string) (string, error) {
	s, err := url.PathUnescape(seg)
	if err != nil {
		return "", errorf(http.StatusBadRequest, "bad escape in %q: %v", seg, err)
	}
	if s == "" {
		return "", errorf(http.StatusNotFound, "empty name")
	}
	return s, nil
}

// escape writes a name as a path segment: [ ] = " spaces and / escaped.
func escape(name string) string {
	return url.PathEscape(name)
}
