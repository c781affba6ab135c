// Package tracefs finds the kernel's trace file system and reads what it
// describes: the list of trace events and each event's record layout (its
// "format" file).
//
// The file system is looked for at /sys/kernel/tracing and then at
// /sys/kernel/debug/tracing. When neither is mounted and the caller is root,
// tracefs is mounted at /sys/kernel/tracing; otherwise the error says what is
// missing and how to provide it.
package tracefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// Candidate mount points, in the order they are tried.
const (
	DefaultPath = "/sys/kernel/tracing"
	DebugfsPath = "/sys/kernel/debug/tracing"
)

// ErrNotMounted is wrapped by the error Open returns when no tracefs could be
// found or mounted.
var ErrNotMounted = errors.New("tracefs is not mounted")

// FS is a mounted trace file system.
type FS struct {
	root string
}

// New returns an FS rooted at dir without checking it. It is meant for tests
// and for callers that know where tracefs lives.
func New(dir string) *FS { return &FS{root: dir} }

// Root is the directory tracefs is mounted at.
func (fs *FS) Root() string { return fs.root }

// path joins elements below the root.
func (fs *FS) path(elem ...string) string {
	return filepath.Join(append([]string{fs.root}, elem...)...)
}

var (
	openOnce sync.Once
	openFS   *FS
	openErr  error
)

// Open finds tracefs, mounting it if needed and allowed. The result is
// computed once per process.
func Open() (*FS, error) {
	openOnce.Do(func() {
		openFS, openErr = find(finder{
			candidates: []string{DefaultPath, DebugfsPath},
			isRoot:     os.Geteuid() == 0,
			mount:      mountTracefs,
		})
	})
	return openFS, openErr
}

// Path returns the directory tracefs is mounted at (see Open).
func Path() (string, error) {
	fs, err := Open()
	if err != nil {
		return "", err
	}
	return fs.root, nil
}

// finder holds what find depends on, so tests can vary it.
type finder struct {
	candidates []string
	isRoot     bool
	mount      func(dir string) error
}

func find(f finder) (*FS, error) {
	for _, dir := range f.candidates {
		if isTracefs(dir) {
			return &FS{root: dir}, nil
		}
	}
	target := f.candidates[0]
	if !f.isRoot {
		return nil, fmt.Errorf("%w at %s or %s, and mounting it needs root: "+
			"run as root, or mount it with 'mount -t tracefs nodev %s'",
			ErrNotMounted, f.candidates[0], f.candidates[len(f.candidates)-1], target)
	}
	if _, err := os.Stat(target); err != nil {
		return nil, fmt.Errorf("%w, and %s does not exist: the kernel was built "+
			"without tracefs (CONFIG_TRACING)", ErrNotMounted, target)
	}
	if err := f.mount(target); err != nil {
		return nil, fmt.Errorf("%w, and mounting it at %s failed: %w", ErrNotMounted, target, err)
	}
	if !isTracefs(target) {
		return nil, fmt.Errorf("%w: mounted tracefs at %s, but it is not there", ErrNotMounted, target)
	}
	return &FS{root: target}, nil
}

// isTracefs reports whether dir is the root of a mounted tracefs.
func isTracefs(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return uint32(st.Type) == unix.TRACEFS_MAGIC
}

func mountTracefs(dir string) error {
	return unix.Mount("nodev", dir, "tracefs", 0, "")
}

// Explain adds to a permission error what privilege reading tracefs
// takes: its directory is root's alone (mode 0700), which the capabilities
// that let sonde load and attach programs (CAP_BPF, CAP_PERFMON) do not
// open; CAP_DAC_READ_SEARCH does.
func Explain(err error) error {
	if err == nil || !errors.Is(err, os.ErrPermission) || os.Geteuid() == 0 {
		return err
	}
	return fmt.Errorf("%w: reading tracefs needs CAP_DAC_READ_SEARCH (or root)", err)
}
