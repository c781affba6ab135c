package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// options are the -x / #pragma D option settings sonde honours.
type options struct {
	bufsize       int
	aggEntries    int
	dynEntries    int
	strsize       int
	quiet         bool
	switchrate    time.Duration
	stackframes   int    // default stack() depth, 0 for the default
	ustackframes  int    // default ustack() depth
	evaltime      string // -c: where the command is held while probes are placed ("" = as needed)
	aggrate       time.Duration
	aggsortkey    bool
	aggsortrev    bool
	aggsortpos    int
	aggsortkeypos int
	errtags       bool
	// statusrate is how often drops are reported (DTrace's, 1 s)
	statusrate time.Duration
}

func defaultOptions() options {
	return options{bufsize: 4 << 20, strsize: 256, switchrate: 100 * time.Millisecond,
		statusrate: time.Second, aggrate: time.Second, aggEntries: 65536, dynEntries: 65536}
}

// parseSize parses 4m, 512k, 1g, 1024.
func parseSize(v string) (int, error) {
	mul := 1
	s := strings.ToLower(v)
	switch {
	case strings.HasSuffix(s, "k"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		mul, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "g"):
		mul, s = 1<<30, s[:len(s)-1]
	case strings.HasSuffix(s, "t"):
		mul, s = 1<<40, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	return n * mul, nil
}

// parseRate parses a rate: 10hz, 100ms, 1s, or a bare number of Hz.
func parseRate(v string) (time.Duration, error) {
	s := strings.ToLower(v)
	for _, u := range []struct {
		suffix string
		d      time.Duration
	}{{"nsec", time.Nanosecond}, {"ns", time.Nanosecond}, {"usec", time.Microsecond}, {"us", time.Microsecond},
		{"msec", time.Millisecond}, {"ms", time.Millisecond}, {"sec", time.Second}, {"s", time.Second}} {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.Atoi(strings.TrimSuffix(s, u.suffix))
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("invalid rate %q", v)
			}
			return time.Duration(n) * u.d, nil
		}
	}
	s = strings.TrimSuffix(s, "hz")
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid rate %q", v)
	}
	return time.Second / time.Duration(n), nil
}

// set applies one option.
func (o *options) set(name, val string) error {
	var err error
	switch name {
	case "bufsize":
		var n int
		if n, err = parseSize(val); err == nil {
			p := 4096
			for p < n {
				p <<= 1
			}
			o.bufsize = p
		}
	case "aggsize":
		var n int
		if n, err = parseSize(val); err == nil {
			o.aggEntries = max(n/64, 1024)
		}
	case "dynvarsize":
		var n int
		if n, err = parseSize(val); err == nil {
			o.dynEntries = max(n/64, 1024)
		}
	case "strsize":
		var n int
		if n, err = parseSize(val); err == nil {
			if n < 8 || n > 4096 {
				return fmt.Errorf("strsize must be between 8 and 4096")
			}
			o.strsize = (n + 7) / 8 * 8
		}
	case "quiet":
		o.quiet = true
	case "switchrate":
		o.switchrate, err = parseRate(val)
	case "aggrate":
		o.aggrate, err = parseRate(val)
	case "statusrate":
		o.statusrate, err = parseRate(val)
	case "aggsortkey":
		o.aggsortkey = true
	case "aggsortrev":
		o.aggsortrev = true
	case "aggsortpos":
		o.aggsortpos, err = strconv.Atoi(val)
	case "aggsortkeypos":
		o.aggsortkeypos, err = strconv.Atoi(val)
	case "errtags":
		o.errtags = true
	case "evaltime":
		switch val {
		case "exec", "preinit", "postinit", "main":
			o.evaltime = val
		default:
			err = fmt.Errorf("evaltime must be exec, preinit, postinit or main")
		}
	case "stackframes", "ustackframes":
		var n int
		if n, err = strconv.Atoi(val); err == nil && (n < 1 || n > 127) {
			err = fmt.Errorf("must be between 1 and 127")
		}
		if name == "stackframes" {
			o.stackframes = n
		} else {
			o.ustackframes = n
		}
	case "nspec", "specsize", "cleanrate", "cpu", "defaultargs", "destructive", "flowindent",
		"grabanon", "jstackframes", "jstackstrsize", "libdir", "nolibs", "rawbytes",
		"stackindent", "zdefs", "bufpolicy", "bufresize", "dynvarrate", "aggpercpu", "encoding":
		// accepted
	default:
		return fmt.Errorf("unknown option")
	}
	return err
}
