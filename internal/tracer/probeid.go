package tracer

import (
	"fmt"
	"strconv"
	"strings"
)

// probeIDText turns the text of -i ("464", or "464 /pred/ { ... }") into
// a D probe description: the full name of the probe of that ID followed
// by the rest of the text, as dtrace's -i probe-id[[predicate] action].
func (p *Program) probeIDText(text string) (string, error) {
	text = strings.TrimSpace(text)
	end := strings.IndexFunc(text, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(text)
	}
	id, err := strconv.ParseUint(text[:end], 10, 32)
	if err != nil || id == 0 {
		return "", fmt.Errorf("invalid probe specifier %s: a probe ID is a positive decimal number (as sonde -l shows it)", text)
	}
	pr, err := p.Registry.ByID(uint32(id))
	if err != nil {
		return "", fmt.Errorf("invalid probe specifier %s: %w", text, err)
	}
	if pr == nil {
		return "", fmt.Errorf("invalid probe specifier %s: no probe has ID %d", text, id)
	}
	return pr.FullName() + text[end:], nil
}
