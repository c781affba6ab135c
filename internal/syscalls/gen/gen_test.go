package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestReadARM64(t *testing.T) {
	tab, err := readARM64("testdata/asm/unistd.h", "testdata/asm-generic/unistd.h")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range tab.calls {
		got = append(got, fmt.Sprintf("%s=%d:%s", c.name, c.nr, c.event))
	}
	sort.Strings(got)
	want := "fcntl=25: io_getevents=4: io_setup=0: newfstatat=79: nfsservctl=42: " +
		"personality=92:arm64_personality renameat=38: sync_file_range=84: umount2=39:umount"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestIfExpressions(t *testing.T) {
	p := &cpp{macros: map[string]string{"A": "", "B": "2", "C": "B", "__BITS_PER_LONG": "64"}}
	for expr, want := range map[string]bool{
		"defined(A)":                     true,
		"defined A && !defined(Z)":       true,
		"B == 2":                         true,
		"C == 2":                         true,
		"Z":                              false,
		"__BITS_PER_LONG != 32 || Z":     true,
		"(Z || B > 1) && !(B < 2)":       true,
		"__BITS_PER_LONG == 32 || Z > 0": false,
	} {
		got, err := p.test("if", expr)
		if err != nil || got != want {
			t.Errorf("#if %s: got %v, %v; want %v", expr, got, err, want)
		}
	}
	if _, err := p.test("if", "B +"); err == nil {
		t.Error("#if B +: no error")
	}
}

func TestStripComments(t *testing.T) {
	in := "a /* one\ntwo */ b // three\nc"
	if got := stripComments(in); got != "a \n  b \nc" {
		t.Errorf("got %q", got)
	}
}
