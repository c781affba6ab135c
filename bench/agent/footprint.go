package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// phase is one period of the agent, idle or under load.
type phase struct {
	wall   time.Duration
	cpu    time.Duration // the agent's utime+stime, every thread
	mem    mem           // at the end
	bpfNs  uint64        // run time of the agent's BPF programs (in the traced threads, not the agent's)
	events uint64        // runs of the agent's BPF programs
	calls  int64         // getppid calls the load made
}

func (p phase) cpuShare() float64 { return p.cpu.Seconds() / p.wall.Seconds() }
func (p phase) bpfShare() float64 { return float64(p.bpfNs) / float64(p.wall.Nanoseconds()) }
func (p phase) eventRate() float64 {
	return float64(p.events) / p.wall.Seconds()
}

// footprint is the agent's CPU and memory with its default datasets.
type footprint struct {
	datasets   []dataset
	idle, load []phase
	end        mem // at the end
	started    mem // once the API answered
}

// footprint measures the agent as it was started (its default datasets):
// idle and under the getppid load in turn, b.repeats times each.
func (b *bench) footprint(a *agentProc) (*footprint, error) {
	f := &footprint{}
	var err error
	if f.started, err = procMem(a.pid()); err != nil {
		return nil, err
	}
	if f.datasets, err = a.datasets(); err != nil {
		return nil, err
	}
	b.progress("footprint: %d datasets open; settling for %s", len(f.datasets), b.settle)
	time.Sleep(b.settle)
	for i := range b.repeats {
		b.progress("footprint %d/%d: idle for %s", i+1, b.repeats, b.period)
		p, err := b.phase(a, false)
		if err != nil {
			return nil, err
		}
		f.idle = append(f.idle, p)
		b.progress("footprint %d/%d: getppid load for %s", i+1, b.repeats, b.period)
		if p, err = b.phase(a, true); err != nil {
			return nil, err
		}
		f.load = append(f.load, p)
	}
	f.end, err = procMem(a.pid())
	return f, err
}

// phase measures the agent for b.period, with the load running or not.
func (b *bench) phase(a *agentProc, load bool) (phase, error) {
	pr, err := programsOf(a.pid())
	if err != nil {
		return phase{}, err
	}
	defer pr.close()
	cpu0, err1 := procCPU(a.pid())
	runs0, ns0, err2 := pr.runStats()
	t0 := time.Now()
	var p phase
	if load {
		p.calls, err = b.loadFor(b.period)
	} else {
		time.Sleep(b.period)
	}
	p.wall = time.Since(t0)
	cpu1, err3 := procCPU(a.pid())
	runs1, ns1, err4 := pr.runStats()
	m, err5 := procMem(a.pid())
	if err := errors.Join(err, err1, err2, err3, err4, err5); err != nil {
		return p, err
	}
	p.cpu, p.mem, p.events, p.bpfNs = cpu1-cpu0, m, runs1-runs0, ns1-ns0
	return p, nil
}

// loadFor runs the getppid loop, unpinned, back to back until d has
// passed, and returns the calls it made.
func (b *bench) loadFor(d time.Duration) (int64, error) {
	const calls = 5000000 // about half a second a run
	var n int64
	for end := time.Now().Add(d); time.Now().Before(end); {
		if out, err := exec.Command(b.loop, strconv.Itoa(calls)).Output(); err != nil {
			return n, fmt.Errorf("loop: %w (%s)", err, out)
		}
		n += calls
	}
	return n, nil
}
