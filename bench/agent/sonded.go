package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// agentProc is a running bin/sonded on a temporary state directory,
// listening on a loopback port of the kernel's choice.
type agentProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT/api/analytics/v1
	exited chan struct{}
	log    bytes.Buffer // its stderr, once it has exited
}

var listening = regexp.MustCompile(`listening on (\S+),`)

// startAgent starts sonded with its BPF budget (a share of one CPU;
// negative: none) and waits until its API answers.
func startAgent(path, stateDir string, budget float64, timeout time.Duration) (*agentProc, error) {
	a := &agentProc{cmd: exec.Command(path, "--state-dir", stateDir, "--listen", "127.0.0.1:0",
		"--budget", strconv.FormatFloat(budget, 'g', -1, 64)), exited: make(chan struct{})}
	stderr, err := a.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			a.log.WriteString(sc.Text() + "\n")
		}
		a.cmd.Wait()
		close(a.exited)
	}()
	select {
	case ad := <-addr:
		a.base = "http://" + ad + "/api/analytics/v1"
	case <-a.exited:
		return nil, fmt.Errorf("sonded exited before listening:\n%s", a.log.String())
	case <-time.After(timeout):
		a.kill()
		return nil, fmt.Errorf("sonded not listening after %s", timeout)
	}
	deadline := time.Now().Add(timeout)
	for {
		if _, err := a.datasets(); err == nil {
			return a, nil
		} else if time.Now().After(deadline) {
			a.kill()
			return nil, fmt.Errorf("sonded's API: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (a *agentProc) pid() int { return a.cmd.Process.Pid }

// stop sends SIGTERM and waits for sonded to exit.
func (a *agentProc) stop(timeout time.Duration) error {
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(timeout):
		a.kill()
		return fmt.Errorf("sonded still running %s after SIGTERM", timeout)
	}
	if !a.cmd.ProcessState.Success() {
		return fmt.Errorf("sonded: %s", a.cmd.ProcessState)
	}
	return nil
}

// kill ends sonded if it still runs.
func (a *agentProc) kill() {
	select {
	case <-a.exited:
	default:
		a.cmd.Process.Kill()
		<-a.exited
	}
}

// dataset is what the benchmark reads of the API's datasets.
type dataset struct {
	Name            string  `json:"name"`
	State           string  `json:"state"`
	Program         string  `json:"program"`
	EventsPerSecond float64 `json:"events_per_second"`
	NsPerEvent      float64 `json:"ns_per_event"`
}

func (a *agentProc) datasets() ([]dataset, error) {
	var out struct {
		Datasets []dataset `json:"datasets"`
	}
	return out.Datasets, a.call("GET", "/datasets", nil, &out)
}

func (a *agentProc) get(name string) (dataset, error) {
	var out struct {
		Dataset dataset `json:"dataset"`
	}
	return out.Dataset, a.call("GET", "/datasets/"+url.PathEscape(name), nil, &out)
}

func (a *agentProc) create(spec string) (dataset, error) {
	var out struct {
		Dataset dataset `json:"dataset"`
	}
	return out.Dataset, a.call("POST", "/datasets", map[string]string{"statistic": spec}, &out)
}

// event is one of the agent's events.
type event struct {
	Kind    string `json:"kind"`
	Dataset string `json:"dataset"`
	Message string `json:"message"`
}

func (a *agentProc) events() ([]event, error) {
	var out struct {
		Events []event `json:"events"`
	}
	return out.Events, a.call("GET", "/events", nil, &out)
}

func (a *agentProc) suspend(name string, suspended bool) error {
	return a.call("PUT", "/datasets/"+url.PathEscape(name), map[string]bool{"suspended": suspended}, nil)
}

// call makes one API request and decodes its JSON answer into out.
func (a *agentProc) call(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// userHZ is the unit of /proc/PID/stat's utime and stime: USER_HZ, 100
// on every Linux architecture Go runs on.
const userHZ = 100

// procCPU is utime+stime of pid, every thread, from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields counted from after its closing parenthesis.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// mem is what /proc/PID/status says of a process's memory, in MiB.
type mem struct {
	rss, hwm   float64 // VmRSS, VmHWM
	anon, file float64 // RssAnon, RssFile: VmRSS is their sum and RssShmem's
}

// procMem reads pid's memory from /proc/PID/status.
func procMem(pid int) (mem, error) {
	var m mem
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	fields := map[string]*float64{"VmRSS": &m.rss, "VmHWM": &m.hwm, "RssAnon": &m.anon, "RssFile": &m.file}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || fields[k] == nil {
			continue
		}
		var kb float64
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%f kB", &kb); err != nil {
			return m, fmt.Errorf("/proc/%d/status: %s: %w", pid, l, err)
		}
		*fields[k] = kb / 1024
	}
	return m, nil
}
