package sym

import (
	"bufio"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Test programs. Each prints one line of addresses (hex, space-separated)
// and then waits for its standard input to close.

// progC has a local function, sonde_target, and prints its address.
const progC = `#include <stdio.h>
static __attribute__((noinline)) int sonde_target(int x) {
	volatile int y = x;
	y = y * 3 + 1;
	return y;
}
int main(void) {
	printf("%p\n", (void *)sonde_target);
	fflush(stdout);
	int r = sonde_target(1);
	while (getchar() != EOF)
		;
	return r == 4 ? 0 : 1;
}
`

// libC is a shared library with a function to find and, for the choice
// between symbols at one address, aliases.
const libC = `int lib_target(int x) {
	volatile int y = x;
	y = y * 5 + 2;
	return y;
}
void __impl(void) {}
void impl(void) __attribute__((weak, alias("__impl")));
static void local_impl(void) __attribute__((alias("__impl"), used));
void zed(void) {}
void abc(void) __attribute__((weak, alias("zed")));
`

// useLibC calls lib_target in libsonde.so and prints its address.
const useLibC = `#include <stdio.h>
extern int lib_target(int);
int main(void) {
	printf("%p\n", (void *)lib_target);
	fflush(stdout);
	lib_target(1);
	while (getchar() != EOF)
		;
	return 0;
}
`

// libCxx has a C++ method that prints the address it returns to (inside
// ns::Class::method), and a C function that calls it.
const libCxx = `#include <cstdio>
extern "C" __attribute__((noinline)) void report(void) {
	std::printf("%p ", __builtin_return_address(0));
}
namespace ns {
struct Class {
	int method(int);
};
__attribute__((noinline)) int Class::method(int x) {
	report();
	return x + 1;
}
}
extern "C" int call_method(int x) {
	ns::Class c;
	return c.method(x);
}
`

// useCxxC prints the address in ns::Class::method, then that of
// call_method.
const useCxxC = `#include <stdio.h>
extern int call_method(int);
int main(void) {
	call_method(1);
	printf("%p\n", (void *)call_method);
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
`

// dlopenC prints "ready", waits for a line, loads the library its
// argument names and prints the address of lib_target in it.
const dlopenC = `#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
	printf("ready\n");
	fflush(stdout);
	getchar();
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL)
		return 1;
	printf("%p\n", dlsym(h, "lib_target"));
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
`

// need skips the test unless the tools are installed.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// run runs a command, failing the test if it fails.
func run(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// compile writes src to dir/file and compiles it with cc into dir/out.
func compile(t *testing.T, cc, dir, file, src, out string, flags ...string) string {
	t.Helper()
	need(t, cc)
	in := filepath.Join(dir, file)
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := filepath.Join(dir, out)
	args := append([]string{"-O0", "-g", "-Wl,--build-id", "-o", o, in}, flags...)
	run(t, cc, args...)
	return o
}

// child is a running test program.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// start runs a test program.
func start(t *testing.T, path string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd, stdin, bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// line reads a line of output.
func (c *child) line(t *testing.T) string {
	t.Helper()
	done := make(chan bool, 1)
	go func() { done <- c.out.Scan() }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatalf("pid %d: no output: %v", c.pid(), c.out.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("pid %d: no output in 10s", c.pid())
	}
	return c.out.Text()
}

// addrs reads a line of hex addresses.
func (c *child) addrs(t *testing.T) []uint64 {
	t.Helper()
	var as []uint64
	for _, f := range strings.Fields(c.line(t)) {
		a, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("bad address %q", f)
		}
		as = append(as, a)
	}
	return as
}

// exit closes the program's input and waits for it to exit.
func (c *child) exit(t *testing.T) {
	t.Helper()
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("pid %d: %v", c.pid(), err)
	}
}

// elfSym returns the value and size of the named symbol of the ELF file
// at path, read with debug/elf alone (not with the code under test).
func elfSym(t *testing.T, path, name string) (value, size uint64) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if s.Name == name {
			return s.Value, s.Size
		}
	}
	t.Fatalf("%s: no symbol %s", path, name)
	return 0, 0
}
