package tracer

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options are the -x / #pragma D option settings sonde honours, as
// resolved for one program: dtrace's defaults, then -x in order, then the
// program's pragmas.
type Options struct {
	// Destructive and DefaultArgs are -x destructive (as -w) and -x
	// defaultargs (an unset $N is 0).
	Destructive, DefaultArgs bool
	NSpec                    int    // speculative buffers (default 1, as DTrace)
	SpecSize                 int    // bytes of records a speculation keeps (0: no bound)
	BufPolicy                string // bufpolicy: switch (""), fill or ring
	BufSize                  int
	AggEntries               int
	DynEntries               int
	StrSize                  int
	Quiet                    bool
	SwitchRate               time.Duration
	StackFrames              int    // default stack() depth, 0 for the default
	UStackFrames             int    // default ustack() depth
	EvalTime                 string // -c: where the command is held while probes are placed ("" = as needed)
	AggRate                  time.Duration
	AggSortKey               bool
	AggSortRev               bool
	AggSortPos               int
	AggSortKeyPos            int
	ErrTags                  bool
	FlowIndent               bool // -F: entry and return probes indent the output (dtrace's flowindent)
	// StatusRate is how often drops are reported (DTrace's, 1 s)
	StatusRate time.Duration
	// MaxFrames caps the depth of stack() and ustack(), given or not
	// (Oracle's maxframes; 0: the kernel's perf_event_max_stack).
	MaxFrames int
	// CPU, when CPUSet, is the only CPU whose probe firings are traced
	// (DTrace's cpu option; BEGIN, END and ERROR still run).
	CPU    int
	CPUSet bool
}

// DefaultOptions are dtrace's defaults.
func DefaultOptions() Options {
	return Options{BufSize: 4 << 20, StrSize: 256, SwitchRate: 100 * time.Millisecond,
		StatusRate: time.Second, AggRate: time.Second, AggEntries: 65536, DynEntries: 65536}
}

// Limits of the numeric options. A value past one is refused with the
// limit named rather than wrapped, truncated or handed to the kernel.
const (
	// maxBufsize bounds the ring buffer: the kernel maps it twice into
	// sonde (a 1g buffer costs 2 GiB of locked memory).
	maxBufsize = 1 << 30
	// maxTableSize bounds aggsize and dynvarsize: one entry per 64 bytes,
	// 16M entries at most (the kernel refuses hash maps past 2^27 buckets).
	maxTableSize = 1 << 30
	maxStrsize   = 4096
	minStrsize   = 1
	maxFrames    = 127
	maxRate      = 24 * time.Hour
	maxCount     = 1 << 20 // nspec, jstackframes, aggsortpos and other counts
)

// sizeUnits are the suffixes of a size, as dtrace reads them.
var sizeUnits = []struct {
	suffix string
	mul    int64
}{{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}}

// parseSize parses 4m, 512k, 1g, 2t or 1024 (bytes), refusing what is
// negative, malformed or larger than max.
func parseSize(v string, max int64) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mul := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			mul, s = u.mul, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%s exceeds the maximum of %s", v, sizeName(max))
		}
		return 0, fmt.Errorf("invalid size %q (a number of bytes, with k, m, g or t)", v)
	}
	if n > uint64(max)/uint64(mul) {
		return 0, fmt.Errorf("%s exceeds the maximum of %s", v, sizeName(max))
	}
	return int64(n) * mul, nil
}

// sizeName writes a size with the largest suffix that divides it.
func sizeName(n int64) string {
	for _, u := range sizeUnits {
		if n >= u.mul && n%u.mul == 0 {
			return strconv.FormatInt(n/u.mul, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// rateUnits are the suffixes of a rate, longest first so that "ms" is
// not read as "s" and "min" not as "m"; "hz" is a frequency.
var rateUnits = []struct {
	suffix string
	d      time.Duration
}{{"nsec", time.Nanosecond}, {"usec", time.Microsecond}, {"msec", time.Millisecond},
	{"hour", time.Hour}, {"min", time.Minute}, {"sec", time.Second}, {"day", 24 * time.Hour},
	{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"ms", time.Millisecond},
	{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}

// parseRate parses a rate: 10hz, 100ms, 1s, 5min, or a bare number of
// nanoseconds, as DTrace's dt_opt_rate reads one (a bare number's
// multiplier is 1 ns). The interval must lie between 1ns and a day.
func parseRate(v string) (time.Duration, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	unit := time.Nanosecond // a bare number
	if t, ok := strings.CutSuffix(s, "hz"); ok {
		s, unit = t, 0 // 0: a frequency
	} else {
		for _, u := range rateUnits {
			if t, ok := strings.CutSuffix(s, u.suffix); ok {
				s, unit = t, u.d
				break
			}
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil && !isRange(err) {
		return 0, fmt.Errorf("invalid rate %q (a frequency such as 10hz or an interval such as 100ms)", v)
	}
	if n == 0 && err == nil {
		return 0, fmt.Errorf("invalid rate %q: it must be greater than zero", v)
	}
	if unit == 0 {
		if err != nil || n > uint64(time.Second) {
			return 0, fmt.Errorf("%s exceeds the maximum of 1000000000hz", v)
		}
		return time.Second / time.Duration(n), nil
	}
	if err != nil || n > uint64(maxRate/unit) {
		return 0, fmt.Errorf("%s exceeds the maximum of 1d", v)
	}
	return time.Duration(n) * unit, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseCount parses a whole number between lo and hi.
func parseCount(v string, lo, hi int) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil && !isRange(err) {
		return 0, fmt.Errorf("invalid number %q", v)
	}
	if err != nil || n < int64(lo) || n > int64(hi) {
		return 0, fmt.Errorf("%s is out of range: it must be between %d and %d", v, lo, hi)
	}
	return int(n), nil
}

// Set applies one option, as -x name=val or #pragma D option name=val.
func (o *Options) Set(name, val string) error {
	switch name {
	case "bufsize":
		n, err := parseSize(val, maxBufsize)
		if err != nil {
			return err
		}
		p := 4096 // the ring buffer is a power of two of pages
		for int64(p) < n {
			p <<= 1
		}
		o.BufSize = p
	case "aggsize", "dynvarsize":
		n, err := parseSize(val, maxTableSize)
		if err != nil {
			return err
		}
		if name == "aggsize" {
			o.AggEntries = max(int(n/64), 1024)
		} else {
			o.DynEntries = max(int(n/64), 1024)
		}
	case "strsize":
		n, err := parseSize(val, math.MaxInt64)
		if err != nil {
			return err
		}
		if n < minStrsize || n > maxStrsize {
			return fmt.Errorf("%s is out of range: strsize must be between %d and %d", val, minStrsize, maxStrsize)
		}
		o.StrSize = int(n)
	case "switchrate", "aggrate", "statusrate":
		d, err := parseRate(val)
		if err != nil {
			return err
		}
		switch name {
		case "switchrate":
			o.SwitchRate = d
		case "aggrate":
			o.AggRate = d
		default:
			o.StatusRate = d
		}
	case "stackframes", "ustackframes":
		n, err := parseCount(val, 1, maxFrames)
		if err != nil {
			return err
		}
		if name == "stackframes" {
			o.StackFrames = n
		} else {
			o.UStackFrames = n
		}
	case "aggsortpos", "aggsortkeypos":
		n, err := parseCount(val, 0, maxCount)
		if err != nil {
			return err
		}
		if name == "aggsortpos" {
			o.AggSortPos = n
		} else {
			o.AggSortKeyPos = n
		}
	case "evaltime":
		switch val {
		case "exec", "preinit", "postinit", "main":
			o.EvalTime = val
		default:
			return fmt.Errorf("evaltime must be exec, preinit, postinit or main")
		}
	default:
		return o.setFlag(name, val)
	}
	return nil
}

// setFlag applies a boolean option, or checks the value of an option
// sonde accepts for compatibility without acting on it.
func (o *Options) setFlag(name, val string) error {
	var err error
	switch name {
	case "quiet":
		o.Quiet = true
	case "flowindent":
		o.FlowIndent = true
	case "aggsortkey":
		o.AggSortKey = true
	case "aggsortrev":
		o.AggSortRev = true
	case "errtags":
		o.ErrTags = true
	case "specsize":
		var n int64
		n, err = parseSize(val, maxTableSize)
		o.SpecSize = int(n)
	case "jstackstrsize":
		_, err = parseSize(val, maxTableSize)
	case "cleanrate", "dynvarrate":
		_, err = parseRate(val)
	case "nspec":
		o.NSpec, err = parseCount(val, 1, maxCount)
	case "jstackframes", "stackindent":
		_, err = parseCount(val, 0, maxCount)
	case "maxframes":
		o.MaxFrames, err = parseCount(val, 1, maxFrames)
	case "cpu":
		var n int
		n, err = parseCount(val, -1, maxCount)
		if err == nil {
			// -1 is DTrace's DTRACE_CPUALL
			o.CPU, o.CPUSet = n, n >= 0
			if o.CPUSet && !cpuOnline(n) {
				err = fmt.Errorf("CPU %d is not online", n)
			}
		}
	case "stdc":
		// cpp's mode (-C), applied by the command line as -X
		if val != "a" && val != "c" && val != "s" && val != "t" {
			err = fmt.Errorf("stdc must be a, c, s or t")
		}
	case "bufpolicy":
		switch val {
		case "switch", "fill", "ring":
			o.BufPolicy = val
		default:
			err = fmt.Errorf("bufpolicy must be switch, fill or ring")
		}
	case "defaultargs":
		o.DefaultArgs = true
	case "destructive":
		o.Destructive = true
	case "grabanon", "libdir", "nolibs", "rawbytes",
		"zdefs", "bufresize", "aggpercpu", "encoding":
		// accepted
	default:
		return fmt.Errorf("unknown option")
	}
	return err
}

// cpuOnline reports whether the kernel lists cpu as online.
func cpuOnline(cpu int) bool {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return cpu == 0
	}
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, ok := strings.Cut(part, "-")
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if !ok {
			h, err2 = l, err1
		}
		if err1 == nil && err2 == nil && cpu >= l && cpu <= h {
			return true
		}
	}
	return false
}
