package codegen

// cpuinfo.go compiles curcpu, a cpuinfo_t * (check.CpuinfoT): the
// structure is built in clause scratch memory where it is used. cpu_id is
// the CPU the probe fires on, cpu_lgrp its NUMA node (Linux's locality
// group), cpu_pset 0 (Linux has no processor sets; Oracle's DTrace gives
// 0 too), and cpu_chip the CPU's physical package, from the topology the
// kernel publishes in sysfs, read when the program is generated into an
// array map indexed by CPU (-1 for a CPU whose topology is not known).

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// mapCpuinfo is the array map of each CPU's physical package.
const mapCpuinfo = "cpuinfo"

// maxCPUs bounds the CPUs the cpuinfo map describes.
const maxCPUs = 4096

// sysCPU is where the kernel publishes CPU topology.
var sysCPU = "/sys/devices/system/cpu"

// cpuinfoMap is the map curcpu's cpu_chip is read from.
func cpuinfoMap() *ebpf.MapSpec {
	n := possibleCPUs()
	spec := &ebpf.MapSpec{Name: mapCpuinfo, Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: uint32(n)}
	for cpu := 0; cpu < n; cpu++ {
		chip := int32(-1)
		b, err := os.ReadFile(fmt.Sprintf("%s/cpu%d/topology/physical_package_id", sysCPU, cpu))
		if err == nil {
			if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				chip = int32(v)
			}
		}
		val := make([]byte, 4)
		binary.LittleEndian.PutUint32(val, uint32(chip))
		spec.Contents = append(spec.Contents, ebpf.MapKV{Key: uint32(cpu), Value: val})
	}
	return spec
}

// possibleCPUs is the number of CPU numbers the kernel may use.
func possibleCPUs() int {
	if n, err := ebpf.PossibleCPU(); err == nil && n > 0 && n <= maxCPUs {
		return n
	}
	return maxCPUs
}

// curcpu builds cpuinfo_t in scratch and puts its address in R0.
func (g *gen) curcpu() {
	g.usesCurcpu = true
	buf := g.temp(16)
	chip := g.label("cpu_chip")
	g.stack += 8
	key := int16(-g.stack)
	g.emit(
		provider.StoreImm64(asm.R10, key, 0),
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(rS, int16(buf), asm.R0, asm.Word),
		asm.StoreMem(asm.R10, key, asm.R0, asm.Word),
		asm.StoreImm(rS, int16(buf+4), 0, asm.Word),
		asm.StoreImm(rS, int16(buf+8), -1, asm.Word),
	)
	g.emit(lookupFP(mapCpuinfo, key)...)
	g.emit(
		asm.JEq.Imm(asm.R0, 0, chip),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.Word),
		asm.StoreMem(rS, int16(buf+8), asm.R0, asm.Word),
		asm.FnGetNumaNodeId.Call().WithSymbol(chip),
		asm.StoreMem(rS, int16(buf+12), asm.R0, asm.Word),
		asm.Mov.Reg(asm.R0, rS),
		asm.Add.Imm(asm.R0, int32(buf)),
	)
	g.stack -= 8
}
