package io_test

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/io"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Provider: "io", Name: "start"}, "io::block_rq_issue:start"},
		{provider.Desc{Provider: "io"}, "io::block_rq_issue:start io::block_rq_complete:done"},
		{provider.Desc{Name: "done"}, "io::block_rq_complete:done"},
		{provider.Desc{Provider: "io", Name: "wait-start"}, ""},
		{provider.Desc{Provider: "io", Name: "wait-done"}, ""},
		{provider.Desc{Provider: "io", Module: "sd0", Name: "start"}, ""},
	} {
		var got []string
		for _, p := range providertest.Probes(t, io.Provider{}, c.d) {
			got = append(got, p.FullName())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
	for i, p := range providertest.Probes(t, io.Provider{}, provider.Desc{}) {
		if p.ID != uint32(i) || p.ID >= io.NumLocal() {
			t.Errorf("%s: local ID %d outside [0, %d)", p.FullName(), p.ID, io.NumLocal())
		}
		var args []string
		for _, a := range p.Args {
			args = append(args, a.Type+" -> "+a.XType+" "+a.Struct.Name)
		}
		if got := strings.Join(args, ", "); got != "struct request * -> bufinfo_t * bufinfo_t, struct request * -> devinfo_t * devinfo_t" {
			t.Errorf("%s: args %s", p.FullName(), got)
		}
		if p.Hook != (provider.Hook{Kind: provider.HookBTFTP, Name: p.Function, Group: p.Name}) {
			t.Errorf("%s: hook %+v", p.FullName(), p.Hook)
		}
		// start fires for the thread that made the request (the code
		// generator keeps it from block_io_start), done where it completes
		if want := map[string]int{"start": provider.SubjectRequest, "done": 0}[p.Name]; p.Subject != want {
			t.Errorf("%s: subject %d, want %d", p.FullName(), p.Subject, want)
		}
	}
	if _, ok := io.BufinfoT.Member("b_flags"); !ok {
		t.Error("bufinfo_t has no b_flags")
	}
}

var needs = provider.Needs{Args: [10]bool{true, true}}

// A direct write and read of a file on a block device: start fires in
// our thread with the request's size, direction and device; done
// completes the same block.
func TestFire(t *testing.T) {
	start, done := providertest.Probes(t, io.Provider{}, provider.Desc{Name: "start"})[0], providertest.Probes(t, io.Provider{}, provider.Desc{Name: "done"})[0]
	for _, n := range []provider.Needs{{}, needs} {
		runtimetest.Load(t, runtimetest.Spec{Provider: io.Provider{}, Hook: start.Hook, Probes: []*provider.Probe{start}, Needs: n})
	}
	ls := runtimetest.Load(t, runtimetest.Spec{Provider: io.Provider{}, Hook: start.Hook, Probes: []*provider.Probe{start}, Needs: needs, PID: os.Getpid()})
	ld := runtimetest.Load(t, runtimetest.Spec{Provider: io.Provider{}, Hook: done.Hook, Probes: []*provider.Probe{done}, Needs: needs})

	dir := t.TempDir()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	major, minor := int64(unix.Major(st.Dev)), int64(unix.Minor(st.Dev))
	if _, err := os.Stat("/sys/dev/block/" + itoa(major) + ":" + itoa(minor)); err != nil {
		t.Fatalf("%s is not on a block device (%d:%d): the io provider needs one to test", dir, major, minor)
	}
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	const size = 8192
	buf := aligned(size)
	for i := range buf {
		buf[i] = byte(i)
	}
	fd, err := unix.Open(filepath.Join(dir, "f"), unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT|unix.O_SYNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if n, err := unix.Pwrite(fd, buf, 0); n != size || err != nil {
		t.Fatalf("direct write: %d, %v", n, err)
	}
	_ = unix.Fdatasync(fd)
	if n, err := unix.Pread(fd, buf, 0); n != size || err != nil {
		t.Fatalf("direct read: %d, %v", n, err)
	}
	b := io.BufinfoT
	d := io.DevinfoT
	var writes, reads, completed int
	blocks := map[int64]int64{} // b_blkno -> the flags of our requests
	for _, f := range ls.Firings(t) {
		if f.ID != uint64(start.ID) {
			t.Errorf("io:::start: probe ID %d", f.ID)
		}
		if f.Tid != tid {
			continue
		}
		flags, count := f.Int(providertest.Member(t, b, "b_flags")), f.Int(providertest.Member(t, b, "b_bcount"))
		if f.Int(providertest.Member(t, d, "dev_major")) != major || f.Int(providertest.Member(t, d, "dev_minor")) != minor ||
			f.Int(providertest.Member(t, b, "b_edev")) != major<<20|minor || f.String(providertest.Member(t, d, "dev_statname")) != devName(t, major, minor) {
			t.Errorf("io:::start: device %d:%d edev %#x %q, want %d:%d %q", f.Int(providertest.Member(t, d, "dev_major")), f.Int(providertest.Member(t, d, "dev_minor")),
				f.Int(providertest.Member(t, b, "b_edev")), f.String(providertest.Member(t, d, "dev_statname")), major, minor, devName(t, major, minor))
		}
		switch {
		case flags == 0x100 && count > 0 && count <= size && count%512 == 0:
			writes++
		case flags == 0x40 && count > 0 && count <= size && count%512 == 0:
			reads++
		case flags == 0x100 && count == 0:
			// a flush (O_SYNC)
		default:
			t.Errorf("io:::start in our thread: b_flags %#x b_bcount %d", flags, count)
		}
		if count > 0 {
			blocks[f.Int(providertest.Member(t, b, "b_blkno"))] |= flags
		}
	}
	if writes == 0 || reads == 0 {
		t.Fatalf("io:::start: %d writes and %d reads of up to %d bytes in our thread, want both", writes, reads, size)
	}
	for _, f := range ld.Firings(t) {
		flags, ok := blocks[f.Int(providertest.Member(t, b, "b_blkno"))]
		if !ok || f.Int(providertest.Member(t, d, "dev_major")) != major || f.Int(providertest.Member(t, d, "dev_minor")) != minor {
			continue
		}
		if f.Int(providertest.Member(t, b, "b_flags"))&flags == 0 || f.Int(providertest.Member(t, b, "b_error")) != 0 || f.Int(providertest.Member(t, b, "b_bcount")) <= 0 {
			t.Errorf("io:::done of block %d: b_flags %#x (start %#x) b_error %d b_bcount %d", f.Int(providertest.Member(t, b, "b_blkno")),
				f.Int(providertest.Member(t, b, "b_flags")), flags, f.Int(providertest.Member(t, b, "b_error")), f.Int(providertest.Member(t, b, "b_bcount")))
		}
		completed++
	}
	if completed == 0 {
		t.Error("io:::done fired for none of our requests' blocks")
	}
}

// aligned returns n bytes aligned for O_DIRECT.
func aligned(n int) []byte {
	b := make([]byte, n+4096)
	off := 4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)
	return b[off : off+n]
}

func devName(t *testing.T, major, minor int64) string {
	t.Helper()
	link, err := os.Readlink("/sys/dev/block/" + itoa(major) + ":" + itoa(minor))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Base(link)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
