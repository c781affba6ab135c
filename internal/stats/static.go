package stats

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// counters are cumulative counters the kernel keeps, by key: the values
// of a static source's dimensions, in its order, joined by NUL.
type counters map[string]uint64

// staticSource is a statistic served from the kernel's counters: dims
// are the dimensions it can break down and filter by, in the order of
// its keys.
type staticSource struct {
	dims []string
	read func(root string) (counters, error)
	// gauge: the counters are CPU time by cpu and mode, and the value
	// is a utilization (cpu.utilization).
	gauge bool
}

func joinKey(parts ...string) string { return strings.Join(parts, "\x00") }

// serves says whether the source can serve every dimension spec names.
func (s *staticSource) serves(spec *Spec) bool {
	for _, f := range spec.Filters {
		if s.index(f.Breakdown) < 0 {
			return false
		}
	}
	for _, b := range spec.Breakdowns {
		if s.index(b) < 0 {
			return false
		}
	}
	return true
}

func (s *staticSource) index(dim string) int {
	for i, d := range s.dims {
		if d == dim {
			return i
		}
	}
	return -1
}

// sampler returns Plan.Static for spec: each call reads the counters and
// returns the rows of the interval since the last call, exact deltas of
// the counters; the first call primes it and returns nil. A key that
// appears (a new disk) is primed too; a counter that went backwards (a
// device removed and added again) counts nothing that interval.
func (s *staticSource) sampler(root string, spec *Spec) func(time.Time) ([]analytics.Row, error) {
	var last counters
	return func(time.Time) ([]analytics.Row, error) {
		now, err := s.read(root)
		if err != nil {
			return nil, err
		}
		prev := last
		last = now
		if prev == nil {
			return nil, nil
		}
		deltas := map[string]uint64{}
		for k, v := range now {
			if p, ok := prev[k]; ok && v > p {
				deltas[k] = v - p
			}
		}
		if s.gauge {
			return s.utilization(spec, deltas), nil
		}
		return s.project(spec, deltas), nil
	}
}

// selected says whether the key's values pass the filters.
func (s *staticSource) selected(spec *Spec, vals []string) bool {
	for _, f := range spec.Filters {
		if vals[s.index(f.Breakdown)] != f.Value {
			return false
		}
	}
	return true
}

// rowKey is the key of the row a key's values go to.
func (s *staticSource) rowKey(breakdowns []string, vals []string) []string {
	var key []string
	for _, b := range breakdowns {
		key = append(key, vals[s.index(b)])
	}
	return key
}

// project sums the deltas that pass the filters by the breakdowns.
func (s *staticSource) project(spec *Spec, deltas map[string]uint64) []analytics.Row {
	sums := map[string]int64{}
	keys := map[string][]string{}
	for k, d := range deltas {
		vals := strings.Split(k, "\x00")
		if !s.selected(spec, vals) {
			continue
		}
		key := s.rowKey(spec.Breakdowns, vals)
		rk := joinKey(key...)
		sums[rk] += int64(d)
		keys[rk] = key
	}
	return rows(sums, keys)
}

// utilizationModes are the modes whose time is utilization.
var utilizationModes = map[string]bool{"user": true, "kernel": true}

// utilization: the deltas are CPU time by cpu and mode. Each row is the
// time of its modes (the mode broken down or filtered, else user and
// kernel) over all the time of its CPUs, in hundredths of a percent.
func (s *staticSource) utilization(spec *Spec, deltas map[string]uint64) []analytics.Row {
	modeFilter := ""
	for _, f := range spec.Filters {
		if f.Breakdown == "mode" {
			modeFilter = f.Value
		}
	}
	cpuOnly := &Spec{Filters: nil}
	for _, f := range spec.Filters {
		if f.Breakdown == "cpu" {
			cpuOnly.Filters = append(cpuOnly.Filters, f)
		}
	}
	var cpuBreakdowns []string
	for _, b := range spec.Breakdowns {
		if b == "cpu" {
			cpuBreakdowns = append(cpuBreakdowns, b)
		}
	}
	// all the time of the CPUs of each row, by the row's cpu key
	total := map[string]uint64{}
	for k, d := range deltas {
		vals := strings.Split(k, "\x00")
		if s.selected(cpuOnly, vals) {
			total[joinKey(s.rowKey(cpuBreakdowns, vals)...)] += d
		}
	}
	busy := map[string]uint64{}
	keys := map[string][]string{}
	cpuKey := map[string]string{}
	for k, d := range deltas {
		vals := strings.Split(k, "\x00")
		mode := vals[s.index("mode")]
		// Broken down by mode, the rows are the modes of utilization
		// (user, kernel), so that they add up to the statistic's value as
		// the appliance's did; idle and steal are had by filtering on them.
		if !s.selected(spec, vals) || modeFilter == "" && !utilizationModes[mode] {
			continue
		}
		key := s.rowKey(spec.Breakdowns, vals)
		rk := joinKey(key...)
		busy[rk] += d
		keys[rk] = key
		cpuKey[rk] = joinKey(s.rowKey(cpuBreakdowns, vals)...)
	}
	sums := map[string]int64{}
	var allBusy, allTime uint64
	for rk, b := range busy {
		if t := total[cpuKey[rk]]; t > 0 {
			sums[rk] = int64((b*100*UtilizationScale + t/2) / t)
		}
		allBusy += b
	}
	out := rows(sums, keys)
	if len(cpuBreakdowns) == 0 {
		return out // the rows are shares of the same time: they add up
	}
	// Rows by CPU are each CPU's own share and do not add up: the total
	// row (no key) is the share of all the CPUs' time.
	for _, t := range total {
		allTime += t
	}
	if allTime > 0 && allBusy > 0 {
		out = append([]analytics.Row{{Value: int64((allBusy*100*UtilizationScale + allTime/2) / allTime)}}, out...)
	}
	return out
}

// rows makes rows of the nonzero sums, sorted by key.
func rows(sums map[string]int64, keys map[string][]string) []analytics.Row {
	var out []analytics.Row
	for rk, v := range sums {
		if v != 0 {
			out = append(out, analytics.Row{Key: keys[rk], Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return joinKey(out[i].Key...) < joinKey(out[j].Key...) })
	return out
}

// readProcStat reads CPU time by cpu and mode, in clock ticks, from
// /proc/stat's cpuN lines (user nice system idle iowait irq softirq
// steal guest guest_nice): user is user + nice (guest time is counted in
// them already), kernel is system + irq + softirq, idle is idle + iowait.
func readProcStat(root string) (counters, error) {
	path := filepath.Join(root, "proc/stat")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cpu.utilization: %w", err)
	}
	out := counters{}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu := strings.TrimPrefix(f[0], "cpu")
		if _, err := strconv.ParseUint(cpu, 10, 32); err != nil || len(f) < 5 {
			return nil, fmt.Errorf("%s:%d: not a cpu line: %q", path, i+1, line)
		}
		var t [8]uint64
		for j := range t {
			if 1+j < len(f) {
				if t[j], err = strconv.ParseUint(f[1+j], 10, 64); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
				}
			}
		}
		out[joinKey(cpu, "user")] = t[0] + t[1]
		out[joinKey(cpu, "kernel")] = t[2] + t[5] + t[6]
		out[joinKey(cpu, "idle")] = t[3] + t[4]
		out[joinKey(cpu, "steal")] = t[7]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cpuN lines", path)
	}
	return out, nil
}

// readDiskstats reads disk requests (or bytes) by device and op from
// /proc/diskstats, for the disks whose requests the io provider sees:
// whole disks (/sys/block/NAME) of the multi-queue block layer
// (/sys/block/NAME/mq; bio-based devices such as zram and device-mapper
// issue no requests). Fields after the name: 1 reads completed, 3 sectors
// read, 5 writes completed, 7 sectors written, 12 discards completed, 14
// sectors discarded, 16 flushes completed. As in the io provider, a
// discard or a flush is a write. Sectors are 512 bytes.
func readDiskstats(root string, bytes bool) (counters, error) {
	path := filepath.Join(root, "proc/diskstats")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("io: %w", err)
	}
	out := counters{}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 14 {
			return nil, fmt.Errorf("%s:%d: %d fields, want at least 14", path, i+1, len(f))
		}
		name := f[2]
		if _, err := os.Stat(filepath.Join(root, "sys/block", name, "mq")); err != nil {
			continue
		}
		var v [17]uint64
		for j := range v {
			if 3+j < len(f) {
				if v[j], err = strconv.ParseUint(f[3+j], 10, 64); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
				}
			}
		}
		field := func(n int) uint64 { return v[n-1] }
		if bytes {
			out[joinKey(name, "read")] = field(3) * 512
			out[joinKey(name, "write")] = (field(7) + field(14)) * 512
		} else {
			out[joinKey(name, "read")] = field(1)
			out[joinKey(name, "write")] = field(5) + field(12) + field(16)
		}
	}
	return out, nil
}

// readNet reads /sys/class/net/DEV/statistics/{rx,tx}_WHAT by device and
// direction, divided by unit (1024 for kilobytes: a counter divided is
// still cumulative, so the per-second deltas add up to the kilobytes of
// the whole time exactly).
func readNet(root, what string, unit uint64) (counters, error) {
	dir := filepath.Join(root, "sys/class/net")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("nic: %w", err)
	}
	out := counters{}
	for _, e := range ents {
		for _, d := range [...]struct{ file, dir string }{{"rx_", "in"}, {"tx_", "out"}} {
			b, err := os.ReadFile(filepath.Join(dir, e.Name(), "statistics", d.file+what))
			if os.IsNotExist(err) {
				continue // an interface that went away
			}
			if err != nil {
				return nil, fmt.Errorf("nic: %w", err)
			}
			n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("nic: %s: %w", filepath.Join(dir, e.Name(), "statistics", d.file+what), err)
			}
			out[joinKey(e.Name(), d.dir)] = n / unit
		}
	}
	return out, nil
}

// readSnmpTCP reads TCP segments by direction from /proc/net/snmp: the
// "Tcp:" header line names the fields of the "Tcp:" line after it.
func readSnmpTCP(root string) (counters, error) {
	path := filepath.Join(root, "proc/net/snmp")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tcp.ops: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var header []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "Tcp:" {
			continue
		}
		if header == nil {
			header = fields
			continue
		}
		if len(fields) != len(header) {
			return nil, fmt.Errorf("%s: Tcp: %d values for %d names", path, len(fields), len(header))
		}
		out := counters{}
		for i, name := range header {
			dir := map[string]string{"InSegs": "in", "OutSegs": "out"}[name]
			if dir == "" {
				continue
			}
			n, err := strconv.ParseUint(fields[i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, name, err)
			}
			out[dir] = n
		}
		if len(out) != 2 {
			return nil, fmt.Errorf("%s: no InSegs and OutSegs", path)
		}
		return out, nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nil, fmt.Errorf("%s: no Tcp: lines", path)
}
