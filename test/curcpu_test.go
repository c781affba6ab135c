package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCurcpu checks curcpu's members on every CPU a profile probe fires
// on against what the kernel publishes in sysfs: cpu_id is cpu, cpu_chip
// the CPU's physical_package_id, cpu_lgrp the NUMA node the CPU belongs
// to, cpu_pset 0.
func TestCurcpu(t *testing.T) {
	out, err := exec.Command(sonde, "-qn", `profile-199 { @[cpu, curcpu->cpu_id, curcpu->cpu_chip, curcpu->cpu_lgrp, curcpu->cpu_pset] = count(); }
		tick-500ms { exit(0); }
		END { printa("%d %d %d %d %d\n", @); }`).CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var cpu, id, chip, lgrp, pset int
		if _, err := fmt.Sscanf(line, "%d %d %d %d %d", &cpu, &id, &chip, &lgrp, &pset); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		dir := fmt.Sprintf("/sys/devices/system/cpu/cpu%d", cpu)
		b, err := os.ReadFile(dir + "/topology/physical_package_id")
		if err != nil {
			t.Fatal(err)
		}
		wantChip, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		wantLgrp := 0
		if nodes, _ := filepath.Glob(dir + "/node[0-9]*"); len(nodes) == 1 {
			wantLgrp, _ = strconv.Atoi(strings.TrimPrefix(filepath.Base(nodes[0]), "node"))
		}
		if id != cpu || chip != wantChip || lgrp != wantLgrp || pset != 0 {
			t.Errorf("cpu %d: cpu_id %d cpu_chip %d cpu_lgrp %d cpu_pset %d, want %d %d %d 0", cpu, id, chip, lgrp, pset, cpu, wantChip, wantLgrp)
		}
	}
}
