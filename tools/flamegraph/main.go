// Command flamegraph draws a flame graph (internal/flamegraph): it reads
// folded stacks on its standard input, as `sonde --folded` (or
// stackcollapse.pl) prints them,
//
//	root;caller;callee 123
//
// and writes a self-contained SVG to its standard output.
//
//	sonde -q --folded -n 'profile-997 { @[ustack()] = count(); }' -c ./prog |
//	    go run ./tools/flamegraph -title 'prog' > prog.svg
//
// Lines that do not end with a count are skipped (and counted on standard
// error), as are counts that are zero or negative.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sonde-trace/sonde/internal/flamegraph"
)

func main() {
	title := flag.String("title", "Flame Graph", "the title line")
	width := flag.Int("width", 1200, "width of the image in pixels")
	unit := flag.String("countname", "samples", "what the counts count")
	flag.Parse()
	skipped, err := flamegraph.Draw(os.Stdout, os.Stdin, flamegraph.Options{Title: *title, Width: *width, Unit: *unit})
	if skipped > 0 {
		fmt.Fprintf(os.Stderr, "flamegraph: skipped %d lines that are not folded stacks\n", skipped)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "flamegraph:", err)
		os.Exit(1)
	}
}
