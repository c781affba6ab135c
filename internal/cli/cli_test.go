package cli_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
	"github.com/sonde-trace/sonde/internal/cli"
)

// agent serves the real API over a fake backend, on loopback.
func agent(t *testing.T, opts *api.Options) (*apitest.Fake, string) {
	t.Helper()
	f := apitest.New()
	if opts == nil {
		opts = &api.Options{}
	}
	opts.Now = f.Now
	srv := httptest.NewUnstartedServer(api.New(f, opts))
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// run runs sonde analytics with args and -url.
func run(t *testing.T, url string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(append(args, "-url", url), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// ok runs and fails unless it succeeds; it returns stdout.
func ok(t *testing.T, url string, args ...string) string {
	t.Helper()
	out, errs, code := run(t, url, args...)
	if code != 0 {
		t.Fatalf("sonde analytics %q: status %d\n%s", args, code, errs)
	}
	return out
}

func TestDatasetsCommands(t *testing.T) {
	f, url := agent(t, nil)
	out := ok(t, url, "create", "syscall.ops[execname=dd][name]")
	want := "DATASET     STATE      INCORE  ONDISK  NAME\n" +
		"dataset-000 archived    1.24M   15.5M  syscall.ops[execname=dd][name]\n"
	if out != want {
		t.Fatalf("create:\n%s\nwant\n%s", out, want)
	}
	ok(t, url, "create", "-open", "io.latency")
	out = ok(t, url, "datasets")
	// dd's dataset keeps its id, though io.latency comes first by name.
	want = "DATASET     STATE      INCORE  ONDISK  NAME\n" +
		"dataset-001 open        1.24M   15.5M  io.latency\n" +
		"dataset-000 archived    1.24M   15.5M  syscall.ops[execname=dd][name]\n"
	if out != want {
		t.Fatalf("datasets:\n%s\nwant\n%s", out, want)
	}
	if out = ok(t, url, "suspend", "dataset-000"); !strings.Contains(out, "suspended") || !strings.Contains(out, "syscall.ops[execname=dd][name]") {
		t.Fatalf("suspend: %s", out)
	}
	ok(t, url, "resume", "syscall.ops[execname=dd][name]")
	if out = ok(t, url, "destroy", "io.latency"); out != "destroyed io.latency\n" {
		t.Fatalf("destroy: %q", out)
	}
	wantCalls := []string{
		"Create(syscall.ops[execname=dd][name], archived)", "Create(io.latency, open)",
		"SetState(syscall.ops[execname=dd][name], suspended)", "SetState(syscall.ops[execname=dd][name], archived)",
		"Destroy(io.latency)",
	}
	if !slices.Equal(f.Calls, wantCalls) {
		t.Fatalf("calls %q", f.Calls)
	}
	// Errors: the API's details, status 1; bad usage, status 2.
	_, errs, code := run(t, url, "create", "sycall.ops")
	if code != 1 || errs != "sonde analytics: sycall.ops\n^\ndataset spec:1:1: unknown statistic \"sycall.ops\"\n" {
		t.Fatalf("bad spec: %d %q", code, errs)
	}
	if _, errs, code = run(t, url, "destroy", "dataset-042"); code != 1 || !strings.Contains(errs, "no dataset dataset-042") {
		t.Fatalf("unknown id: %d %q", code, errs)
	}
	for _, args := range [][]string{{"create"}, {"nope"}, {"read", "a", "b"}, {"read", "x", "-seconds", "two"}} {
		if _, _, code := run(t, url, args...); code != 2 {
			t.Errorf("%q: status %d, want 2", args, code)
		}
	}
	if _, errs, code := run(t, "http://127.0.0.1:1", "datasets"); code != 1 || !strings.Contains(errs, "cannot reach sonded") {
		t.Fatalf("no agent: %d %q", code, errs)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1023: "1023", 1024: "1.00K", 529408: "517K", 1331691: "1.27M",
		16252928: "15.5M", 1 << 30: "1.00G", 10239: "10.0K", 1048575: "1024K", 5 << 40: "5.00T"} {
		if got := cli.Size(n); got != want {
			t.Errorf("Size(%d) = %s, want %s", n, got, want)
		}
	}
}

func sec(offset int, rows ...analytics.Row) analytics.Second {
	return analytics.Second{Time: apitest.Epoch.Add(time.Duration(offset) * time.Second), Samples: 1, Rows: rows}
}

func TestRead(t *testing.T) {
	f, url := agent(t, nil)
	ok(t, url, "create", "syscall.ops[execname]")
	f.Put("syscall.ops[execname]", analytics.PerSecond,
		sec(-2, analytics.Row{Key: []string{"dd"}, Value: 5}, analytics.Row{Key: []string{"a,b"}, Value: 7}),
		sec(-1, analytics.Row{Key: []string{"dd"}, Value: 12345}))
	args := []string{"read", "syscall.ops[execname]", "-start", "20261125T09:59:58", "-seconds", "2"}
	table := ok(t, url, append(args, "-o", "table")...)
	want := "TIME               KEY  VALUE\n" +
		"20261125T09:59:58          12\n" +
		"                   a,b      7\n" +
		"                   dd       5\n" +
		"20261125T09:59:59       12345\n" +
		"                   dd   12345\n"
	if table != want {
		t.Fatalf("table:\n%s\nwant\n%s", table, want)
	}
	csv := ok(t, url, append(args, "-o", "csv")...)
	want = "time,key,value\n20261125T09:59:58,\"a,b\",7\n20261125T09:59:58,dd,5\n20261125T09:59:59,dd,12345\n"
	if csv != want {
		t.Fatalf("csv:\n%s\nwant\n%s", csv, want)
	}
	js := ok(t, url, append(args, "-o", "json")...)
	var m struct{ Data []map[string]any }
	if err := json.Unmarshal([]byte(js), &m); err != nil || len(m.Data) != 2 || m.Data[1]["sample"] != float64(1795600799) {
		t.Fatalf("json: %v\n%s", err, js)
	}
	// One second: the API's single object, printed the same way; flags
	// before the name too.
	one := ok(t, url, "read", "-o", "csv", "-start", "2026-11-25T09:59:59Z", "dataset-000")
	if one != "time,key,value\n20261125T09:59:59,dd,12345\n" {
		t.Fatalf("one second: %q", one)
	}
	if c := f.Calls[len(f.Calls)-1]; c != "Data(syscall.ops[execname], 2026-11-25T09:59:59Z, 1, second, true)" {
		t.Fatalf("call %s", c)
	}
	if _, errs, code := run(t, url, "read", "syscall.ops[execname]", "-granularity", "day"); code != 1 || !strings.Contains(errs, "bad granularity") {
		t.Fatalf("bad granularity: %d %q", code, errs)
	}
	if _, errs, code := run(t, url, "read", "syscall.ops[execname]", "-o", "xml"); code != 1 || !strings.Contains(errs, "bad -o") {
		t.Fatalf("bad -o: %d %q", code, errs)
	}
}

func TestReadDistribution(t *testing.T) {
	f, url := agent(t, nil)
	ok(t, url, "create", "io.latency")
	f.Put("io.latency", analytics.PerSecond, sec(-1, analytics.Row{Value: 3, Buckets: []analytics.Bucket{
		{Min: 1000, Max: 2000, Count: 2}, {Min: 1 << 30, Max: analytics.Unbounded, Count: 1}}}))
	csv := ok(t, url, "read", "io.latency", "-start", "20261125T09:59:59", "-o", "csv")
	want := "time,key,min,max,count\n20261125T09:59:59,,1000,2000,2\n20261125T09:59:59,,1073741824,,1\n"
	if csv != want {
		t.Fatalf("csv:\n%s\nwant\n%s", csv, want)
	}
	table := ok(t, url, "read", "io.latency", "-start", "20261125T09:59:59")
	for _, s := range []string{"[1000, 2000)", "[1073741824, )"} {
		if !strings.Contains(table, s) {
			t.Fatalf("table lacks %s:\n%s", s, table)
		}
	}
}

func TestDrill(t *testing.T) {
	f, url := agent(t, nil)
	ok(t, url, "create", "syscall.ops[execname]")
	out := ok(t, url, "drill", "syscall.ops[execname]", "--key", "dd", "--by", "name")
	if !strings.Contains(out, "syscall.ops[execname=dd][name]") {
		t.Fatalf("drill: %s", out)
	}
	if c := f.Calls[len(f.Calls)-1]; c != "Create(syscall.ops[execname=dd][name], archived)" {
		t.Fatalf("call %s", c)
	}
	for _, c := range []struct{ spec, key, by, want string }{
		{"syscall.ops[execname]", "dd", "name", "syscall.ops[execname=dd][name]"},
		{"syscall.ops[execname]", "", "name", "syscall.ops[execname][name]"},
		{"syscall.ops[execname][name]", "name=write", "pid", "syscall.ops[name=write][execname][pid]"},
		{"syscall.ops[name][execname=dd]", "write", "pid", "syscall.ops[execname=dd][name=write][pid]"},
		{"syscall.ops[execname][name]", "execname=dd", "pid", "syscall.ops[execname=dd][name][pid]"},
		{"syscall.ops[execname]", "my prog", "name", `syscall.ops[execname="my prog"][name]`},
		{`syscall.ops[execname="a]b"][name]`, `x"y`, "pid", `syscall.ops[execname="a]b"][name="x\"y"][pid]`},
	} {
		got, err := cli.Drill(c.spec, c.key, c.by)
		if err != nil || got != c.want {
			t.Errorf("Drill(%q, %q, %q) = %q, %v; want %q", c.spec, c.key, c.by, got, err, c.want)
		}
	}
	for _, c := range []struct{ spec, key, by, err string }{
		{"syscall.ops", "dd", "name", "no breakdown"},
		{"syscall.ops[execname][name]", "dd", "pid", "several breakdowns"},
		{"syscall.ops[execname]", "pid=1", "name", "no breakdown pid"},
		{"syscall.ops[execname]", "dd", "execname", "already"},
		{"syscall.ops[execname", "dd", "name", "byte 21: missing ']'"},
		{"[execname]", "dd", "name", "a statistic's name is expected"},
		{"syscall.ops[]", "dd", "name", "expected a breakdown's name"},
	} {
		if _, err := cli.Drill(c.spec, c.key, c.by); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Drill(%q, %q, %q): %v, want %q", c.spec, c.key, c.by, err, c.err)
		}
	}
	if _, errs, code := run(t, url, "drill", "syscall.ops[execname]", "-key", "dd"); code != 1 || !strings.Contains(errs, "-by") {
		t.Fatalf("drill without -by: %d %q", code, errs)
	}
}

func TestCatalogueEventsWorksheets(t *testing.T) {
	f, url := agent(t, nil)
	out := ok(t, url, "statistics")
	if !strings.HasPrefix(out, "STATISTIC") || !strings.Contains(out, "syscall.ops      counter       execname,name  system calls per second") {
		t.Fatalf("statistics:\n%s", out)
	}
	f.AddEvent(analytics.Event{Time: apitest.Epoch, Kind: "auto-suspended", Dataset: "io.latency", Message: "over budget"})
	if out = ok(t, url, "events"); !strings.Contains(out, "20261125T10:00:00  auto-suspended  io.latency  over budget") {
		t.Fatalf("events:\n%s", out)
	}
	if _, err := f.SaveWorksheet(analytics.Worksheet{Name: "dd", Datasets: []string{"syscall.ops", "io.ops"}}); err != nil {
		t.Fatal(err)
	}
	if out = ok(t, url, "worksheets"); !strings.Contains(out, "worksheet-001  dd    syscall.ops io.ops") {
		t.Fatalf("worksheets:\n%s", out)
	}
}

// Off loopback, the CLI's credentials reach the API: a token, a token
// file, basic auth.
func TestCredentials(t *testing.T) {
	const token = "cli-token-0123456789"
	hash, err := api.HashPassword("pw")
	if err != nil {
		t.Fatal(err)
	}
	f := apitest.New()
	srv := httptest.NewServer(api.New(f, &api.Options{Now: f.Now, Tokens: map[string]api.Role{token: api.Admin},
		Users: map[string]api.User{"root": {Role: api.ReadOnly, Hash: hash}}}))
	defer srv.Close()
	if _, errs, code := run(t, srv.URL, "datasets"); code != 1 || !strings.Contains(errs, "credentials required") {
		t.Fatalf("no credentials: %d %q", code, errs)
	}
	ok(t, srv.URL, "create", "syscall.ops", "-token", token)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok(t, srv.URL, "destroy", "syscall.ops", "-token-file", file)
	ok(t, srv.URL, "datasets", "-user", "root", "-password", "pw")
	if _, errs, code := run(t, srv.URL, "create", "io.latency", "-user", "root", "-password", "pw"); code != 1 || !strings.Contains(errs, "read-only role may not POST") {
		t.Fatalf("read-only create: %d %q", code, errs)
	}
}

func TestPasswd(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"passwd", "root", "admin"}, strings.NewReader("s3cret\n"), &out, &errb); code != 0 {
		t.Fatalf("passwd: %d %s", code, errb.String())
	}
	users, err := api.ParseUsers(strings.NewReader(out.String()), "users")
	if err != nil || users["root"].Role != api.Admin {
		t.Fatalf("passwd line %q: %v", out.String(), err)
	}
	if code := cli.Run([]string{"passwd", "root", "god"}, strings.NewReader("x\n"), &out, &errb); code != 1 {
		t.Fatalf("bad role: %d", code)
	}
}

// create -export, export and unexport mark a dataset for /metrics.
func TestExportCommands(t *testing.T) {
	f, url := agent(t, nil)
	ok(t, url, "create", "-export", "syscall.ops[name]")
	ok(t, url, "unexport", "syscall.ops[name]")
	ok(t, url, "export", "dataset-000")
	want := []string{"Create(syscall.ops[name], archived)", "SetExport(syscall.ops[name], true)",
		"SetExport(syscall.ops[name], false)", "SetExport(syscall.ops[name], true)"}
	var got []string
	for _, c := range f.Calls {
		if strings.HasPrefix(c, "Create") || strings.HasPrefix(c, "SetExport") {
			got = append(got, c)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if d, _ := f.Dataset("syscall.ops[name]"); !d.Export {
		t.Errorf("not exported at the end: %+v", d)
	}
}
