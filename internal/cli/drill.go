package cli

import (
	"fmt"
	"slices"
	"strings"
)

// part is one [...] of a dataset's name: a filter (Value set) or a
// breakdown.
type part struct {
	breakdown, value string
	filter           bool
}

// splitSpec splits a dataset's name into its statistic and its parts.
// Values may be quoted ("a b", with \" and \\ inside).
func splitSpec(spec string) (string, []part, error) {
	stat, rest, _ := strings.Cut(spec, "[")
	if stat == "" {
		return "", nil, fmt.Errorf("%q: no statistic", spec)
	}
	if rest == "" {
		return stat, nil, nil
	}
	rest = "[" + rest
	var parts []part
	for rest != "" {
		p, n, err := scanPart(rest)
		if err != nil {
			return "", nil, fmt.Errorf("%q at byte %d: %w", spec, len(spec)-len(rest)+1, err)
		}
		parts = append(parts, p)
		rest = rest[n:]
	}
	return stat, parts, nil
}

// scanPart reads one [breakdown] or [breakdown=value] at the start of s
// and returns it and its length.
func scanPart(s string) (part, int, error) {
	if s[0] != '[' {
		return part{}, 0, fmt.Errorf("expected [")
	}
	var p part
	var b strings.Builder
	quoted := false
	for i := 1; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case ch == '"' && p.filter:
			quoted = !quoted
		case quoted:
			b.WriteByte(ch)
		case ch == '=' && !p.filter:
			p.filter, p.breakdown = true, b.String()
			b.Reset()
		case ch == ']':
			if p.filter {
				p.value = b.String()
			} else {
				p.breakdown = b.String()
			}
			if p.breakdown == "" {
				return part{}, 0, fmt.Errorf("empty breakdown")
			}
			return p, i + 1, nil
		default:
			b.WriteByte(ch)
		}
	}
	return part{}, 0, fmt.Errorf("expected ]")
}

// quote writes a filter's value, quoted when it holds what the syntax
// uses ([ ] = " \ or spaces) or is empty.
func quote(v string) string {
	if v != "" && !strings.ContainsAny(v, "[]=\"\\ \t") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// joinSpec writes a dataset's name: filters first, then breakdowns.
func joinSpec(stat string, parts []part) string {
	var b strings.Builder
	b.WriteString(stat)
	for _, p := range parts {
		if p.filter {
			fmt.Fprintf(&b, "[%s=%s]", p.breakdown, quote(p.value))
		}
	}
	for _, p := range parts {
		if !p.filter {
			fmt.Fprintf(&b, "[%s]", p.breakdown)
		}
	}
	return b.String()
}

// Drill returns the drill-down of a dataset: with key, the dataset
// filtered by that key of its breakdown (key is VALUE when the dataset
// has one breakdown, or BREAKDOWN=VALUE), the new filter after the
// dataset's own, the breakdown replaced by by;
// without, by added as a further breakdown.
// Drill("syscall.ops[execname]", "dd", "name") is
// "syscall.ops[execname=dd][name]".
func Drill(spec, key, by string) (string, error) {
	stat, parts, err := splitSpec(spec)
	if err != nil {
		return "", err
	}
	var breakdowns []string
	for _, p := range parts {
		if !p.filter {
			breakdowns = append(breakdowns, p.breakdown)
		}
		if p.breakdown == by {
			return "", fmt.Errorf("%s is already broken down or filtered by %s", spec, by)
		}
	}
	if key != "" {
		target, value, err := keyTarget(spec, key, breakdowns)
		if err != nil {
			return "", err
		}
		parts = slices.DeleteFunc(parts, func(p part) bool { return !p.filter && p.breakdown == target })
		parts = append(parts, part{breakdown: target, value: value, filter: true})
	}
	parts = append(parts, part{breakdown: by})
	return joinSpec(stat, parts), nil
}

// keyTarget says which breakdown a -key filters and by which value.
func keyTarget(spec, key string, breakdowns []string) (string, string, error) {
	if b, v, ok := strings.Cut(key, "="); ok {
		for _, x := range breakdowns {
			if x == b {
				return b, v, nil
			}
		}
		return "", "", fmt.Errorf("%s has no breakdown %s to drill into", spec, b)
	}
	switch len(breakdowns) {
	case 0:
		return "", "", fmt.Errorf("%s has no breakdown: there is no key to drill into", spec)
	case 1:
		return breakdowns[0], key, nil
	}
	return "", "", fmt.Errorf("%s has several breakdowns (%s): say which with -key BREAKDOWN=VALUE", spec, strings.Join(breakdowns, ", "))
}
