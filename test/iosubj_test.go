package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/testenv"
)

// TestIOStartMaker: io:::start credits each request to the thread that
// made it, as DTrace's does (it fires in the thread that called
// bdev_strategy), though Linux issues a request in whichever thread
// dispatches the disk's queue. Two dd's of unique names write 4,000
// O_DIRECT blocks each at once to one disk of the test's own, with an I/O
// scheduler (mq-deadline), whose queue either writer dispatches: each is
// counted exactly 4,000 requests, of 512 bytes each, with its own pid,
// tid and self-> variables.
// Before the maker was carried from block_io_start, the writers took tens
// to hundreds of each other's requests, and kworkers some.
func TestIOStartMaker(t *testing.T) {
	const n = 4000
	loop := testenv.LoopDevice(t) // 4 MiB: room for both
	sched := "/sys/block/" + filepath.Base(loop) + "/queue/scheduler"
	if err := os.WriteFile(sched, []byte("mq-deadline"), 0o644); err != nil {
		t.Fatalf("%s: %v (the test needs the mq-deadline I/O scheduler)", sched, err)
	}
	var names, paths []string
	for _, p := range []string{"sioa", "siob"} {
		name, path := uniqueDD(t, p)
		names, paths = append(names, name), append(paths, path)
	}
	var sh []string
	for i, p := range paths {
		sh = append(sh, fmt.Sprintf("%s if=/dev/zero of=%s bs=512 count=%d seek=%d oflag=direct status=none &", p, loop, n, i*n))
	}
	script := strings.Join(sh, " ") + " wait"
	out, _ := runSonde(t, "-q", "-n", `
		syscall::write:entry /execname == "`+names[0]+`" || execname == "`+names[1]+`"/ { self->tid = tid; }
		io:::start /execname == "`+names[0]+`" || execname == "`+names[1]+`"/ {
			@n[execname] = count();
			@bytes[execname] = sum(args[0]->b_bcount);
			@pids[execname, pid] = count();
			@self[execname] = sum(self->tid == tid && tid == curthread->pid);
		}
		END {
			printa("n %s %@d\n", @n);
			printa("bytes %s %@d\n", @bytes);
			printa("pid %s %d %@d\n", @pids);
			printa("self %s %@d\n", @self);
		}`, "-c", "sh -c '"+script+"'")
	for _, name := range names {
		if got := field(out, `n `+name+` (\d+)`); got != n {
			t.Errorf("%s: %d requests at io:::start, want exactly %d\n%s", name, got, n, out)
		}
		if got := field(out, `bytes `+name+` (\d+)`); got != n*512 {
			t.Errorf("%s: %d bytes at io:::start, want exactly %d\n%s", name, got, n*512, out)
		}
		if got := field(out, `self `+name+` (\d+)`); got != n {
			t.Errorf("%s: self-> of the thread that made the request in %d of its io:::start, want %d\n%s", name, got, n, out)
		}
		if pids := regexp.MustCompile(`(?m)^pid `+name+` \d+ \d+$`).FindAllString(out, -1); len(pids) != 1 {
			t.Errorf("%s: io:::start gave %d pids, want 1\n%s", name, len(pids), out)
		}
	}
}

// field returns the number re's first group captures in s, -1 without a
// match.
func field(s, re string) int {
	m := regexp.MustCompile(`(?m)^` + re + `$`).FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	k, _ := strconv.Atoi(m[1])
	return k
}

// TestIOStartMakerStacks: stack() and ustack() in io:::start are the
// stacks of the thread that made the request, where it made it (as
// DTrace's are where bdev_strategy was called), not those of the thread
// that issues it: every kernel stack of a dd's 2,000 O_DIRECT writes is
// the write(2) path into blk_mq_submit_bio, none the dispatch path
// (blk_mq_start_request, where io:::start runs), and its user stack is in
// write. Before, stack() showed the issuing thread's stack, and then was
// refused.
func TestIOStartMakerStacks(t *testing.T) {
	const n = 2000
	loop := testenv.LoopDevice(t)
	name, path := uniqueDD(t, "siostk")
	out, _ := runSonde(t, "-q", "-n", `
		io:::start /execname == "`+name+`"/ { @k[stack()] = count(); @u[ustack()] = count(); }
		END { printa("kernel%k@%@d\n", @k); printa("user%k@%@d\n", @u); }`,
		"-c", fmt.Sprintf("%s if=/dev/zero of=%s bs=512 count=%d oflag=direct status=none", path, loop, n))
	counts := map[string]int{}
	re := regexp.MustCompile(`(?s)(kernel|user)(.*?)@(\d+)\n`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		k, _ := strconv.Atoi(m[3])
		counts[m[1]] += k
		frames := m[2]
		switch m[1] {
		case "kernel":
			if !strings.Contains(frames, "blk_mq_submit_bio") || !strings.Contains(frames, "ksys_write") || strings.Contains(frames, "blk_mq_start_request") {
				t.Errorf("a kernel stack at io:::start is not the write path that made the request (%d requests):%s", k, frames)
			}
		case "user":
			if !strings.Contains(frames, "write") {
				t.Errorf("a user stack at io:::start is not in write (%d requests):%s", k, frames)
			}
		}
	}
	if counts["kernel"] != n || counts["user"] != n {
		t.Errorf("stacks of %d and %d requests, want %d each\n%s", counts["kernel"], counts["user"], n, out)
	}
}
