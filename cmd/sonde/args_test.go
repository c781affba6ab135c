package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/tracer"
)

// Command lines as dtrace(1) reads them: flags grouped, an option's value
// in the same word or the next, sources in order, macro arguments after.
func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want config
	}{
		{[]string{"-n", "BEGIN"}, config{sources: []tracer.Source{{Kind: tracer.Inline, Text: "BEGIN"}}}},
		{[]string{"-qn", "BEGIN", "-s", "x.d"}, config{quiet: true,
			sources: []tracer.Source{{Kind: tracer.Inline, Text: "BEGIN"}, {Kind: tracer.File, Text: "x.d"}}}},
		{[]string{"-xbufsize=8m", "-x", "quiet", "-Zw"}, config{xopts: []string{"bufsize=8m", "quiet"}, zero: true, destruct: true}},
		{[]string{"-Fq"}, config{xopts: []string{"flowindent"}, quiet: true}},
		{[]string{"-lP", "syscall", "-m", "vmlinux", "-f", "read", "-i", "12"}, config{list: true, sources: []tracer.Source{
			{Kind: tracer.Provider, Text: "syscall"}, {Kind: tracer.Module, Text: "vmlinux"},
			{Kind: tracer.Function, Text: "read"}, {Kind: tracer.Name, Text: "12"}}}},
		{[]string{"-c", "ls -l", "-o", "out", "-s", "x.d", "a", "b"}, config{command: "ls -l", output: "out",
			sources: []tracer.Source{{Kind: tracer.File, Text: "x.d"}}, macroArgs: []string{"a", "b"}}},
		{[]string{"-p", "123", "--json", "-L", "lib", "-C", "--", "-n"}, config{pid: 123, json: true,
			libdirs: []string{"lib"}, cpp: true, macroArgs: []string{"-n"}}},
		{[]string{"-CXs", "-x", "stdc=c", "-Xa"}, config{cpp: true, xopts: []string{"stdc=c"},
			cppArgs: []string{"-traditional-cpp", "-std=c99", "-pedantic"}}},
		{[]string{"-hs", "prov.d", "-o", "prov.h"}, config{header: true, output: "prov.h",
			sources: []tracer.Source{{Kind: tracer.File, Text: "prov.d"}}}},
	}
	for _, tt := range tests {
		got, err := parseArgs(tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.args, *got, tt.want)
		}
	}
}

// Bad command lines are usage errors (exit status 2) that say what is
// wrong.
func TestParseArgsErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-n"}, "option requires an argument -- 'n'"},
		{[]string{"-c", "  "}, "requires a command"},
		{[]string{"-p", "0"}, "invalid process ID: 0"},
		{[]string{"-p", "x"}, "invalid process ID: x"},
		{[]string{"-k"}, "invalid option -- 'k'"},
		{[]string{"-A"}, "option -A is not supported"},
		{[]string{"-X", "q"}, "invalid -X mode"},
		{[]string{"--nosuch"}, "unknown option --nosuch"},
	}
	for _, tt := range tests {
		_, err := parseArgs(tt.args)
		if _, ok := err.(*usageError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want a usage error with %q", tt.args, err, tt.want)
		}
	}
}
