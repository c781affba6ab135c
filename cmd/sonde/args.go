package main

import (
	"fmt"
	"strings"

	"github.com/sonde-trace/sonde/internal/tracer"
)

// usageError is a command-line error (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// config is the parsed command line.
type config struct {
	sources   []tracer.Source // -n, -s, -P/-m/-f/-i in order
	list      bool            // -l
	verbose   bool            // -v
	quiet     bool            // -q
	command   string          // -c
	pid       int             // -p
	output    string          // -o
	xopts     []string        // -x name[=value]
	zero      bool            // -Z
	destruct  bool            // -w
	compile   bool            // -e
	showBPF   bool            // -S
	cpp       bool            // -C
	cppArgs   []string        // -D, -U, -I, -H: for cpp
	json      bool            // --json
	folded    bool            // --folded
	promAddr  string          // --prometheus
	version   bool            // -V
	header    bool            // -h
	lazy      bool            // -G
	model     int             // -32, -64: the data model of -G's object (0: the objects')
	libdirs   []string        // -L
	macroArgs []string
	help      bool
}

// sourceKinds are the options that give sources, and their kinds.
var sourceKinds = map[byte]tracer.SourceKind{'n': tracer.Inline, 's': tracer.File, 'P': tracer.Provider,
	'm': tracer.Module, 'f': tracer.Function, 'i': tracer.Name}

// flagOf is the option letter of a source kind.
func flagOf(k tracer.SourceKind) byte {
	for f, kind := range sourceKinds {
		if kind == k {
			return f
		}
	}
	return '?'
}

const usage = `Usage: sonde [-CeFGhHlqSvVwZ] [--json] [--folded] [--prometheus addr] [-b bufsz] [-c cmd] [-p pid] [-o output]
	[-D name[=def]] [-I path] [-U name]
	[-n probe-program] [-s script] [-P provider] [-m module] [-f function]
	[-i probe-id] [-x opt[=val]] [-L dir] [args ...]
       sonde analytics COMMAND ...  (sonded's datasets: sonde analytics help)

	-c  run a command and trace it; exit when it exits ($target is its pid)
	-b  set the trace buffer size (as -x bufsize)
	-C  run the C preprocessor (cpp) over scripts
	-D  define a name for cpp (-C)
	-H  print the names of the files cpp includes (-C)
	-I  add a directory cpp looks for #include files in (-C)
	-U  undefine a name for cpp (-C)
	-X  cpp's ISO C mode (-C): a, t (the default), c (strict), s (K&R: no __STDC__)
	-e  exit after compiling the program
	-f  enable or list probes matching [[provider:]module:]function
	-F  indent the output by function entry and return (flowindent)
	-i  enable or list the probe of an ID (as sonde -l numbers it)
	-h  generate a header file from a provider definition (-s)
	-G  write the object file that links with objects holding the probes of the
	    -s scripts' providers (their semaphores), to -o's file or d.out
	-l  list probes matching the descriptions, then exit
	-L  add a directory of D libraries
	-m  enable or list probes matching [provider:]module
	-n  enable or list probes matching the description (with clauses)
	-o  write output to a file
	-p  grab a running process ($target is its pid); exit when it exits
	-P  enable or list probes of a provider
	-q  quiet: print only what printf, printa and trace ask for
	-s  read a D program from a file
	-S  show the generated BPF code
	-v  verbose: with -l show argument types; show verifier logs
	-V  print the version
	-w  allow destructive actions (system, raise, stop)
	-x  set an option (bufsize, strsize, quiet, aggsortkey, ...)
	-Z  allow descriptions that match no probe
	--json  print records and aggregations as newline-delimited JSON
	--folded  print the aggregations left at exit in the folded stack
	        format flame-graph tools read (flamegraph.pl, speedscope)
	--prometheus ADDR  while the program runs, serve its aggregations as
	        Prometheus metrics on http://ADDR/metrics (no credentials:
	        give a loopback address unless the network is trusted)
`

// parseArgs parses a dtrace(1) command line (getopt-style: flags may be
// clustered, "-qn" "prog", "-x quiet", "-xquiet").
func parseArgs(args []string) (*config, error) {
	c := &config{}
	withArg := "nsPmfcpoxLiDUIbX"
	i := 0
	for i < len(args) {
		a := args[i]
		i++
		switch {
		case a == "--":
			c.macroArgs = append(c.macroArgs, args[i:]...)
			return c, nil
		case a == "--json":
			c.json = true
			continue
		case a == "--folded":
			c.folded = true
			continue
		case a == "--prometheus" || strings.HasPrefix(a, "--prometheus="):
			if v, ok := strings.CutPrefix(a, "--prometheus="); ok {
				c.promAddr = v
			} else if i < len(args) {
				c.promAddr = args[i]
				i++
			}
			if c.promAddr == "" {
				return nil, &usageError{"option --prometheus requires an address (127.0.0.1:9400)"}
			}
			continue
		case a == "-32" || a == "-64":
			c.model = 32
			if a == "-64" {
				c.model = 64
			}
			continue
		case a == "--version":
			c.version = true
			continue
		case a == "--help":
			c.help = true
			continue
		case strings.HasPrefix(a, "--"):
			return nil, &usageError{fmt.Sprintf("unknown option %s", a)}
		case len(a) < 2 || a[0] != '-':
			c.macroArgs = append(c.macroArgs, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			f := a[j]
			if strings.IndexByte(withArg, f) >= 0 {
				var val string
				if j+1 < len(a) {
					val = a[j+1:]
				} else if i < len(args) {
					val = args[i]
					i++
				} else {
					return nil, &usageError{fmt.Sprintf("option requires an argument -- '%c'", f)}
				}
				if err := c.setArg(f, val); err != nil {
					return nil, err
				}
				break
			}
			switch f {
			case 'l':
				c.list = true
			case 'v':
				c.verbose = true
			case 'q':
				c.quiet = true
			case 'Z':
				c.zero = true
			case 'w':
				c.destruct = true
			case 'e':
				c.compile = true
			case 'S':
				c.showBPF = true
			case 'C':
				c.cpp = true
			case 'V':
				c.version = true
			case 'h':
				c.header = true
			case 'G':
				c.lazy = true
			case 'F':
				c.xopts = append(c.xopts, "flowindent")
			case 'H':
				c.cppArgs = append(c.cppArgs, "-H")
			case 'a', 'A', 'B':
				return nil, &usageError{fmt.Sprintf("option -%c is not supported", f)}
			default:
				return nil, &usageError{fmt.Sprintf("invalid option -- '%c'", f)}
			}
		}
	}
	return c, nil
}

// stdcModes are cpp's arguments for dtrace's -X modes (-x stdc): a
// (ISO C with extensions, the default) and t (transition) are GNU cpp's
// default; c (strictly conforming) is ISO C without extensions; s (K&R C)
// is cpp's traditional mode, without __STDC__.
var stdcModes = map[string][]string{
	"a": nil,
	"t": nil,
	"c": {"-std=c99", "-pedantic"},
	"s": {"-traditional-cpp"},
}

func (c *config) setArg(f byte, v string) error {
	switch f {
	case 'n', 's', 'P', 'm', 'f', 'i':
		c.sources = append(c.sources, tracer.Source{Kind: sourceKinds[f], Text: v})
	case 'c':
		if strings.TrimSpace(v) == "" {
			return &usageError{"option -c requires a command, not an empty string"}
		}
		c.command = v
	case 'p':
		var pid int
		if _, err := fmt.Sscanf(v, "%d", &pid); err != nil || pid <= 0 {
			return &usageError{fmt.Sprintf("invalid process ID: %s", v)}
		}
		c.pid = pid
	case 'o':
		c.output = v
	case 'x':
		c.xopts = append(c.xopts, v)
		if name, mode, ok := strings.Cut(v, "="); ok && strings.TrimSpace(name) == "stdc" {
			return c.setArg('X', mode)
		}
	case 'X':
		// -X and -x stdc: how ISO C cpp is (-C)
		args, ok := stdcModes[v]
		if !ok {
			return &usageError{fmt.Sprintf("invalid -X mode %q: it must be a, c, s or t", v)}
		}
		c.cppArgs = append(c.cppArgs, args...)
	case 'L':
		c.libdirs = append(c.libdirs, v)
	case 'D', 'U', 'I':
		// for cpp (-C), as dtrace(1) passes them
		if strings.TrimSpace(v) == "" {
			return &usageError{fmt.Sprintf("option -%c requires an argument", f)}
		}
		c.cppArgs = append(c.cppArgs, "-"+string(f)+v)
	case 'b':
		c.xopts = append(c.xopts, "bufsize="+v) // dtrace(1): -b is -x bufsize
	}
	return nil
}
