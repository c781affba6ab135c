package test

import (
	"strings"
	"testing"
)

// TestOnCPUKernelStack: stack() in sched:::on-cpu is the incoming thread's
// kernel stack (where it went off CPU), not that of the thread going off
// CPU, which the kernel runs the probe in. Each stack seen at on-cpu for
// the target must be the tail of one of its off-cpu stacks (the kernel's
// walk of a sleeping task leaves out the scheduler's own frames), except
// where it was held by sonde itself (ptrace_stop) before tracing began.
func TestOnCPUKernelStack(t *testing.T) {
	out, _ := runSonde(t, "-q", "-n", `sched:::off-cpu /pid == $target/ { @off[stack()] = count(); }
		sched:::on-cpu /pid == $target/ { @on[stack()] = count(); }
		END { printa("on%k@\n", @on); printa("off%k@\n", @off); }`, "-c", "sleep 0.3")
	var on, off [][]string
	for _, chunk := range strings.Split(out, "@\n") {
		lines := strings.Split(strings.TrimSpace(chunk), "\n")
		if len(lines) < 2 {
			continue
		}
		frames := lines[1:]
		for i := range frames {
			frames[i] = strings.TrimSpace(frames[i])
		}
		switch lines[0] {
		case "on":
			on = append(on, frames)
		case "off":
			off = append(off, frames)
		}
	}
	if len(on) == 0 || len(off) == 0 {
		t.Fatalf("no stacks:\n%s", out)
	}
	sawSleep := false
	for _, s := range on {
		if !tailOfAny(s, off) && !strings.Contains(strings.Join(s, " "), "ptrace_stop") {
			t.Errorf("on-cpu stack is not the tail of any off-cpu stack of the target:\n%s\noutput:\n%s", strings.Join(s, "\n"), out)
		}
		sawSleep = sawSleep || strings.Contains(strings.Join(s, " "), "nanosleep")
	}
	if !sawSleep {
		t.Errorf("no on-cpu stack of sleep is in nanosleep:\n%s", out)
	}
}

func tailOfAny(s []string, of [][]string) bool {
	for _, o := range of {
		if len(o) >= len(s) && strings.Join(o[len(o)-len(s):], "\n") == strings.Join(s, "\n") {
			return true
		}
	}
	return false
}
