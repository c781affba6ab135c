package cli

import (
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sonde-trace/sonde/internal/alert"
)

func alertFlags(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.threshold, "threshold", "", "only the events of this threshold")
}

// alerts runs `alerts SUBCOMMAND ...` against the alert service.
func (inv *invocation) alerts(args []string) error {
	subs := map[string]struct {
		n   int
		run func(*client, []string) error
	}{
		"thresholds": {0, inv.alertThresholds},
		"events":     {0, inv.alertEvents},
		"actions":    {0, inv.alertActions},
		"silence":    {2, inv.alertSilence},
		"test":       {2, inv.alertTest},
		"captures":   {1, inv.alertCaptures},
		"capture":    {3, inv.alertCapture},
	}
	const want = "thresholds, events, actions, silence, test, captures EVENT or capture EVENT ITEM folded|svg|output"
	if len(args) == 0 {
		return fmt.Errorf("alerts: want %s", want)
	}
	sub, ok := subs[args[0]]
	if !ok {
		return fmt.Errorf("alerts: unknown subcommand %q (want %s)", args[0], want)
	}
	if len(args)-1 != sub.n {
		return fmt.Errorf("alerts %s takes %d argument(s), got %d", args[0], sub.n, len(args)-1)
	}
	c, err := inv.client()
	if err != nil {
		return err
	}
	return sub.run(c.service(alert.Prefix), args[1:])
}

// thresholdView is a threshold as the service shows it.
type thresholdView struct {
	alert.Threshold
	Alerts       []alert.AlertStatus `json:"alerts"`
	DatasetState string              `json:"dataset_state"`
	Silenced     bool                `json:"silenced"`
}

func (inv *invocation) alertThresholds(c *client, _ []string) error {
	var out struct{ Thresholds []thresholdView }
	if err := c.do("GET", "/thresholds", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "UUID\tSTATNAME\tTYPE\tLIMIT\tMINPOST\tMINCLEAR\tFREQUENCY\tALERTS")
	for _, t := range out.Thresholds {
		if t.Alerts == nil {
			// A sonded before the list gave the alerts ("alerts": []
			// when none): each threshold's own answer has them.
			var v struct{ Threshold thresholdView }
			if err := c.do("GET", "/thresholds/"+url.PathEscape(t.ID), nil, &v); err != nil {
				return err
			}
			t = v.Threshold
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%d\t%d\t%d\t%s\n", t.ID, t.Statname, t.Type, t.Limit, t.Minpost, t.Minclear, t.Frequency,
			alertSummary(t))
	}
	return tw.Flush()
}

// alertSummary says what a threshold's alerts are doing.
func alertSummary(v thresholdView) string {
	var parts []string
	for _, a := range v.Alerts {
		s := string(a.State)
		if len(a.Key) > 0 {
			s = strings.Join(a.Key, ",") + ":" + s
		}
		parts = append(parts, s)
	}
	if v.Silenced {
		parts = append(parts, "silenced until "+v.SilencedUntil.UTC().Format(time.RFC3339))
	}
	if v.DatasetState == "suspended" {
		parts = append(parts, "dataset suspended")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func (inv *invocation) alertEvents(c *client, _ []string) error {
	path := "/events"
	if inv.threshold != "" {
		path += "?threshold=" + url.QueryEscape(inv.threshold)
	}
	var out struct{ Events []alert.Event }
	if err := c.do("GET", path, nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tSTATE\tPOSTED\tCLEARED\tSTATNAME\tKEY\tVALUE\tLIMIT\tACTIONS")
	for _, e := range out.Events {
		cleared := "-"
		if !e.Cleared.IsZero() {
			cleared = e.Cleared.UTC().Format(time.RFC3339)
		}
		key := strings.Join(e.Key, ",")
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%g\t%g\t%s\n", e.ID, e.State, e.Posted.UTC().Format(time.RFC3339), cleared,
			e.Statname, key, e.Value, e.Limit, attempts(e))
	}
	return tw.Flush()
}

// attempts sums up what the actions did: "webhook post delivered;
// email post failed (3 tries): ...".
func attempts(e alert.Event) string {
	type run struct {
		item, what string
	}
	last := map[run]alert.Attempt{}
	var order []run
	for _, a := range e.Attempts {
		r := run{a.Item, a.What}
		if _, ok := last[r]; !ok {
			order = append(order, r)
		}
		last[r] = a
	}
	var parts []string
	for _, r := range order {
		a := last[r]
		s := a.Handler + " " + a.What + " "
		if a.Delivered {
			s += "delivered"
		} else {
			s += "failed"
		}
		if a.Attempt > 1 {
			s += " (" + strconv.Itoa(a.Attempt) + " tries)"
		}
		if !a.Delivered {
			s += ": " + a.Error
		}
		parts = append(parts, s)
	}
	for _, s := range e.Silenced {
		parts = append(parts, s+" silenced")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func (inv *invocation) alertActions(c *client, _ []string) error {
	var out struct{ Actions []alert.Action }
	if err := c.do("GET", "/actions", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tTHRESHOLD\tITEM\tHANDLER\tON\tTARGET")
	for _, a := range out.Actions {
		if len(a.Items) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\n", a.ID, a.ThresholdID)
		}
		for _, it := range a.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.ThresholdID, it.ID, it.Handler, on(it), target(it))
		}
	}
	return tw.Flush()
}

func on(it alert.Item) string {
	switch {
	case it.Post && it.Clear:
		return "post,clear"
	case it.Clear:
		return "clear"
	}
	return "post"
}

func target(it alert.Item) string {
	if it.Handler == alert.Capture && it.Program == "" {
		return fmt.Sprintf("%ds of the offending process's stacks", it.Seconds)
	}
	for _, s := range []string{it.URL, it.Address, it.Destination, it.Dataset, it.Program} {
		if s != "" {
			return s
		}
	}
	return "-"
}

func (inv *invocation) alertSilence(c *client, args []string) error {
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("alerts silence: %q is not a number of seconds", args[1])
	}
	var out struct{ Threshold thresholdView }
	if err := c.do("POST", "/thresholds/"+url.PathEscape(args[0])+"/silence", map[string]int64{"seconds": n}, &out); err != nil {
		return err
	}
	if out.Threshold.Silenced {
		fmt.Fprintf(inv.stdout, "%s silenced until %s\n", out.Threshold.ID, out.Threshold.SilencedUntil.UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintf(inv.stdout, "%s not silenced\n", out.Threshold.ID)
	}
	return nil
}

func (inv *invocation) alertTest(c *client, args []string) error {
	var out struct{ Event alert.Event }
	if err := c.do("POST", "/actions/"+url.PathEscape(args[0])+"/"+url.PathEscape(args[1])+"/test", nil, &out); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "%s: %s\n", out.Event.ID, attempts(out.Event))
	if n := len(out.Event.Attempts); n == 0 || !out.Event.Attempts[n-1].Delivered {
		return fmt.Errorf("the test alert was not delivered")
	}
	return nil
}

// alertCaptures lists an event's captures.
func (inv *invocation) alertCaptures(c *client, args []string) error {
	var out struct{ Event alert.Event }
	if err := c.do("GET", "/events/"+url.PathEscape(args[0]), nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEM\tWHAT\tSTARTED\tSECONDS\tSTACKS\tSAMPLES\tPARTS\tPROGRAM")
	for _, cp := range out.Event.Captures {
		var parts []string
		for _, p := range []struct{ name, href string }{{"folded", cp.Folded}, {"svg", cp.SVG}, {"output", cp.Output}} {
			if p.href != "" {
				parts = append(parts, p.name)
			}
		}
		have := strings.Join(parts, ",")
		if have == "" {
			have = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%d\t%d\t%s\t%s\n", cp.Item, cp.What, cp.Started.UTC().Format(time.RFC3339), cp.Seconds,
			cp.Stacks, cp.Samples, have, cp.Program)
	}
	return tw.Flush()
}

// alertCapture writes a part of an event's capture (folded stacks, the
// flame graph's SVG, or the program's output) to standard output.
func (inv *invocation) alertCapture(c *client, args []string) error {
	switch args[2] {
	case "folded", "svg", "output":
	default:
		return fmt.Errorf("alerts capture: part %q: want folded, svg or output", args[2])
	}
	var b []byte
	if err := c.do("GET", "/events/"+url.PathEscape(args[0])+"/captures/"+url.PathEscape(args[1])+"/"+args[2], nil, &b); err != nil {
		return err
	}
	_, err := inv.stdout.Write(b)
	return err
}
