package test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fdsWorkload mounts a tmpfs of the test's own and returns its mount
// point and a command that makes exactly 100 write(2)s to a file on it,
// then 101 read(2)s of it (the last at its end).
func fdsWorkload(t *testing.T) (string, string) {
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := unix.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("sonde-fds", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mounting a tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	f := filepath.Join(mnt, "f")
	cmd := fmt.Sprintf("/bin/sh -c 'dd if=/dev/zero of=%s bs=512 count=100 2>/dev/null; dd if=%s of=/dev/null bs=512 2>/dev/null'", f, f)
	return mnt, cmd
}

// The DTrace book's fsrwcount.d, unchanged: fds[arg0].fi_fs and fi_mount
// key the counts, and the writes and reads of a file on a mount of the
// test's own are counted exactly under it.
func TestFsrwcount(t *testing.T) {
	mnt, cmd := fdsWorkload(t)
	out, stderr := runSonde(t, "-s", "../examples/scripts/fsrwcount.d", "-c", cmd)
	counts := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 4 && f[2] == mnt {
			n, _ := strconv.Atoi(f[3])
			counts[f[0]+" "+f[1]] = n
		}
	}
	if counts["tmpfs write"] != 100 || counts["tmpfs read"] != 101 || len(counts) != 2 {
		t.Errorf("counts under %s: %v, want tmpfs write 100 and tmpfs read 101\n%s\n%s", mnt, counts, out, stderr)
	}
}

// The DTrace book's fsrwtime.d, unchanged: the distributions of the
// write and read times of a file on a mount of the test's own hold 100
// and 101 calls.
func TestFsrwtime(t *testing.T) {
	mnt, cmd := fdsWorkload(t)
	out, stderr := runSonde(t, "-s", "../examples/scripts/fsrwtime.d", "-c", cmd)
	counts := map[string]int{}
	key := ""
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 4 && f[2] == "(us)":
			key = ""
			if f[3] == mnt {
				key = f[0] + " " + f[1]
			}
		case key != "" && len(f) == 3 && strings.HasPrefix(f[1], "|"):
			n, _ := strconv.Atoi(f[2])
			counts[key] += n
		}
	}
	if counts["tmpfs write"] != 100 || counts["tmpfs read"] != 101 || len(counts) != 2 {
		t.Errorf("calls under %s: %v, want tmpfs write 100 and tmpfs read 101\n%s\n%s", mnt, counts, out, stderr)
	}
}
