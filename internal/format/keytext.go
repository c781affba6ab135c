package format

import (
	"strings"

	"github.com/sonde-trace/sonde/internal/value"
)

// KeyText is an aggregation key as one line of text, for callers that
// keep keys as strings (the analytics agent's breakdowns): as printa()
// shows it but without padding; a stack is its frames from the root,
// joined by ';' as in a folded line.
func KeyText(k value.Value) string {
	if k.Kind == value.Stack || k.Kind == value.UStack {
		return strings.Join(foldKeys(nil, []value.Value{k}), ";")
	}
	return keyText(k)
}
