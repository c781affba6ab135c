package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// Config is bench/tools.json: what to measure, and each tool's command line
// for it. Command lines are data so that a tool (sonde) is measured as soon
// as its binary exists.
type Config struct {
	Scenarios []*Scenario `json:"scenarios"`
	Tools     []*ToolRun  `json:"tools"`
}

// Scenario is one program, written once per tool.
type Scenario struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Overhead bool   `json:"overhead"` // measure ns added per getppid call
	Starts   int    `json:"starts"`   // start-ups to take the median of
	// Profile: run bench/hot on every CPU for Seconds while the tool is
	// attached, and measure its BPF run time per event and its own CPU
	// time (see profile.go). Symbol is a function of bench/hot that the
	// tool's output must name, to show that it symbolised the stacks.
	Profile bool    `json:"profile"`
	Seconds float64 `json:"seconds"`
	Symbol  string  `json:"symbol"`
}

// ToolRun is one tool's command line for one scenario. In argv, {floor},
// {bpftrace} and {sonde} stand for the tools' paths.
type ToolRun struct {
	Tool     string   `json:"tool"`
	Scenario string   `json:"scenario"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Ready    string   `json:"ready"`  // output line that says the probes are attached
	Count    string   `json:"count"`  // output line whose group 1 is the getppid count
	Stacks   string   `json:"stacks"` // profile: the output line that ends each stack printed
	Starts   int      `json:"starts"`
	Note     string   `json:"note"`
	// ResendSIGINT: the tool can lose a SIGINT (bpftrace 0.17); send it
	// again when the tool is found still waiting for events.
	ResendSIGINT bool `json:"resend_sigint"`

	ready, count, stacks *regexp.Regexp
}

// tools are the columns of the report, in order; a run with -base adds
// the base sonde after them (base.go).
var tools = []string{"floor", "bpftrace", "sonde"}

func loadConfig(name string) (*Config, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var c Config
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ids := map[string]bool{}
	for _, s := range c.Scenarios {
		ids[s.ID] = true
		if s.Starts < 1 {
			s.Starts = 1
		}
		if s.Profile && s.Seconds <= 0 {
			return nil, fmt.Errorf("%s: %s: a profile scenario needs seconds > 0", name, s.ID)
		}
	}
	for _, t := range c.Tools {
		if !ids[t.Scenario] {
			return nil, fmt.Errorf("%s: %s: unknown scenario %q", name, t.Tool, t.Scenario)
		}
		if len(t.Argv) == 0 || t.Ready == "" {
			return nil, fmt.Errorf("%s: %s %s: argv and ready are required", name, t.Tool, t.Scenario)
		}
		if t.ready, err = regexp.Compile(t.Ready); err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", name, t.Tool, t.Scenario, err)
		}
		if t.Count != "" {
			if t.count, err = regexp.Compile(t.Count); err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", name, t.Tool, t.Scenario, err)
			}
		}
		if t.Stacks != "" {
			if t.stacks, err = regexp.Compile(t.Stacks); err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", name, t.Tool, t.Scenario, err)
			}
		}
	}
	return &c, nil
}

func (c *Config) run(tool, scenario string) *ToolRun {
	for _, t := range c.Tools {
		if t.Tool == tool && t.Scenario == scenario {
			return t
		}
	}
	return nil
}

// resolve maps each tool to its executable, or to the reason it is skipped.
func resolve(floor, sonde string) (paths, missing map[string]string) {
	paths, missing = map[string]string{}, map[string]string{}
	paths["floor"] = floor
	if p, err := exec.LookPath("bpftrace"); err == nil {
		paths["bpftrace"] = p
	} else {
		missing["bpftrace"] = "bpftrace is not installed (apt-get install bpftrace)"
	}
	if st, err := os.Stat(sonde); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		paths["sonde"] = sonde
	} else {
		missing["sonde"] = sonde + " does not exist yet (make build)"
	}
	return paths, missing
}

// argv substitutes the tools' paths into a command line.
func (t *ToolRun) argv(paths map[string]string) []string {
	out := make([]string, len(t.Argv))
	for i, a := range t.Argv {
		for tool, p := range paths {
			a = strings.ReplaceAll(a, "{"+tool+"}", p)
		}
		out[i] = a
	}
	return out
}
