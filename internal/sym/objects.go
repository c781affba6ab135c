package sym

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Object is an ELF object mapped executable by a process: what the pid
// and USDT providers instrument.
type Object struct {
	Path string // as the process sees it (/proc/PID/maps)
	// Open is the path to open it by from here: through the process's
	// root, so that it names the mapped file in another mount namespace.
	Open string
	Mod  string // module name: the base name of Path
	Main bool   // the process's executable
	Dev  uint64 // device and inode as /proc/PID/maps shows them
	Ino  uint64
	// Base is the address of the object's first mapping (its lowest
	// address): a PIE's load bias is Base minus its first PT_LOAD's
	// page-aligned vaddr.
	Base uint64
}

// Objects lists the file-backed objects process pid maps executable, in
// address order, each once. It fails when the process does not exist or
// cannot be read.
func Objects(pid int) ([]Object, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("pid %d: %w", pid, syscall.ESRCH)
		}
		return nil, err
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	root := fmt.Sprintf("/proc/%d/root", pid)
	maps := parseMaps(data)
	lowest := map[string]uint64{}
	for _, m := range maps {
		if m.ino != 0 && m.path != "" {
			if b, ok := lowest[m.path]; !ok || m.start < b {
				lowest[m.path] = m.start
			}
		}
	}
	seen := map[string]bool{}
	var out []Object
	for _, m := range maps {
		if !m.exec || m.ino == 0 || m.path == "" || m.path[0] != '/' || seen[m.path] {
			continue
		}
		seen[m.path] = true
		out = append(out, Object{Path: m.path, Open: filepath.Join(root, m.path), Mod: m.mod,
			Main: m.path == exe, Dev: m.dev, Ino: m.ino, Base: lowest[m.path]})
	}
	return out, nil
}

// FirstLoad is the page-aligned virtual address of the object's first
// PT_LOAD segment: a relocatable object's load bias is the address it is
// mapped at (Object.Base) minus this.
func (f *File) FirstLoad() uint64 {
	if len(f.loads) == 0 {
		return 0
	}
	return f.loads[0].vaddr &^ 0xfff
}
