package flamegraph

import (
	"math"
	"strings"
	"testing"
)

const folded = `main;parse;mix 60
main;render;mix 20

main;render 10
main;parse;hash 10
not a folded line
main;idle 0
`

func TestParseAndLayout(t *testing.T) {
	root, skipped, err := parse(strings.NewReader(folded))
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 {
		t.Errorf("skipped %d lines, want 1", skipped)
	}
	if root.value != 100 {
		t.Errorf("total %d, want 100", root.value)
	}
	rects := layout(root, 1200)
	// all, main, parse, hash, mix, render, mix: alphabetical per level,
	// depth first.
	want := []struct {
		name  string
		depth int
		value uint64
	}{
		{"all", 0, 100}, {"main", 1, 100}, {"parse", 2, 70}, {"hash", 3, 10},
		{"mix", 3, 60}, {"render", 2, 30}, {"mix", 3, 20},
	}
	if len(rects) != len(want) {
		t.Fatalf("%d rects, want %d: %+v", len(rects), len(want), rects)
	}
	full := 1200.0 - 2*xPad
	for i, w := range want {
		r := rects[i]
		if r.name != w.name || r.depth != w.depth || r.value != w.value {
			t.Errorf("rect %d is %s at depth %d with %d, want %s at %d with %d", i, r.name, r.depth, r.value, w.name, w.depth, w.value)
		}
		if got := full * float64(w.value) / 100; math.Abs(r.w-got) > 1e-9 {
			t.Errorf("%s is %.2f px wide, want %.2f", r.name, r.w, got)
		}
	}
	// hash sits at parse's left edge, mix after it; render after parse.
	if rects[3].x != rects[2].x || math.Abs(rects[4].x-(rects[2].x+full*0.1)) > 1e-9 ||
		math.Abs(rects[5].x-(xPad+full*0.7)) > 1e-9 {
		t.Errorf("frames misplaced: %+v", rects)
	}
}

func TestRender(t *testing.T) {
	root, _, err := parse(strings.NewReader("a;b<&> 3\na 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, layout(root, 600), root.value, 600, "T", "samples")
	svg := b.String()
	if n := strings.Count(svg, "<rect x=") - 1; n != 3 { // less the background
		t.Errorf("%d frames drawn, want 3:\n%s", n, svg)
	}
	for _, s := range []string{"<title>b&lt;&amp;&gt; (3 samples, 75.00%)</title>", "<title>all (4 samples, 100.00%)</title>", ">T</text>"} {
		if !strings.Contains(svg, s) {
			t.Errorf("no %q in\n%s", s, svg)
		}
	}
}

func TestFitAndColour(t *testing.T) {
	if got := fit("bench_hash_block", 1000); got != "bench_hash_block" {
		t.Errorf("fit wide = %q", got)
	}
	if got := fit("bench_hash_block", 6+fontSize*fontWidth*8.5); got != "bench_.." {
		t.Errorf("fit 8 chars = %q", got)
	}
	if got := fit("bench_hash_block", 10); got != "" {
		t.Errorf("fit narrow = %q", got)
	}
	if a, b := colour("main"), colour("main"); a != b || a == colour("mix") {
		t.Error("colours are not per name")
	}
	if got := commas(1234567); got != "1,234,567" {
		t.Errorf("commas = %q", got)
	}
}

func TestEmpty(t *testing.T) {
	if _, _, err := parse(strings.NewReader("junk\n")); err == nil {
		t.Error("no error for input without stacks")
	}
}
