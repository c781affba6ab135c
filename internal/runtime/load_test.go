package runtime_test

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/tracer"
)

// Every program here must compile and pass the kernel's verifier.
var loadable = []string{
	`BEGIN { printf("hello %d\n", 42); exit(0); }`,
	`BEGIN { trace(pid); trace(execname); }`,
	`syscall::read:entry { @[execname] = count(); }`,
	`syscall:::entry { @[probefunc] = count(); }`,
	`syscall:::entry,syscall:::return { @[probefunc, probename] = count(); }`,
	`syscall::*read*:entry /pid != 0/ { @[pid, tid] = sum(arg2); }`,
	`syscall::read:return /arg0 > 0/ { @ = quantize(arg0); }`,
	`syscall::write:entry { @ = lquantize(arg2, 0, 100, 10); @b = llquantize(arg2, 10, 0, 6, 20); }`,
	`syscall::read:entry { self->ts = timestamp; } syscall::read:return /self->ts/ { @[execname] = avg(timestamp - self->ts); self->ts = 0; }`,
	`syscall::openat:entry { printf("%s %s\n", execname, copyinstr(arg1)); }`,
	`syscall::openat:entry /execname == "cat"/ { this->f = copyinstr(arg1); @[this->f] = count(); }`,
	`syscall::write:entry { @a = min(arg2); @b = max(arg2); @c = stddev(arg2); @d = avg(arg2); }`,
	`int x; BEGIN { x = 5; x += 3; printf("%d\n", x / 2); exit(0); }`,
	`BEGIN { a["foo", 1] = 3; b = a["foo", 1]; trace(b); exit(0); }`,
	`BEGIN { s = "hello"; t = strlen(s); printf("%s %d\n", s, t); exit(0); }`,
	`syscall::read:entry { if (arg2 > 100) { @big = count(); } else { @small = count(); trace(arg2); } }`,
	`profile-997 /arg1/ { @[pid] = count(); }`,
	`tick-1s { printa(@x); } syscall::read:entry { @x[probefunc] = count(); }`,
	`BEGIN { trace(ppid); trace(uid); trace(walltimestamp); exit(0); }`,
	`syscall::read:entry { @[stack()] = count(); @u[ustack()] = count(); }`,
}

func TestLoad(t *testing.T) {
	for _, src := range loadable {
		res, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}}, Options: []string{"nolibs"}})
		if err != nil {
			t.Errorf("%s\ncompile: %v", src, err)
			continue
		}
		s, err := runtime.Load(res.Plan, &runtime.Options{Verbose: true})
		if err != nil {
			t.Errorf("%s\nload: %v", src, err)
			continue
		}
		s.Close()
	}
}
