package tracer

import (
	"strings"
	"testing"
	"time"
)

func TestOptionLimits(t *testing.T) {
	bad := map[string]string{
		"bufsize=8000000t":                "exceeds the maximum of 1g",
		"bufsize=18446744073709551616":    "exceeds the maximum of 1g",
		"bufsize=2g":                      "exceeds the maximum of 1g",
		"bufsize=-1":                      "invalid size",
		"aggsize=64g":                     "exceeds the maximum of 1g",
		"dynvarsize=8000000t":             "exceeds the maximum of 1g",
		"strsize=18014398509481985k":      "exceeds the maximum",
		"strsize=0":                       "between 1 and 4096",
		"switchrate=0hz":                  "greater than zero",
		"switchrate=99999999999s":         "exceeds the maximum of 1d",
		"aggrate=9223372036854775808ns":   "exceeds the maximum of 1d",
		"switchrate=2000000000hz":         "exceeds the maximum of 1000000000hz",
		"switchrate=100000000000000":      "exceeds the maximum of 1d",
		"stackframes=128":                 "between 1 and 127",
		"aggsortpos=99999999999999999999": "between 0 and 1048576",
		"nspec=x":                         "invalid number",
		"cpu=1048575":                     "CPU 1048575 is not online",
	}
	for x, want := range bad {
		name, val, _ := strings.Cut(x, "=")
		o := DefaultOptions()
		if err := o.Set(name, val); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", x, err, want)
		}
	}
	o := DefaultOptions()
	for _, x := range []string{"bufsize=1g", "aggsize=1g", "strsize=5", "strsize=4k", "switchrate=10hz", "aggrate=5min", "stackframes=127", "statusrate=250000000"} {
		name, val, _ := strings.Cut(x, "=")
		if err := o.Set(name, val); err != nil {
			t.Errorf("%s: %v", x, err)
		}
	}
	if o.BufSize != 1<<30 || o.AggEntries != 1<<24 || o.StrSize != 4096 || o.SwitchRate != 100*time.Millisecond || o.AggRate != 5*time.Minute || o.StatusRate != 250*time.Millisecond {
		t.Errorf("got %+v", o)
	}
}
