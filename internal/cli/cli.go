// Package cli is `sonde analytics`: the command line of sonded's HTTP API.
// It lists, creates, suspends, resumes and destroys datasets, reads their
// data as a table, CSV or JSON, drills down (a new dataset filtered by a
// key of its parent's breakdown and broken down by another), and shows the
// statistics catalogue, the agent's events and worksheets. It runs in the
// agent's binary, as `sonded analytics ...`: `sonde analytics ...` execs
// that (cmd/sonde/analytics.go), so that sonde itself links no HTTP
// client.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
)

const usage = `usage: sonde analytics COMMAND [ARGS] [FLAGS]

commands:
  datasets                      list datasets: DATASET STATE INCORE ONDISK NAME
  create SPEC [-open] [-export] create and start a dataset ("syscall.ops[execname=dd][name]");
                                -export serves it as Prometheus metrics on sonded's /metrics
  export NAME, unexport NAME    serve a dataset on /metrics, or stop
  suspend NAME                  suspend a dataset (no collection, data kept)
  resume NAME                   resume a suspended dataset
  destroy NAME                  destroy a dataset and its data
  read NAME [-seconds N] [-start now|T] [-granularity second|minute|hour] [-o table|csv|json]
                                print a dataset's data
  drill NAME -by BREAKDOWN [-key VALUE|BREAKDOWN=VALUE]
                                create NAME filtered by a key of its breakdown, broken down by another
  statistics                    list the statistics catalogue
  events                        list the agent's events
  worksheets                    list worksheets
  passwd USER ROLE              print a users-file line for USER (password read from stdin)
  alerts thresholds             list threshold alerts: UUID STATNAME TYPE LIMIT MINPOST MINCLEAR FREQUENCY ALERTS
  alerts events [-threshold ID] list alert events: posted, cleared, value, what each action did
  alerts actions                list alert actions and their items
  alerts silence UUID SECONDS   silence a threshold's actions for SECONDS (0 lifts the silence)
  alerts test ACTION ITEM       send a test alert through one action item
  alerts captures EVENT         list the captures attached to an alert event
  alerts capture EVENT ITEM folded|svg|output
                                print one capture: folded stacks, a flame graph (SVG) or its output

NAME is a dataset's name or its dataset-NNN id. T is YYYYMMDDTHH:MM:SS (UTC) or ISO 8601.

flags of every command:
  -url URL          sonded's address (default http://` + analytics.DefaultAddr + `)
  -token TOKEN      bearer token; -token-file FILE reads it from FILE
  -user USER        user for basic auth; -password PASSWORD its password
`

// Run runs `sonde analytics` with args (those after "analytics") and
// returns the exit status: 0, 1 for a failure, 2 for bad usage.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args = commandFirst(args)
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "sonde analytics: unknown command %q\n%s", args[0], usage)
		return 2
	}
	inv := &invocation{stdin: stdin, stdout: stdout, stderr: stderr}
	fs := inv.flags(args[0])
	cmd.flags(fs, inv)
	pos, err := parseFlags(fs, args[1:])
	if err == nil && cmd.args >= 0 && len(pos) != cmd.args {
		err = fmt.Errorf("%s takes %d argument(s), got %d", args[0], cmd.args, len(pos))
	}
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "sonde analytics: %v\n", err)
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err := cmd.run(inv, pos); err != nil {
		fmt.Fprintf(stderr, "sonde analytics: %s\n", strings.TrimRight(err.Error(), "\n"))
		return 1
	}
	return 0
}

// commandFirst moves the command before the flags given ahead of it
// ("-url U datasets" is "datasets -url U"): every flag before a command
// takes a value, in the next word or after "=".
func commandFirst(args []string) []string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-h" && args[i] != "--help" {
		if strings.Contains(args[i], "=") {
			i++
		} else {
			i += 2
		}
	}
	if i == 0 || i >= len(args) {
		return args
	}
	out := append([]string{args[i]}, args[:i]...)
	return append(out, args[i+1:]...)
}

// command is one subcommand: its number of arguments (-1: it checks
// them), its own flags and what it does.
type command struct {
	args  int
	flags func(*flag.FlagSet, *invocation)
	run   func(*invocation, []string) error
}

func noFlags(*flag.FlagSet, *invocation) {}

func createFlags(fs *flag.FlagSet, inv *invocation) {
	fs.BoolVar(&inv.open, "open", false, "keep in memory only")
	fs.BoolVar(&inv.exported, "export", false, "export as Prometheus metrics (sonded's /metrics)")
}

var commands = map[string]command{
	"datasets":   {0, noFlags, (*invocation).datasets},
	"create":     {1, createFlags, (*invocation).create},
	"export":     {1, noFlags, (*invocation).export},
	"unexport":   {1, noFlags, (*invocation).unexport},
	"suspend":    {1, noFlags, (*invocation).suspend},
	"resume":     {1, noFlags, (*invocation).resume},
	"destroy":    {1, noFlags, (*invocation).destroy},
	"read":       {1, readFlags, (*invocation).read},
	"drill":      {1, drillFlags, (*invocation).drill},
	"statistics": {0, noFlags, (*invocation).statistics},
	"events":     {0, noFlags, (*invocation).events},
	"worksheets": {0, noFlags, (*invocation).worksheets},
	"passwd":     {2, noFlags, (*invocation).passwd},
	"alerts":     {-1, alertFlags, (*invocation).alerts},
}

// invocation is one run: the streams, the flags and the client.
type invocation struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	url            string
	token          string
	tokenFile      string
	user, password string
	// create
	open, exported bool
	// read
	seconds     int
	start       string
	granularity string
	output      string
	// drill
	by, key string
	// alerts events
	threshold string
}

// flags makes the flag set with the flags every command has.
func (inv *invocation) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("sonde analytics "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&inv.url, "url", "http://"+analytics.DefaultAddr, "sonded's address")
	fs.StringVar(&inv.token, "token", "", "bearer token")
	fs.StringVar(&inv.tokenFile, "token-file", "", "file holding the bearer token")
	fs.StringVar(&inv.user, "user", "", "user for basic auth")
	fs.StringVar(&inv.password, "password", "", "password for basic auth")
	return fs
}

// parseFlags parses flags anywhere among the arguments and returns the
// others, in order ("--" ends the flags).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// client makes the API's client from the flags.
func (inv *invocation) client() (*client, error) {
	token := inv.token
	if inv.tokenFile != "" {
		b, err := os.ReadFile(inv.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("token file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	return newClient(inv.url, token, inv.user, inv.password)
}
