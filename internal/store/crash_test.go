package store

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// crashChildEnv names the store's directory for crashChild.
const crashChildEnv = "SONDE_STORE_CRASH_CHILD"

// crashChild is the test binary re-executed by TestCrash: it appends the
// generators' seconds to the store, from the one after its last, and
// writes each second's number to stdout once its AppendBatch returned,
// until it is killed.
func crashChild() int {
	o := testOptions()
	o.NoSync = false
	db, err := Open(os.Getenv(crashChildEnv), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	first := 0
	if last := db.Last("syscall.latency"); !last.IsZero() {
		first = int(last.Sub(t0)/time.Second) + 1
	}
	for i := first; i < first+1e6; i++ {
		var batch []Sample
		for name, gen := range generators {
			batch = append(batch, Sample{Dataset: name, Second: gen(i)})
		}
		if err := db.AppendBatch(batch); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, err := fmt.Fprintln(os.Stdout, i); err != nil {
			return 1
		}
	}
	return 0
}

// TestCrash kills a process appending to the store (SIGKILL, at a random
// moment), 20 times over the same store: after each, every second whose
// append returned is there, exact, with its minutes and hours, and at most
// the one being appended beyond.
func TestCrash(t *testing.T) {
	dir := t.TempDir()
	reported := -1
	for try := range 20 {
		reported = crashOnce(t, dir, reported, try)
		db := open(t, dir, testOptions())
		for name := range generators {
			got := read(t, db, name, sec(0), sec(reported+10), analytics.PerSecond)
			if len(got) != reported+1 && len(got) != reported+2 {
				t.Fatalf("try %d: %s: %d seconds, %d reported appended", try, name, len(got), reported+1)
			}
			checkSeconds(t, db, name, 0, len(got))
			checkRollups(t, db, name, 0, len(got), (len(got)+59)/60)
		}
		if c := db.Corrupt(); len(c) > 0 {
			t.Fatalf("try %d: corrupt: %v", try, c)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d seconds appended over 20 kills", reported+1)
}

// crashOnce runs crashChild on dir and kills it after a random number of
// appends and a random delay; it returns the last second reported.
func crashOnce(t *testing.T, dir string, reported, try int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(try), 7))
	stopAfter := 1 + r.IntN(300)
	lines := bufio.NewScanner(out)
	for n := 0; n < stopAfter && lines.Scan(); n++ {
		i, err := strconv.Atoi(lines.Text())
		if err != nil || i != reported+1 && reported >= 0 && i <= reported {
			t.Fatalf("try %d: child reported %q after %d", try, lines.Text(), reported)
		}
		reported = i
	}
	time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Seconds reported between the choice and the kill count too.
	for lines.Scan() {
		if i, err := strconv.Atoi(lines.Text()); err == nil {
			reported = i
		}
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("try %d: the child exited by itself", try)
	}
	return reported
}
