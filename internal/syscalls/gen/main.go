// Command gen writes the syscall tables of package syscalls (zsyscalls.go)
// from the kernel's user-space headers:
//
//   - linux/amd64: asm/unistd_64.h (#define __NR_read 0 ...);
//   - i386 ("386"), the numbers of amd64's compat calls: asm/unistd_32.h;
//   - linux/arm64: asm/unistd.h of the arm64 cross headers (Debian's
//     linux-libc-dev-arm64-cross), which sets the __ARCH_WANT_* switches and
//     includes asm-generic/unistd.h; without them, the native
//     asm-generic/unistd.h with arm64's switches as written below.
//
// asm-generic/unistd.h also names each call's kernel entry point
// (__SYSCALL(__NR_umount2, sys_umount)), which is the name of its trace
// event (syscalls:sys_enter_umount). For amd64, whose header has numbers
// only, the few calls whose entry point is named differently are listed in
// amd64Events.
//
// The headers the distribution ships can be older than the kernel. Calls
// that golang.org/x/sys/unix (a dependency of this module, regenerated from
// recent kernels) knows and the headers do not are added from its
// zsysnum_linux_<arch>.go, and marked so in the output.
//
// Run it with go generate in internal/syscalls.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// amd64Events maps amd64 calls to their entry point's name where it differs
// (arch/x86/entry/syscalls/syscall_64.tbl).
var amd64Events = map[string]string{
	"stat":     "newstat",
	"fstat":    "newfstat",
	"lstat":    "newlstat",
	"uname":    "newuname",
	"umount2":  "umount",
	"sendfile": "sendfile64",
}

// arm64Events lists arm64's overrides of asm-generic's entry points
// (arch/arm64/kernel/sys.c).
var arm64Events = map[string]string{
	"personality": "arm64_personality",
}

// arm64Wants are the switches arch/arm64/include/uapi/asm/unistd.h sets
// before including asm-generic/unistd.h (Linux 6.1), used when the arm64
// cross headers are not installed.
var arm64Wants = []string{
	"__ARCH_WANT_RENAMEAT", "__ARCH_WANT_NEW_STAT", "__ARCH_WANT_SET_GET_RLIMIT",
	"__ARCH_WANT_TIME32_SYSCALLS", "__ARCH_WANT_SYS_CLONE3", "__ARCH_WANT_MEMFD_SECRET",
}

type call struct {
	name  string
	nr    int
	event string // "" when it is the name
	xsys  bool   // added from golang.org/x/sys
}

type table struct {
	arch    string
	calls   []call
	sources []string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	out := flag.String("o", "zsyscalls.go", "output file")
	amd64H := flag.String("amd64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "amd64 unistd header")
	i386H := flag.String("386", "/usr/include/x86_64-linux-gnu/asm/unistd_32.h", "i386 unistd header (amd64's compat calls)")
	arm64H := flag.String("arm64", "/usr/aarch64-linux-gnu/include/asm/unistd.h", "arm64 unistd header (cross headers)")
	genericH := flag.String("generic", "/usr/include/asm-generic/unistd.h", "asm-generic unistd header, used for arm64 without cross headers")
	xsys := flag.String("xsys", "", "golang.org/x/sys directory (default: from go list; \"none\" to skip)")
	flag.Parse()

	if *xsys == "" {
		*xsys = xsysDir()
	}
	var tables []*table
	t, err := readAMD64(*amd64H)
	if err != nil {
		log.Fatal(err)
	}
	tables = append(tables, t)
	if t, err = read386(*i386H); err != nil {
		log.Fatal(err)
	}
	tables = append(tables, t)
	if t, err = readARM64(*arm64H, *genericH); err != nil {
		log.Printf("arm64 table left out: %v", err)
	} else {
		tables = append(tables, t)
	}
	for _, t := range tables {
		if err := t.supplement(*xsys); err != nil {
			log.Fatal(err)
		}
	}
	src, err := render(tables)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

func readAMD64(header string) (*table, error) {
	p := &cpp{macros: map[string]string{}, onLine: func(string) {}}
	if err := p.file(header); err != nil {
		return nil, err
	}
	t := &table{arch: "amd64", sources: []string{header + headersVersion(header)}}
	for name, nr := range numbers(p) {
		t.calls = append(t.calls, call{name: name, nr: nr, event: amd64Events[name]})
	}
	return t, nil
}

// read386 reads the i386 table, whose numbers an amd64 kernel's
// raw_syscalls tracepoints report for a compat (32-bit) system call.
func read386(header string) (*table, error) {
	p := &cpp{macros: map[string]string{}, onLine: func(string) {}}
	if err := p.file(header); err != nil {
		return nil, err
	}
	t := &table{arch: "386", sources: []string{header + headersVersion(header)}}
	for name, nr := range numbers(p) {
		t.calls = append(t.calls, call{name: name, nr: nr})
	}
	return t, nil
}

func readARM64(archH, genericH string) (*table, error) {
	p := &cpp{macros: map[string]string{"__BITS_PER_LONG": "64"}}
	entries := map[string]string{} // __NR macro -> entry point
	p.onLine = func(line string) { tableLine(line, entries) }
	src, verFrom := archH, archH
	if _, err := os.Stat(archH); err == nil {
		// <include>/asm/unistd.h -> <include>
		p.incDirs = []string{filepath.Dir(filepath.Dir(archH))}
		if err := p.file(archH); err != nil {
			return nil, err
		}
	} else {
		if _, err := os.Stat(genericH); err != nil {
			return nil, fmt.Errorf("neither %s nor %s is installed", archH, genericH)
		}
		for _, w := range arm64Wants {
			p.macros[w] = ""
		}
		src, verFrom = genericH+" with arm64's __ARCH_WANT_* switches", genericH
		if err := p.file(genericH); err != nil {
			return nil, err
		}
	}
	t := &table{arch: "arm64", sources: []string{src + headersVersion(verFrom)}}
	for name, nr := range numbers(p) {
		ev := entryOf("__NR_"+name, p, entries)
		ev = strings.TrimPrefix(ev, "sys_")
		if ev == "ni_syscall" || ev == name {
			ev = ""
		}
		if o, ok := arm64Events[name]; ok {
			ev = o
		}
		t.calls = append(t.calls, call{name: name, nr: nr, event: ev})
	}
	return t, nil
}

// numbers returns every __NR_ macro that evaluates to a syscall number.
func numbers(p *cpp) map[string]int {
	m := map[string]int{}
	for mac, val := range p.macros {
		name, ok := strings.CutPrefix(mac, "__NR_")
		if !ok || val == "()" || name == "syscalls" || name == "arch_specific_syscall" {
			continue
		}
		nr, err := p.value(mac, 0)
		if err != nil {
			log.Fatal(err)
		}
		m[name] = int(nr)
	}
	return m
}

var tableLineRE = regexp.MustCompile(`^(__SYSCALL|__SC_COMP|__SC_3264|__SC_COMP_3264)\s*\((.*)\)`)

// tableLine records the entry point that a 64-bit, non-compat kernel uses
// for the call a line such as "__SC_3264(__NR3264_mmap, sys_mmap2, sys_mmap)"
// describes.
func tableLine(line string, entries map[string]string) {
	m := tableLineRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	args := strings.Split(m[2], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	pick := map[string]int{"__SYSCALL": 1, "__SC_COMP": 1, "__SC_3264": 2, "__SC_COMP_3264": 2}[m[1]]
	if pick < len(args) {
		entries[args[0]] = args[pick]
	}
}

// entryOf follows a macro chain (__NR_fcntl -> __NR3264_fcntl) to the macro
// the table line named.
func entryOf(mac string, p *cpp, entries map[string]string) string {
	for i := 0; i < 8; i++ {
		if e, ok := entries[mac]; ok {
			return e
		}
		next, ok := p.macros[mac]
		if !ok || !isIdent(next) {
			break
		}
		mac = next
	}
	return ""
}

var xsysRE = regexp.MustCompile(`(?m)^\s*SYS_([A-Z0-9_]+)\s*=\s*([0-9]+)`)

// supplement adds the calls that x/sys knows and the headers do not.
func (t *table) supplement(dir string) error {
	if dir == "none" {
		return nil
	}
	name := filepath.Join(dir, "unix", "zsysnum_linux_"+t.arch+".go")
	data, err := os.ReadFile(name)
	if err != nil {
		log.Printf("%s: no newer calls added: %v", t.arch, err)
		return nil
	}
	byName, byNr := map[string]int{}, map[int]string{}
	for _, c := range t.calls {
		byName[c.name], byNr[c.nr] = c.nr, c.name
	}
	added := 0
	for _, m := range xsysRE.FindAllStringSubmatch(string(data), -1) {
		n := strings.ToLower(m[1])
		nr, _ := strconv.Atoi(m[2])
		if n == "arch_specific_syscall" {
			continue // a range's base, not a call
		}
		if have, ok := byName[n]; ok {
			if have != nr {
				return fmt.Errorf("%s: %s is %d in the headers and %d in %s", t.arch, n, have, nr, name)
			}
			continue
		}
		if other, ok := byNr[nr]; ok {
			log.Printf("%s: %s names %d, which the headers call %s; kept %s", t.arch, name, nr, other, other)
			continue
		}
		t.calls = append(t.calls, call{name: n, nr: nr, xsys: true})
		byName[n], byNr[nr] = nr, n
		added++
	}
	t.sources = append(t.sources, fmt.Sprintf("golang.org/x/sys/unix/zsysnum_linux_%s.go%s: %d newer calls",
		t.arch, xsysVersion(dir), added))
	return nil
}

func render(tables []*table) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./gen; DO NOT EDIT.\n//\n// Sources:\n")
	for _, t := range tables {
		for _, s := range t.sources {
			fmt.Fprintf(&b, "//   %s: %s\n", t.arch, s)
		}
	}
	b.WriteString("\npackage syscalls\n\n")
	b.WriteString("var generated = map[string][]Syscall{\n")
	for _, t := range tables {
		sort.Slice(t.calls, func(i, j int) bool { return t.calls[i].nr < t.calls[j].nr })
		fmt.Fprintf(&b, "%q: {\n", t.arch)
		for _, c := range t.calls {
			fmt.Fprintf(&b, "{Name: %q, Nr: %d", c.name, c.nr)
			if c.event != "" {
				fmt.Fprintf(&b, ", Event: %q", c.event)
			}
			b.WriteString("},")
			if c.xsys {
				b.WriteString(" // from x/sys")
			}
			b.WriteString("\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// headersVersion reads LINUX_VERSION_* from the linux/version.h beside a
// unistd header (<include>/asm/unistd.h or <include>/<triple>/asm/...).
func headersVersion(header string) string {
	for dir := filepath.Dir(header); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "linux", "version.h"))
		if err != nil {
			continue
		}
		v := map[string]string{}
		for _, m := range regexp.MustCompile(`#define LINUX_VERSION_(\w+) (\d+)`).FindAllStringSubmatch(string(data), -1) {
			v[m[1]] = m[2]
		}
		if v["MAJOR"] != "" {
			return fmt.Sprintf(" (Linux %s.%s headers)", v["MAJOR"], v["PATCHLEVEL"])
		}
	}
	return ""
}

func xsysDir() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if err != nil {
		log.Printf("go list golang.org/x/sys: %v", err)
		return "none"
	}
	return strings.TrimSpace(string(out))
}

func xsysVersion(dir string) string {
	if _, v, ok := strings.Cut(filepath.Base(dir), "@"); ok {
		return " (" + v + ")"
	}
	return ""
}
