package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/store"
)

// storeOptions are the store's retention, cap and read cache from the
// flags.
func storeOptions(c *config) (*store.Options, error) {
	var o store.Options
	for _, r := range []struct {
		flag, val string
		dst       *time.Duration
	}{{"retain-seconds", c.retainSec, &o.Seconds}, {"retain-minutes", c.retainMin, &o.Minutes}, {"retain-hours", c.retainHour, &o.Hours}} {
		if r.val == "" {
			continue
		}
		d, err := parseDuration(r.val)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", r.flag, err)
		}
		*r.dst = d
	}
	if c.maxStorage != "" {
		n, err := parseBytes(c.maxStorage)
		if err != nil {
			return nil, fmt.Errorf("--max-storage: %w", err)
		}
		o.MaxBytes = n
	}
	switch c.readCache {
	case "", "0":
		o.CacheBytes = -1
	default:
		n, err := parseBytes(c.readCache)
		if err != nil {
			return nil, fmt.Errorf("--read-cache: %w", err)
		}
		o.CacheBytes = n
	}
	return &o, nil
}

// apiOptions are the API's credentials from the flags.
func apiOptions(c *config) (*api.Options, error) {
	var o api.Options
	var err error
	if c.tokens != "" {
		if o.Tokens, err = api.LoadTokens(c.tokens); err != nil {
			return nil, err
		}
	}
	if c.users != "" {
		if o.Users, err = api.LoadUsers(c.users); err != nil {
			return nil, err
		}
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together")
	}
	return &o, nil
}

// parseDuration is time.ParseDuration with days ("7d", "90d").
func parseDuration(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(d, 10, 16)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid duration %q (e.g. 30m, 12h, 7d)", s)
	}
	return d, nil
}

// parseBytes reads 512m, 10g, 1t or a number of bytes.
func parseBytes(s string) (int64, error) {
	mul := int64(1)
	t := strings.ToLower(s)
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mul = v, u.mul
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("invalid size %q (e.g. 512m, 10g)", s)
	}
	return n * mul, nil
}
