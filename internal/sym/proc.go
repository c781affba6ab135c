package sym

// User-space addresses: a process's address space read from
// /proc/PID/maps, each executable mapping's object opened through
// /proc/PID/map_files/<range> (which works for deleted files and for other
// mount namespaces; /proc/PID/root/<path> as a fallback) and its symbols
// read at once, so that a process that has exited by the time its stacks
// are printed can still be symbolised. Parsed objects are shared by every
// process that maps them, keyed by device, inode, modification time and
// size (the vdso by its contents).
//
// Addresses print as libdtrace prints them (dt_consume.c and dt_subr.c in
// illumos): a ustack() frame and uaddr() as dtrace_uaddr2str does,
// usym() and ufunc() (the same action, DT_ACT_USYM, in dt_open.c) as
// dt_print_usym does, umod() as dt_print_umod does. The module is the base
// name of the mapped object (dt_basename of Pobjname): "libc.so.6",
// "sleep"; the vdso is "[vdso]". Names are demangled unless Users.Mangled.
//
// Only functions have symbols: an address in an object's data prints as
// module`0xaddr where DTrace, which also indexes data objects, would name
// the variable.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// How often the cached view of a live process is checked (Snapshot), and
// how soon after reading its mappings an address found in none of them
// makes them be read again (Lookup: a library loaded since).
const (
	checkInterval = time.Second
	missInterval  = 100 * time.Millisecond
)

// mapping is one line of /proc/PID/maps.
type mapping struct {
	start, end, pgoff uint64
	exec              bool
	dev, ino          uint64 // as maps shows them (dev is major<<8 | minor as printed, not st_dev)
	path              string // without " (deleted)"; "" for anonymous memory
	mod               string // module name; "" when none
	deleted           bool   // the path no longer names the mapped file
	file              *File  // nil when not executable, not ELF or unreadable
}

// proc is what is known of one process.
type proc struct {
	maps    []mapping // by start
	id      procID
	readAt  time.Time // when maps was read
	checked time.Time // when the process was last found to be the same
	gone    bool      // the process has exited: nothing more to read
}

// procID tells a process from another that reuses its pid, or from its
// own former self before an exec: its start time and executable.
type procID struct {
	start    uint64
	dev, ino uint64
}

// fileKey identifies the contents of a file.
type fileKey struct {
	dev, ino uint64
	mtime    int64
	size     int64
}

// Users resolves user-space addresses of processes. The zero value is
// ready to use. It is safe for concurrent use (one lock, held while an
// object is parsed); set Mangled before use.
//
// A pid is a process ID (the thread group ID that ustack() records carry);
// a thread ID works too but is cached apart. Parsed objects and process
// mappings are kept until Forget (processes) or for the life of the Users
// (objects). When a pid is reused by a new process, or the process execs,
// the new address space replaces the old one once noticed (Snapshot looks
// at most once a second), so addresses recorded before then resolve
// against the new one.
type Users struct {
	// Mangled prints names as the symbol table has them (DTrace's
	// default is to demangle C++ and Rust names).
	Mangled bool

	mu    sync.Mutex
	procs map[int]*proc
	files map[fileKey]*File // nil: not an ELF object
	vdsos map[[32]byte]*File
	names map[string]string // demangled names
	now   func() time.Time  // for tests
}

func (u *Users) init() {
	if u.procs == nil {
		u.procs = map[int]*proc{}
		u.files = map[fileKey]*File{}
		u.vdsos = map[[32]byte]*File{}
		u.names = map[string]string{}
	}
	if u.now == nil {
		u.now = time.Now
	}
}

// Snapshot reads the address space of process pid and the symbols of the
// objects it maps, and keeps them, so that its addresses can be resolved
// after it has exited. Calling it again is cheap: the process is looked at
// again at most once a second, and its mappings read again only when it
// is a new process (pid reused, or exec). It is an error only when there
// is nothing known of pid and it cannot be read.
func (u *Users) Snapshot(pid int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.init()
	p, err := u.snapshot(pid, false)
	if err != nil && len(p.maps) == 0 {
		return err
	}
	return nil
}

// Refresh reads the mappings of a live process pid again (it may have
// loaded libraries since the last look), keeping what was known when the
// process can no longer be read or maps nothing: a zombie, or a process
// past its exit, has an empty address space, and replacing the last good
// snapshot with it would leave its addresses unnamed.
func (u *Users) Refresh(pid int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.init()
	old := u.procs[pid]
	np, err := u.readProc(pid, old)
	if err != nil || (len(np.maps) == 0 && old != nil && len(old.maps) > 0) {
		if old == nil {
			return err
		}
		return nil
	}
	now := u.now()
	np.readAt, np.checked = now, now
	u.procs[pid] = np
	return nil
}

// Forget drops what is known of process pid.
func (u *Users) Forget(pid int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.procs, pid)
}

// snapshot returns the process, reading or checking it as Snapshot says.
// With reread (an address found in no mapping) it reads the mappings of a
// live process again, unless it did less than missInterval ago. A pid that
// cannot be read is remembered as gone, with whatever was known of it,
// and looked at again once a second in case a new process takes the pid.
func (u *Users) snapshot(pid int, reread bool) (*proc, error) {
	now := u.now()
	p := u.procs[pid]
	if p != nil {
		if reread {
			if p.gone || now.Sub(p.readAt) < missInterval {
				return p, nil
			}
		} else if now.Sub(p.checked) < checkInterval {
			return p, nil
		}
		p.checked = now
		id, err := readProcID(pid)
		if err != nil {
			p.gone = true
			return p, nil
		}
		p.gone = false
		if id == p.id && !reread {
			return p, nil
		}
	}
	np, err := u.readProc(pid, p)
	if err != nil {
		if p == nil {
			p = &proc{}
			u.procs[pid] = p
		}
		p.gone, p.checked = true, now
		return p, err
	}
	np.readAt, np.checked = now, now
	u.procs[pid] = np
	return np, nil
}

// readProcID reads the start time of pid (field 22 of /proc/PID/stat)
// and the identity of its executable.
func readProcID(pid int) (procID, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procID{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procID{}, fmt.Errorf("/proc/%d/stat: bad format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 {
		return procID{}, fmt.Errorf("/proc/%d/stat: bad format", pid)
	}
	var id procID
	if id.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procID{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	var st syscall.Stat_t
	if syscall.Stat(fmt.Sprintf("/proc/%d/exe", pid), &st) == nil {
		id.dev, id.ino = st.Dev, st.Ino
	}
	return id, nil
}

// readProc reads the mappings of pid and opens the objects of the
// executable ones. Objects already open in old (the same process before)
// are not opened again.
func (u *Users) readProc(pid int, old *proc) (*proc, error) {
	id, err := readProcID(pid)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	maps := parseMaps(data)
	root := fmt.Sprintf("/proc/%d/root", pid)
	p := &proc{maps: maps, id: id}
	for i := range maps {
		m := &maps[i]
		if !m.exec || m.mod == "" {
			continue
		}
		if old != nil && old.id == id {
			if om := old.find(m.start); om != nil && om.start == m.start && om.end == m.end &&
				om.pgoff == m.pgoff && om.dev == m.dev && om.ino == m.ino && om.path == m.path {
				m.file = om.file
				continue
			}
		}
		if m.path == "[vdso]" {
			m.file = u.vdso(pid, m)
			continue
		}
		m.file = u.object(pid, m, root)
	}
	return p, nil
}

// object opens and parses (or finds in the cache) the object of m.
func (u *Users) object(pid int, m *mapping, root string) *File {
	f, err := os.Open(fmt.Sprintf("/proc/%d/map_files/%x-%x", pid, m.start, m.end))
	if err != nil {
		if m.deleted {
			return nil // the path now names another file, or none
		}
		if f, err = os.Open(root + m.path); err != nil {
			return nil
		}
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return nil
	}
	key := fileKey{st.Dev, st.Ino, st.Mtim.Nano(), st.Size}
	if ef, ok := u.files[key]; ok {
		return ef
	}
	ef, err := parseFile(f, m.path, root)
	if err != nil {
		ef = nil
	}
	u.files[key] = ef
	return ef
}

// vdso reads the vdso of pid from its memory.
func (u *Users) vdso(pid int, m *mapping) *File {
	if m.end-m.start > 1<<20 {
		return nil
	}
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return nil
	}
	defer mem.Close()
	b := make([]byte, m.end-m.start)
	if _, err := mem.ReadAt(b, int64(m.start)); err != nil {
		return nil
	}
	h := sha256.Sum256(b)
	if f, ok := u.vdsos[h]; ok {
		return f
	}
	f, err := parseFile(bytes.NewReader(b), "[vdso]", "")
	if err != nil {
		f = nil
	}
	u.vdsos[h] = f
	return f
}

// parseMaps parses /proc/PID/maps:
//
//	start-end perms offset major:minor inode [path]
func parseMaps(data []byte) []mapping {
	var maps []mapping
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var fields [5]string
		rest := line
		ok := true
		for i := range fields {
			rest = strings.TrimLeft(rest, " ")
			j := strings.IndexByte(rest, ' ')
			if j < 0 {
				if i < 4 {
					ok = false
					break
				}
				j = len(rest)
			}
			fields[i], rest = rest[:j], rest[j:]
		}
		if !ok {
			continue
		}
		lo, hi, found := strings.Cut(fields[0], "-")
		if !found {
			continue
		}
		var m mapping
		var err1, err2, err3, err4 error
		m.start, err1 = strconv.ParseUint(lo, 16, 64)
		m.end, err2 = strconv.ParseUint(hi, 16, 64)
		m.pgoff, err3 = strconv.ParseUint(fields[2], 16, 64)
		m.ino, err4 = strconv.ParseUint(fields[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || m.end <= m.start {
			continue
		}
		if maj, min, ok := strings.Cut(fields[3], ":"); ok {
			a, _ := strconv.ParseUint(maj, 16, 64)
			b, _ := strconv.ParseUint(min, 16, 64)
			m.dev = a<<8 | b
		}
		m.exec = len(fields[1]) >= 3 && fields[1][2] == 'x'
		m.path = strings.TrimLeft(rest, " ")
		if m.ino != 0 {
			m.path, m.deleted = strings.CutSuffix(m.path, " (deleted)")
		}
		m.mod = modName(m.path, m.ino)
		maps = append(maps, m)
	}
	sort.Slice(maps, func(i, j int) bool { return maps[i].start < maps[j].start })
	return maps
}

// modName is the module name of a mapping of path: the base name of a
// file, "[vdso]" for the vdso, "" for anonymous memory ([heap], [stack],
// [anon:...]).
func modName(path string, ino uint64) string {
	switch {
	case path == "[vdso]":
		return path
	case ino == 0 || path == "":
		return ""
	}
	return filepath.Base(path)
}

// find returns the mapping that contains addr.
func (p *proc) find(addr uint64) *mapping {
	i := sort.Search(len(p.maps), func(i int) bool { return p.maps[i].end > addr })
	if i < len(p.maps) && p.maps[i].start <= addr {
		return &p.maps[i]
	}
	return nil
}

// lookup resolves addr in process pid: the module (or ""), the symbol and
// whether there is one.
func (u *Users) lookup(pid int, addr uint64) (mod string, s Symbol, ok bool) {
	u.init()
	p, _ := u.snapshot(pid, false)
	if p == nil {
		return "", Symbol{}, false
	}
	m := p.find(addr)
	if m == nil && !p.gone {
		if p, _ = u.snapshot(pid, true); p == nil {
			return "", Symbol{}, false
		}
		m = p.find(addr)
	}
	if m == nil {
		return "", Symbol{}, false
	}
	mod = m.mod
	if m.file == nil || !m.exec {
		return mod, Symbol{}, false
	}
	vaddr, ok := m.file.OffsetToVaddr(addr - m.start + m.pgoff)
	if !ok {
		return mod, Symbol{}, false
	}
	s, ok = m.file.Lookup(vaddr)
	if !ok {
		return mod, Symbol{}, false
	}
	// Report the symbol's start as a runtime address.
	s.Value = addr - (vaddr - s.Value)
	return mod, s, true
}

// name is the printed name of s.
func (u *Users) name(s Symbol) string {
	if u.Mangled || !isMangled(s.Name) {
		return s.Name
	}
	d, ok := u.names[s.Name]
	if !ok {
		d = Demangle(s.Name)
		u.names[s.Name] = d
	}
	return d
}

// Lookup resolves the address addr of process pid (reading the process
// if it is not known yet): the module (the base name of the mapped object,
// or "" when addr is in no file), the function (demangled unless Mangled)
// and the offset of addr into it. ok is false when there is no function;
// mod may still be set.
func (u *Users) Lookup(pid int, addr uint64) (mod, fn string, off uint64, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	mod, s, ok := u.lookup(pid, addr)
	if !ok {
		return mod, "", 0, false
	}
	return mod, u.name(s), addr - s.Value, true
}

// uaddr2str is dtrace_uaddr2str: module`function+0xoff, module`function
// at the function's start, module`0xaddr when the module is known but not
// the function, 0xaddr when nothing is known.
func (u *Users) uaddr2str(pid int, addr uint64, withOff bool) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	mod, s, ok := u.lookup(pid, addr)
	switch {
	case ok && withOff && addr > s.Value:
		return fmt.Sprintf("%s`%s+0x%x", mod, u.name(s), addr-s.Value)
	case ok:
		return mod + "`" + u.name(s)
	case mod != "":
		return fmt.Sprintf("%s`0x%x", mod, addr)
	}
	return fmt.Sprintf("0x%x", addr)
}

// FormatFrame formats a ustack() frame as dt_print_ustack does:
// module`function+0xoff, module`function when addr is the function's
// start, module`0xaddr, or 0xaddr.
func (u *Users) FormatFrame(pid int, addr uint64) string { return u.uaddr2str(pid, addr, true) }

// Addr formats uaddr(): as a ustack() frame (dtrace_uaddr2str).
func (u *Users) Addr(pid int, addr uint64) string { return u.uaddr2str(pid, addr, true) }

// Sym formats usym(): as dt_print_usym, which moves the address to the
// start of its function before dtrace_uaddr2str: module`function,
// module`0xaddr when there is no function, or 0xaddr.
func (u *Users) Sym(pid int, addr uint64) string { return u.uaddr2str(pid, addr, false) }

// Func formats ufunc(), which in DTrace is usym() under another name
// (both are DT_ACT_USYM).
func (u *Users) Func(pid int, addr uint64) string { return u.Sym(pid, addr) }

// Mod formats umod() as dt_print_umod: the module, or 0xaddr.
func (u *Users) Mod(pid int, addr uint64) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	mod, _, _ := u.lookup(pid, addr)
	if mod == "" {
		return fmt.Sprintf("0x%x", addr)
	}
	return mod
}
