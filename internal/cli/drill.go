package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
)

// Drill returns the drill-down of a dataset, named as the agent names it
// (stats.Spec's canonical form): with key, the dataset filtered by that
// key of its breakdown (key is VALUE when the dataset has one breakdown,
// or BREAKDOWN=VALUE), the new filter after the dataset's own and the
// breakdown replaced by by; without, by added as a further breakdown.
// Drill("syscall.ops[execname]", "dd", "name") is
// "syscall.ops[execname=dd][name]".
func Drill(name, key, by string) (string, error) {
	spec, err := stats.Parse(name)
	if err != nil {
		return "", err
	}
	if slices.Contains(spec.Breakdowns, by) {
		return "", fmt.Errorf("%s is already broken down by %s", name, by)
	}
	if key != "" {
		target, value, err := keyTarget(name, key, spec.Breakdowns)
		if err != nil {
			return "", err
		}
		spec.Breakdowns = slices.DeleteFunc(spec.Breakdowns, func(b string) bool { return b == target })
		spec.Filters = append(spec.Filters, analytics.Filter{Breakdown: target, Value: value})
	}
	spec.Breakdowns = append(spec.Breakdowns, by)
	return spec.String(), nil
}

// keyTarget says which breakdown a -key filters and by which value.
func keyTarget(name, key string, breakdowns []string) (string, string, error) {
	if b, v, ok := strings.Cut(key, "="); ok {
		if slices.Contains(breakdowns, b) {
			return b, v, nil
		}
		return "", "", fmt.Errorf("%s has no breakdown %s to drill into", name, b)
	}
	switch len(breakdowns) {
	case 0:
		return "", "", fmt.Errorf("%s has no breakdown: there is no key to drill into", name)
	case 1:
		return breakdowns[0], key, nil
	}
	return "", "", fmt.Errorf("%s has several breakdowns (%s): say which with -key BREAKDOWN=VALUE", name, strings.Join(breakdowns, ", "))
}
