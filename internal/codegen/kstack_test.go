package codegen

import (
	"bufio"
	"encoding/binary"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestKframesMatchIsTracer checks that the kframes map, as the program
// reads it, calls tracer code exactly the addresses the consumer's stack()
// leaves out (sym.Kernel.IsTracer): at each text symbol of /proc/kallsyms,
// its first bytes, its middle and its last byte.
func TestKframesMatchIsTracer(t *testing.T) {
	textEnd := kernelSyms.TextEnd()
	if textEnd == 0 {
		t.Skip("/proc/kallsyms shows no addresses")
	}
	spec := kframesMap()
	words := map[uint64][2]uint64{}
	for _, kv := range spec.Contents {
		v := kv.Value.([]byte)
		words[kv.Key.(uint64)] = [2]uint64{binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[8:])}
	}
	inKernel := func(pc uint64) bool { // the program's test, in skipTracer
		w, ok := words[pc>>kframeChunk]
		if !ok {
			return pc > textEnd
		}
		bit := (pc >> kframeBlock) & 63
		if w[1]>>bit&1 == 0 {
			return w[0]>>bit&1 == 1
		}
		b, ok := words[pc>>kframeBlock|kframeBytesKey]
		return ok && b[0]>>(pc&(1<<kframeBlock-1))&1 == 1
	}
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var addrs []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 || !strings.ContainsAny(fs[1], "tTwW") {
			continue
		}
		if a, err := strconv.ParseUint(fs[0], 16, 64); err == nil && a != 0 {
			addrs = append(addrs, a)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	bad := 0
	for i, a := range addrs {
		end := a + 64
		if i+1 < len(addrs) && addrs[i+1] > a {
			end = min(addrs[i+1], a+1<<20)
		}
		for _, pc := range []uint64{a, a + 1, a + 15, a + (end-a)/2, end - 1} {
			if pc >= end && pc != a {
				continue
			}
			if got, want := inKernel(pc), kernelSyms.IsTracer(pc); got != want {
				if bad++; bad <= 10 {
					t.Errorf("%#x (%s): kframes says tracer %v, stack() %v", pc, kernelSyms.Format(pc), got, want)
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("... %d addresses disagreed", bad)
	}
	t.Logf("%d symbols", len(addrs))
}
