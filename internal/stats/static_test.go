package stats

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// host is a fake root with /proc and /sys files the test rewrites
// between samples.
type host struct {
	t    *testing.T
	root string
}

func newHost(t *testing.T) *host { return &host{t: t, root: t.TempDir()} }

func (h *host) write(path, text string) {
	h.t.Helper()
	p := filepath.Join(h.root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// copyTree copies a fixture directory over the host.
func (h *host) copyTree(dir string) {
	h.t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err == nil {
			h.write(rel, string(b))
		}
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

// sample plans spec on the host and returns the rows of each interval
// between the snapshots set() writes.
func (h *host) sample(spec string, set ...func()) [][]analytics.Row {
	h.t.Helper()
	c := New()
	c.root = h.root
	s, err := Parse(spec)
	if err != nil {
		h.t.Fatal(err)
	}
	p, err := c.Plan(s)
	if err != nil {
		h.t.Fatal(err)
	}
	if p.Static == nil {
		h.t.Fatalf("%s is not static", spec)
	}
	var out [][]analytics.Row
	for i, f := range set {
		f()
		rows, err := p.Static(time.Now())
		if err != nil {
			h.t.Fatalf("%s: %v", spec, err)
		}
		if i == 0 {
			if rows != nil {
				h.t.Fatalf("%s: the first call returned %v, want nil (it primes)", spec, rows)
			}
			continue
		}
		out = append(out, rows)
	}
	return out
}

func row(v int64, key ...string) analytics.Row { return analytics.Row{Key: key, Value: v} }

func checkRows(t *testing.T, spec string, got [][]analytics.Row, want ...[]analytics.Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d intervals, want %d", spec, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) && (len(got[i]) != 0 || len(want[i]) != 0) {
			t.Errorf("%s: interval %d:\n got %v\nwant %v", spec, i, got[i], want[i])
		}
	}
}

const stat1 = `cpu  300 0 150 2550 0 0 0 0 0 0
cpu0 100 0 50 850 0 0 0 0 0 0
cpu1 200 0 100 1700 0 0 0 0 0 0
intr 1 2 3
ctxt 5
`

// +100 ticks each: cpu0 60 user (20 of them nice), 10 system, 5 irq, 5
// softirq, 15 idle, 5 iowait; cpu1 10 user, 90 idle (guest time 7 is in
// user already and is not counted again).
const stat2 = `cpu  370 20 170 2660 5 5 5 0 7 0
cpu0 140 20 60 865 5 5 5 0 0 0
cpu1 210 0 100 1790 0 0 0 0 7 0
intr 1 2 3
ctxt 9
`

func TestCPUUtilization(t *testing.T) {
	h := newHost(t)
	steps := []func(){func() { h.write("proc/stat", stat1) }, func() { h.write("proc/stat", stat2) }}
	// all CPUs: busy (80 + 10) of 200 ticks
	checkRows(t, "total", h.sample("cpu.utilization", steps...), []analytics.Row{row(4500)})
	// by CPU, each row is that CPU's share, and the total (no key) all CPUs'
	checkRows(t, "[cpu]", h.sample("cpu.utilization[cpu]", steps...), []analytics.Row{row(4500), row(8000, "0"), row(1000, "1")})
	checkRows(t, "[mode]", h.sample("cpu.utilization[mode]", steps...),
		[]analytics.Row{row(1000, "kernel"), row(3500, "user")}) // they add up to the total, 4500
	checkRows(t, "[cpu=0][mode]", h.sample("cpu.utilization[cpu=0][mode]", steps...),
		[]analytics.Row{row(2000, "kernel"), row(6000, "user")})
	checkRows(t, "[mode=idle][cpu]", h.sample("cpu.utilization[mode=idle][cpu]", steps...),
		[]analytics.Row{row(5500), row(2000, "0"), row(9000, "1")})
	checkRows(t, "[cpu=7]", h.sample("cpu.utilization[cpu=7]", steps...), nil)
	// no time passed: no rows, not a division by zero
	checkRows(t, "same", h.sample("cpu.utilization[cpu]", steps[0], steps[0]), nil)
}

const disk1 = ` 254       0 vda 100 0 800 0 50 0 400 0 0 0 0 3 0 24 0 2 0
 254       1 vda1 90 0 700 0 40 0 300 0 0 0 0 3 0 24 0 0 0
 253       0 zram0 5 0 40 0 5 0 40 0 0 0 0 0 0 0 0 0 0
   8       0 sda 10 0 80 0 10 0 80 0 0 0 0
`

// vda: +7 reads (+56 sectors), +11 writes (+88 sectors), +1 discard (+16
// sectors), +2 flushes. sda: an older kernel's 14 fields: +1 read.
// zram0 (no /sys/block/zram0/mq: the io provider does not see it) and
// the partition vda1 are left out.
const disk2 = ` 254       0 vda 107 0 856 0 61 0 488 0 0 0 0 4 0 40 0 4 0
 254       1 vda1 97 0 756 0 51 0 388 0 0 0 0 4 0 40 0 2 0
 253       0 zram0 500 0 4000 0 500 0 4000 0 0 0 0 0 0 0 0 0 0
   8       0 sda 11 0 88 0 10 0 80 0 0 0 0
`

func TestDiskstats(t *testing.T) {
	h := newHost(t)
	for _, d := range []string{"vda", "sda"} {
		h.write("sys/block/"+d+"/mq/.keep", "")
	}
	h.write("sys/block/zram0/size", "0")
	steps := []func(){func() { h.write("proc/diskstats", disk1) }, func() { h.write("proc/diskstats", disk2) }}
	checkRows(t, "io.ops", h.sample("io.ops", steps...), []analytics.Row{row(7 + 11 + 1 + 2 + 1)})
	checkRows(t, "io.ops[device][op]", h.sample("io.ops[device][op]", steps...),
		[]analytics.Row{row(1, "sda", "read"), row(7, "vda", "read"), row(14, "vda", "write")})
	checkRows(t, "io.ops[op=write]", h.sample("io.ops[op=write]", steps...), []analytics.Row{row(14)})
	checkRows(t, "io.bytes[op]", h.sample("io.bytes[op]", steps...),
		[]analytics.Row{row((56+8)*512, "read"), row((88+16)*512, "write")})
	checkRows(t, "io.bytes[device=sda]", h.sample("io.bytes[device=sda]", steps...), []analytics.Row{row(8 * 512)})
	// a disk that appears is primed, not counted from its boot
	h2 := newHost(t)
	h2.write("sys/block/vda/mq/.keep", "")
	h2.write("sys/block/sda/mq/.keep", "")
	checkRows(t, "new disk", h2.sample("io.ops[device]",
		func() { h2.write("proc/diskstats", strings.SplitAfter(disk1, "\n")[0]) },
		func() { h2.write("proc/diskstats", disk2) }),
		[]analytics.Row{row(21, "vda")})
	// a counter that went backwards (a disk replaced) counts nothing
	checkRows(t, "reset", h.sample("io.ops[device]",
		func() { h.write("proc/diskstats", disk2) }, func() { h.write("proc/diskstats", disk1) }), nil)
}

func TestNIC(t *testing.T) {
	h := newHost(t)
	set := func(dev string, rxb, txb, rxp, txp string) {
		h.write("sys/class/net/"+dev+"/statistics/rx_bytes", rxb+"\n")
		h.write("sys/class/net/"+dev+"/statistics/tx_bytes", txb+"\n")
		h.write("sys/class/net/"+dev+"/statistics/rx_packets", rxp+"\n")
		h.write("sys/class/net/"+dev+"/statistics/tx_packets", txp+"\n")
	}
	// eth0 receives 1000 bytes a second for 3 seconds: 0, 1 and 1
	// kilobytes, whose sum is the 2 whole kilobytes of the 3000 bytes:
	// the seconds add up to the whole time, no byte lost or counted twice.
	steps := []func(){
		func() { set("eth0", "0", "0", "10", "0"); set("lo", "100", "100", "1", "1") },
		func() { set("eth0", "1000", "2048", "11", "2"); set("lo", "100", "100", "1", "1") },
		func() { set("eth0", "2000", "2048", "12", "2"); set("lo", "1124", "1124", "2", "2") },
		func() { set("eth0", "3000", "2048", "13", "2"); set("lo", "1124", "1124", "2", "2") },
	}
	checkRows(t, "nic.kilobytes[device][direction]", h.sample("nic.kilobytes[device][direction]", steps...),
		[]analytics.Row{row(2, "eth0", "out")},
		[]analytics.Row{row(1, "eth0", "in"), row(1, "lo", "in"), row(1, "lo", "out")},
		[]analytics.Row{row(1, "eth0", "in")})
	checkRows(t, "nic.packets[direction=in]", h.sample("nic.packets[direction=in]", steps...),
		[]analytics.Row{row(1)}, []analytics.Row{row(2)}, []analytics.Row{row(1)})
	checkRows(t, "nic.packets[device=lo][direction]", h.sample("nic.packets[device=lo][direction]", steps...),
		nil, []analytics.Row{row(1, "in"), row(1, "out")}, nil)
}

func TestSnmpTCP(t *testing.T) {
	h := newHost(t)
	snmp := func(in, out string) string {
		return "Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm RtoMin ActiveOpens InSegs OutSegs RetransSegs\nTcp: 1 200 5 " +
			in + " " + out + " 0\nUdp: InDatagrams\nUdp: 3\n"
	}
	checkRows(t, "tcp.ops[direction]", h.sample("tcp.ops[direction]",
		func() { h.write("proc/net/snmp", snmp("100", "200")) }, func() { h.write("proc/net/snmp", snmp("150", "260")) }),
		[]analytics.Row{row(50, "in"), row(60, "out")})
	h.write("proc/net/snmp", "Tcp: InSegs\nTcp: 1 2\n")
	if _, err := readSnmpTCP(h.root); err == nil {
		t.Error("a Tcp: line with more values than names: no error")
	}
}

// TestThisHost: the fixtures copied from this machine's /proc and /sys
// (two snapshots a second apart, around 100 O_DIRECT writes of 4 KiB
// with dd) parse, and their deltas are those of the files.
func TestThisHost(t *testing.T) {
	h := newHost(t)
	steps := []func(){func() { h.copyTree("testdata/host/a") }, func() { h.copyTree("testdata/host/b") }}
	// vda in a: 289179 reads, 75915 writes, 119144 discards, 410 flushes;
	// in b: 289382, 76016, 119172, 410.
	checkRows(t, "io.ops[device][op]", h.sample("io.ops[device][op]", steps...),
		[]analytics.Row{row(289382-289179, "vda", "read"), row(76016-75915+119172-119144, "vda", "write")})
	checkRows(t, "io.bytes[op=write]", h.sample("io.bytes[op=write]", steps...),
		[]analytics.Row{row((9931568 - 9930736 + 21818624 - 21818400) * 512)})
	for _, spec := range []string{"cpu.utilization", "cpu.utilization[mode][cpu]", "nic.kilobytes[device][direction]",
		"nic.packets[direction]", "tcp.ops[direction]"} {
		got := h.sample(spec, steps...)
		for _, r := range got[0] {
			if r.Value <= 0 || strings.HasPrefix(spec, "cpu.") && r.Value > 100*UtilizationScale {
				t.Errorf("%s: implausible %v", spec, r)
			}
		}
		if len(got[0]) == 0 && strings.HasPrefix(spec, "cpu.") { // the network may have been idle
			t.Errorf("%s: no rows over a second of this host", spec)
		}
	}
}

func TestStaticErrors(t *testing.T) {
	h := newHost(t)
	h.write("proc/stat", "cpu0 1 2\n")
	if _, err := readProcStat(h.root); err == nil {
		t.Error("a short cpu line: no error")
	}
	h.write("proc/stat", "cpu0 1 2 3 x 5\n")
	if _, err := readProcStat(h.root); err == nil || !strings.Contains(err.Error(), "proc/stat:1") {
		t.Errorf("a bad number: %v", err)
	}
	h.write("proc/diskstats", " 254 0 vda 1 2 3\n")
	if _, err := readDiskstats(h.root, false); err == nil {
		t.Error("a short diskstats line: no error")
	}
	if _, err := readNet(filepath.Join(h.root, "nothing"), "bytes", 1); err == nil {
		t.Error("no /sys/class/net: no error")
	}
}

// BenchmarkDefaults measures what a second of each static default costs
// the agent: one Plan.Static call on this host's /proc and /sys.
func BenchmarkDefaults(b *testing.B) {
	c := New()
	for _, d := range Defaults() {
		s, err := Parse(d)
		if err != nil {
			b.Fatal(err)
		}
		p, err := c.Plan(s)
		if err != nil {
			b.Fatal(err)
		}
		if p.Static == nil {
			continue
		}
		b.Run(d, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := p.Static(time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
