// Package flamegraph draws a flame graph: it reads folded stacks, as
// `sonde --folded` (or stackcollapse.pl) prints them,
//
//	root;caller;callee 123
//
// the frames from the outermost joined by ';', a space, and a count, and
// writes a self-contained SVG. As in Brendan Gregg's flamegraph.pl, the
// root ("all") is at the bottom, each frame is as wide as its share of the
// samples, frames of one level are in alphabetical order (so that the x
// axis is not time), names are cut to fit, and hovering over a frame shows
// its name, samples and percentage. The colours are warm, and the same for
// a name in every graph.
//
// Lines that do not end with a count are skipped (and counted), as are
// counts that are zero or negative. tools/flamegraph is its command;
// sonded's capture on alert draws one for the alert's event.
package flamegraph

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Geometry, in pixels, as flamegraph.pl draws it.
const (
	frameHeight = 16
	fontSize    = 12
	fontWidth   = 0.59 // average character width, in font sizes
	xPad        = 10
	topPad      = fontSize * 3    // the title
	bottomPad   = fontSize*2 + 10 // the details line
	minWidth    = 0.1             // narrower frames are left out
)

// Options are a graph's title, width in pixels and what its counts count.
type Options struct {
	Title string // default "Flame Graph"
	Width int    // default 1200
	Unit  string // default "samples"
}

// Draw reads folded stacks from r and writes their flame graph to w; it
// returns how many lines it skipped. Input without a stack of positive
// count is an error.
func Draw(w io.Writer, r io.Reader, o Options) (skipped int, err error) {
	if o.Title == "" {
		o.Title = "Flame Graph"
	}
	if o.Width <= 0 {
		o.Width = 1200
	}
	if o.Unit == "" {
		o.Unit = "samples"
	}
	root, skipped, err := parse(r)
	if err != nil {
		return skipped, err
	}
	bw := bufio.NewWriter(w)
	render(bw, layout(root, float64(o.Width)), root.value, float64(o.Width), o.Title, o.Unit)
	return skipped, bw.Flush()
}

// node is a frame of the merged call tree; value counts its samples and
// its callees'.
type node struct {
	name     string
	value    uint64
	children map[string]*node
}

func (n *node) child(name string) *node {
	c := n.children[name]
	if c == nil {
		c = &node{name: name, children: map[string]*node{}}
		n.children[name] = c
	}
	return c
}

// parse merges the folded stacks of r into a tree under a root named
// "all", and says how many lines it could not read.
func parse(r io.Reader) (*node, int, error) {
	root := &node{name: "all", children: map[string]*node{}}
	skipped := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			skipped++
			continue
		}
		n, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil {
			skipped++
			continue
		}
		if n <= 0 {
			continue
		}
		root.value += uint64(n)
		at := root
		for _, f := range strings.Split(strings.TrimSpace(line[:i]), ";") {
			at = at.child(f)
			at.value += uint64(n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, skipped, err
	}
	if root.value == 0 {
		return nil, skipped, errors.New("no stacks with a positive count")
	}
	return root, skipped, nil
}

// rect is a frame as drawn: x and w in pixels, depth 0 at the bottom.
type rect struct {
	name  string
	value uint64
	depth int
	x, w  float64
}

// layout places the frames of the tree in an image width pixels wide:
// each level's frames side by side, in alphabetical order, on their
// caller. Frames narrower than minWidth are left out, with their callees.
func layout(root *node, width float64) []rect {
	scale := (width - 2*xPad) / float64(root.value)
	var out []rect
	var walk func(n *node, depth int, x float64)
	walk = func(n *node, depth int, x float64) {
		w := float64(n.value) * scale
		if w < minWidth {
			return
		}
		out = append(out, rect{name: n.name, value: n.value, depth: depth, x: x, w: w})
		names := make([]string, 0, len(n.children))
		for name := range n.children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			c := n.children[name]
			walk(c, depth+1, x)
			x += float64(c.value) * scale
		}
	}
	walk(root, 0, xPad)
	return out
}

// render writes the SVG.
func render(w io.Writer, rects []rect, total uint64, width float64, title, unit string) {
	depth := 0
	for _, r := range rects {
		depth = max(depth, r.depth)
	}
	height := float64((depth+1)*frameHeight + topPad + bottomPad)
	fmt.Fprintf(w, `<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg">
<defs><linearGradient id="background" y1="0" y2="1" x1="0" x2="0">
<stop stop-color="#eeeeee" offset="5%%"/><stop stop-color="#eeeeb0" offset="95%%"/>
</linearGradient></defs>
<style type="text/css">text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }
g:hover rect { stroke: #000; stroke-width: 0.5; }</style>
<rect x="0" y="0" width="100%%" height="100%%" fill="url(#background)"/>
<text x="%.1f" y="%d" text-anchor="middle" style="font-size: 17px">%s</text>
<text x="%d" y="%.0f">%s %s; hover over a frame for its share</text>
`, width, height, width, height, fontSize, width/2, fontSize*2, html.EscapeString(title),
		xPad, height-fontSize/2-4, commas(total), html.EscapeString(unit))
	for _, r := range rects {
		y := height - bottomPad - float64((r.depth+1)*frameHeight)
		pct := 100 * float64(r.value) / float64(total)
		name := html.EscapeString(r.name)
		fmt.Fprintf(w, "<g><title>%s (%s %s, %.2f%%)</title>", name, commas(r.value), html.EscapeString(unit), pct)
		fmt.Fprintf(w, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" rx="2" ry="2" fill="%s"/>`,
			r.x, y, r.w, frameHeight-1, colour(r.name))
		if text := fit(r.name, r.w); text != "" {
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f">%s</text>`, r.x+3, y+frameHeight/2+4, html.EscapeString(text))
		}
		fmt.Fprint(w, "</g>\n")
	}
	fmt.Fprint(w, "</svg>\n")
}

// fit cuts name to what a frame w pixels wide holds, ending it with ".."
// when cut; a frame too narrow for three characters gets no text.
func fit(name string, w float64) string {
	chars := int((w - 6) / (fontSize * fontWidth))
	if chars < 3 {
		return ""
	}
	r := []rune(name)
	if len(r) <= chars {
		return name
	}
	return string(r[:chars-2]) + ".."
}

// colour is a warm colour (flamegraph.pl's "hot" palette: red to yellow)
// chosen by a hash of the name, so that a function has the same colour in
// every graph.
func colour(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	sum := h.Sum64()
	v1 := float64(sum&0xffff) / 0xffff
	v2 := float64(sum>>16&0xffff) / 0xffff
	v3 := float64(sum>>32&0xffff) / 0xffff
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+int(50*v3), int(230*v1), int(55*v2))
}

// commas writes n with thousands separators.
func commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
