package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"strconv"
)

func readFlags(fs *flag.FlagSet, inv *invocation) {
	fs.IntVar(&inv.seconds, "seconds", 0, "seconds to read (default one interval)")
	fs.StringVar(&inv.start, "start", "", "now, YYYYMMDDTHH:MM:SS (UTC) or ISO 8601; default the last seconds")
	fs.StringVar(&inv.granularity, "granularity", "", "second, minute or hour")
	fs.StringVar(&inv.output, "o", "table", "table, csv or json")
}

// bucket, key and interval are the API's data, as the CLI reads it.
type bucket struct {
	Min   int64  `json:"min"`
	Max   *int64 `json:"max"`
	Count int64  `json:"count"`
}

type key struct {
	Key     string   `json:"key"`
	Value   int64    `json:"value"`
	Buckets []bucket `json:"buckets"`
}

type interval struct {
	StartTime string `json:"startTime"`
	Samples   int    `json:"samples"`
	Data      struct {
		Value   int64    `json:"value"`
		Data    []key    `json:"data"`
		Buckets []bucket `json:"buckets"`
	} `json:"data"`
}

// read prints a dataset's data.
func (inv *invocation) read(args []string) error {
	switch inv.output {
	case "table", "csv", "json":
	default:
		return fmt.Errorf("bad -o %q: want table, csv or json", inv.output)
	}
	c, name, err := inv.dataset(args[0])
	if err != nil {
		return err
	}
	q := url.Values{}
	if inv.seconds != 0 {
		q.Set("seconds", strconv.Itoa(inv.seconds))
	}
	if inv.start != "" {
		q.Set("start", inv.start)
	}
	if inv.granularity != "" {
		q.Set("granularity", inv.granularity)
	}
	var raw []byte
	if err := c.do("GET", datasetPath(name)+"/data?"+q.Encode(), nil, &raw); err != nil {
		return err
	}
	if inv.output == "json" {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			return fmt.Errorf("bad answer from sonded: %w", err)
		}
		_, err := inv.stdout.Write(b.Bytes())
		return err
	}
	ivs, err := intervals(raw)
	if err != nil {
		return err
	}
	if inv.output == "csv" {
		return inv.printCSV(ivs)
	}
	return inv.printTable(ivs)
}

// intervals decodes a data answer: a list, or one object (or null).
func intervals(raw []byte) ([]interval, error) {
	var m struct{ Data json.RawMessage }
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("bad answer from sonded: %w", err)
	}
	d := bytes.TrimSpace(m.Data)
	var ivs []interval
	var err error
	switch {
	case len(d) == 0 || string(d) == "null":
	case d[0] == '[':
		err = json.Unmarshal(d, &ivs)
	default:
		var one interval
		err = json.Unmarshal(d, &one)
		ivs = []interval{one}
	}
	if err != nil {
		return nil, fmt.Errorf("bad answer from sonded: %w", err)
	}
	return ivs, nil
}

// isDistribution says whether the data has buckets.
func isDistribution(ivs []interval) bool {
	for _, iv := range ivs {
		if len(iv.Data.Buckets) > 0 {
			return true
		}
	}
	return false
}

// rng writes a bucket's range.
func (b bucket) rng() string {
	if b.Max == nil {
		return fmt.Sprintf("[%d, )", b.Min)
	}
	return fmt.Sprintf("[%d, %d)", b.Min, *b.Max)
}

func (b bucket) maxString() string {
	if b.Max == nil {
		return ""
	}
	return strconv.FormatInt(*b.Max, 10)
}

// printTable prints each interval's total, then its keys (and a
// distribution's buckets) below it.
func (inv *invocation) printTable(ivs []interval) error {
	kw, vw := len("KEY"), len("VALUE")
	for _, iv := range ivs {
		vw = max(vw, len(strconv.FormatInt(iv.Data.Value, 10)))
		for _, k := range iv.Data.Data {
			kw = max(kw, len(k.Key))
			for _, b := range k.Buckets {
				kw = max(kw, len(b.rng())+2)
			}
		}
		for _, b := range iv.Data.Buckets {
			kw = max(kw, len(b.rng()))
		}
	}
	line := func(t, k string, v int64) {
		fmt.Fprintf(inv.stdout, "%-17s  %-*s  %*d\n", t, kw, k, vw, v)
	}
	fmt.Fprintf(inv.stdout, "%-17s  %-*s  %*s\n", "TIME", kw, "KEY", vw, "VALUE")
	for _, iv := range ivs {
		line(iv.StartTime, "", iv.Data.Value)
		for _, k := range iv.Data.Data {
			line("", k.Key, k.Value)
			for _, b := range k.Buckets {
				line("", "  "+b.rng(), b.Count)
			}
		}
		if len(iv.Data.Data) == 0 {
			for _, b := range iv.Data.Buckets {
				line("", b.rng(), b.Count)
			}
		}
	}
	return nil
}

// printCSV prints one line per key and interval (time,key,value; the
// key empty for a dataset without breakdowns), or for distributions one
// per bucket (time,key,min,max,count).
func (inv *invocation) printCSV(ivs []interval) error {
	w := csv.NewWriter(inv.stdout)
	dist := isDistribution(ivs)
	if dist {
		_ = w.Write([]string{"time", "key", "min", "max", "count"})
	} else {
		_ = w.Write([]string{"time", "key", "value"})
	}
	for _, iv := range ivs {
		keys := iv.Data.Data
		if keys == nil {
			keys = []key{{Value: iv.Data.Value, Buckets: iv.Data.Buckets}}
		}
		for _, k := range keys {
			if !dist {
				_ = w.Write([]string{iv.StartTime, k.Key, strconv.FormatInt(k.Value, 10)})
				continue
			}
			for _, b := range k.Buckets {
				_ = w.Write([]string{iv.StartTime, k.Key, strconv.FormatInt(b.Min, 10), b.maxString(), strconv.FormatInt(b.Count, 10)})
			}
		}
	}
	w.Flush()
	return w.Error()
}
