package cli

import (
	"bufio"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sonde-trace/sonde/internal/api"
)

// datasets prints DATASET STATE INCORE ONDISK NAME, as the appliance did.
func (inv *invocation) datasets(_ []string) error {
	c, err := inv.client()
	if err != nil {
		return err
	}
	ds, err := c.datasets()
	if err != nil {
		return err
	}
	printDatasets(inv, ds...)
	return nil
}

// printDatasets prints datasets as the appliance's CLI did.
func printDatasets(inv *invocation, ds ...dataset) {
	fmt.Fprintf(inv.stdout, "%-11s %-9s %7s %7s  %s\n", "DATASET", "STATE", "INCORE", "ONDISK", "NAME")
	for _, d := range ds {
		fmt.Fprintf(inv.stdout, "%-11s %-9s %7s %7s  %s\n", d.Dataset, d.State, Size(d.Incore), Size(d.Size), d.Name)
	}
}

// Size writes bytes as the appliance did: 512, 517K, 1.27M, 15.5M.
func Size(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d", n)
	}
	v := float64(n)
	unit := ""
	for _, u := range []string{"K", "M", "G", "T", "P", "E"} {
		if v < 1024 {
			break
		}
		v /= 1024
		unit = u
	}
	switch s := fmt.Sprintf("%.2f", v); {
	case v < 10 && s != "10.00":
		return s + unit
	case v < 100 && fmt.Sprintf("%.1f", v) != "100.0":
		return fmt.Sprintf("%.1f", v) + unit
	}
	return fmt.Sprintf("%.0f", v) + unit
}

// create creates a dataset and prints it.
func (inv *invocation) create(args []string) error {
	c, err := inv.client()
	if err != nil {
		return err
	}
	return inv.createSpec(c, args[0])
}

func (inv *invocation) createSpec(c *client, spec string) error {
	state := "archived"
	if inv.open {
		state = "open"
	}
	var out struct{ Dataset dataset }
	if err := c.do("POST", "/datasets", map[string]any{"statistic": spec, "state": state, "export": inv.exported}, &out); err != nil {
		return err
	}
	printDatasets(inv, out.Dataset)
	return nil
}

func (inv *invocation) suspend(args []string) error { return inv.put(args[0], "suspended", true) }
func (inv *invocation) resume(args []string) error  { return inv.put(args[0], "suspended", false) }
func (inv *invocation) export(args []string) error  { return inv.put(args[0], "export", true) }
func (inv *invocation) unexport(args []string) error {
	return inv.put(args[0], "export", false)
}

// dataset connects to the agent and finds a dataset named by its name or
// its dataset-NNN id.
func (inv *invocation) dataset(arg string) (*client, string, error) {
	c, err := inv.client()
	if err != nil {
		return nil, "", err
	}
	name, err := c.resolve(arg)
	return c, name, err
}

// put sets one boolean of a dataset (suspended, export) and prints it.
func (inv *invocation) put(name, field string, on bool) error {
	c, name, err := inv.dataset(name)
	if err != nil {
		return err
	}
	var out struct{ Dataset dataset }
	if err := c.do("PUT", datasetPath(name), map[string]bool{field: on}, &out); err != nil {
		return err
	}
	printDatasets(inv, out.Dataset)
	return nil
}

// destroy destroys a dataset.
func (inv *invocation) destroy(args []string) error {
	c, name, err := inv.dataset(args[0])
	if err != nil {
		return err
	}
	if err := c.do("DELETE", datasetPath(name), nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "destroyed %s\n", name)
	return nil
}

// statistics prints the catalogue.
func (inv *invocation) statistics(_ []string) error {
	c, err := inv.client()
	if err != nil {
		return err
	}
	var out struct {
		Statistics []struct {
			Name, Description, Kind string
			Breakdowns              []struct{ Name string }
		}
	}
	if err := c.do("GET", "/statistics", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "STATISTIC\tKIND\tBREAKDOWNS\tDESCRIPTION")
	for _, s := range out.Statistics {
		var bs []string
		for _, b := range s.Breakdowns {
			bs = append(bs, b.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Kind, strings.Join(bs, ","), s.Description)
	}
	return tw.Flush()
}

// events prints the agent's events.
func (inv *invocation) events(_ []string) error {
	c, err := inv.client()
	if err != nil {
		return err
	}
	var out struct {
		Events []struct {
			Time                   time.Time
			Kind, Dataset, Message string
		}
	}
	if err := c.do("GET", "/events", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tKIND\tDATASET\tMESSAGE")
	for _, e := range out.Events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Time.UTC().Format(api.ApplianceTime), e.Kind, dash(e.Dataset), e.Message)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// worksheets prints the worksheets.
func (inv *invocation) worksheets(_ []string) error {
	c, err := inv.client()
	if err != nil {
		return err
	}
	var out struct {
		Worksheets []struct {
			ID, Name string
			Datasets []string
		}
	}
	if err := c.do("GET", "/worksheets", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tDATASETS")
	for _, w := range out.Worksheets {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", w.ID, w.Name, strings.Join(w.Datasets, " "))
	}
	return tw.Flush()
}

// passwd prints a users-file line for a user, the password read from
// the first line of stdin.
func (inv *invocation) passwd(args []string) error {
	role, err := api.ParseRole(args[1])
	if err != nil {
		return err
	}
	if strings.ContainsAny(args[0], " \t\n#") {
		return fmt.Errorf("bad user name %q", args[0])
	}
	sc := bufio.NewScanner(inv.stdin)
	if !sc.Scan() || sc.Text() == "" {
		return fmt.Errorf("passwd: give the password on stdin")
	}
	hash, err := api.HashPassword(sc.Text())
	if err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "%s %s %s\n", args[0], role, hash)
	return nil
}

func drillFlags(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.by, "by", "", "the new dataset's breakdown")
	fs.StringVar(&inv.key, "key", "", "the key to drill into: VALUE, or BREAKDOWN=VALUE")
}

// drill creates the drill-down of a dataset.
func (inv *invocation) drill(args []string) error {
	if inv.by == "" {
		return fmt.Errorf("drill needs -by BREAKDOWN")
	}
	c, name, err := inv.dataset(args[0])
	if err != nil {
		return err
	}
	spec, err := Drill(name, inv.key, inv.by)
	if err != nil {
		return err
	}
	return inv.createSpec(c, spec)
}
