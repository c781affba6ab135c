// Command sonded is the analytics agent: datasets sampled every second
// into an embedded store, served over the appliance's analytics REST API.
// Run as root (or with the capabilities of packaging/sonded.service):
//
//	sonded [--state-dir /var/lib/sonde] [--listen 127.0.0.1:7390]
//	       [--tls-cert F --tls-key F] [--tokens F] [--users F]
//	       [--remote-write URL ...]
//	sonded analytics COMMAND ...   (what `sonde analytics` runs)
//
// On a loopback address no credentials are needed; on any other, a
// bearer token or a user's password is (see docs/analytics.md). The web UI
// is served at / (docs/analytics.md, "The web UI").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sonde-trace/sonde/internal/agent"
	"github.com/sonde-trace/sonde/internal/alert"
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/cli"
	"github.com/sonde-trace/sonde/internal/promapi"
	"github.com/sonde-trace/sonde/internal/promexp"
	"github.com/sonde-trace/sonde/internal/remotewrite"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/store"
	"github.com/sonde-trace/sonde/internal/ui"
)

// Version is set at build time.
var Version = "0.1.0-dev"

type config struct {
	stateDir, listen       string
	tlsCert, tlsKey        string
	tokens, users          string
	budget                 float64
	keyLimit               int
	retainSec, retainMin   string
	retainHour, maxStorage string
	maxCaptures            string
	readCache              string
	alertTimeout           time.Duration
	alertBackoff           time.Duration
	alertRetries           int
	remoteWrite            remoteWrite
	queryAPI               bool
	version                bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "analytics" {
		// the analytics commands: `sonde analytics ...` runs them here
		// (cmd/sonde/analytics.go), so that sonde links no HTTP client
		os.Exit(cli.Run(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("sonded", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.stateDir, "state-dir", "/var/lib/sonde", "directory of the store (datasets, data, worksheets, events)")
	fs.StringVar(&c.listen, "listen", analytics.DefaultAddr, "address of the HTTP API")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate file (with --tls-key)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS key file")
	fs.StringVar(&c.tokens, "tokens", "", "bearer tokens file: TOKEN ROLE per line (read-only or admin)")
	fs.StringVar(&c.users, "users", "", "users file for basic auth and X-Auth-User/X-Auth-Key")
	fs.Float64Var(&c.budget, "budget", agent.DefaultBudget, "share of one CPU all datasets' BPF programs may take before the dearest is suspended (negative: none)")
	fs.IntVar(&c.keyLimit, "key-limit", agent.DefaultKeyLimit, "keys a dataset keeps per second; the rest are summed as \"other\"")
	fs.StringVar(&c.retainSec, "retain-seconds", "", "how long per-second data is kept (default 7d)")
	fs.StringVar(&c.retainMin, "retain-minutes", "", "how long per-minute data is kept (default 14d)")
	fs.StringVar(&c.retainHour, "retain-hours", "", "how long per-hour data is kept (default 90d)")
	fs.StringVar(&c.maxStorage, "max-storage", "", "cap on the store's size on disk, e.g. 10g (default none)")
	fs.StringVar(&c.readCache, "read-cache", "128m", "memory kept for decoded chunks of the store that reads ask for again, e.g. 512m (0: none)")
	fs.StringVar(&c.maxCaptures, "max-capture-storage", "256m", "cap on the alert captures' parts kept; past it the oldest are discarded")
	fs.DurationVar(&c.alertTimeout, "alert-timeout", 10*time.Second, "how long one attempt of an alert action may take")
	fs.IntVar(&c.alertRetries, "alert-retries", 3, "how many times a failed alert action is tried again")
	fs.DurationVar(&c.alertBackoff, "alert-backoff", time.Second, "the wait before an alert action's first retry (doubled for each next)")
	fs.StringVar(&c.remoteWrite.url, "remote-write", "", "send the exported datasets to this Prometheus remote-write URL (e.g. http://HOST:9090/api/v1/write)")
	fs.StringVar(&c.remoteWrite.host, "host-label", "", "the host and instance labels of the series sent by remote-write and served by the query API (default the host's name)")
	fs.BoolVar(&c.queryAPI, "query-api", true, "serve the Prometheus query API (/api/v1/query ...) over the store")
	fs.StringVar(&c.remoteWrite.job, "remote-write-job", "sonded", "the job label of the series sent by remote-write and served by the query API")
	fs.StringVar(&c.remoteWrite.tokenFile, "remote-write-bearer-token-file", "", "file holding the receiver's bearer token")
	fs.StringVar(&c.remoteWrite.user, "remote-write-user", "", "user for the receiver's basic auth (with --remote-write-password-file)")
	fs.StringVar(&c.remoteWrite.passwordFile, "remote-write-password-file", "", "file holding the receiver's basic auth password")
	fs.StringVar(&c.remoteWrite.caFile, "remote-write-ca-file", "", "CA certificates (PEM) the receiver's certificate is checked against")
	fs.StringVar(&c.remoteWrite.certFile, "remote-write-cert-file", "", "client certificate (PEM) for the receiver")
	fs.StringVar(&c.remoteWrite.keyFile, "remote-write-key-file", "", "client key (PEM) for the receiver")
	fs.BoolVar(&c.remoteWrite.insecure, "remote-write-insecure-skip-verify", false, "do not check the receiver's certificate")
	fs.DurationVar(&c.remoteWrite.maxCatchUp, "remote-write-max-catchup", 55*time.Minute, "how old a second may be and still be sent after an outage (Prometheus refuses samples an hour older than its newest)")
	fs.IntVar(&c.remoteWrite.maxSamples, "remote-write-max-samples", 20000, "samples per request at most")
	fs.BoolVar(&c.version, "version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.version {
		fmt.Fprintf(stderr, "sonded %s\n", Version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sonded: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := serve(&c, stderr); err != nil {
		fmt.Fprintf(stderr, "sonded: %v\n", err)
		return 1
	}
	return 0
}

// serve runs the agent and its API until SIGINT or SIGTERM.
func serve(c *config, stderr io.Writer) error {
	sopts, err := storeOptions(c)
	if err != nil {
		return err
	}
	hopts, err := apiOptions(c)
	if err != nil {
		return err
	}
	captureBytes, err := parseBytes(c.maxCaptures)
	if err != nil || captureBytes <= 0 {
		return fmt.Errorf("--max-capture-storage %q: want a size such as 256m", c.maxCaptures)
	}
	var rwc remotewrite.Config
	if c.remoteWrite.url != "" {
		if rwc, err = c.remoteWrite.config(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	if !api.IsLoopback(ln.Addr()) && len(hopts.Tokens) == 0 && len(hopts.Users) == 0 {
		ln.Close()
		return fmt.Errorf("listening on %s, off loopback, needs credentials: give --tokens or --users", ln.Addr())
	}
	db, err := store.Open(c.stateDir, sopts)
	if err != nil {
		ln.Close()
		return err
	}
	logger := log.New(stderr, "sonded: ", 0)
	a, err := agent.New(agent.Config{Store: db, Catalogue: stats.New(), Budget: c.budget, KeyLimit: c.keyLimit, Logf: logger.Printf})
	if err != nil {
		ln.Close()
		db.Close()
		return err
	}
	scheme := "http"
	if c.tlsCert != "" {
		scheme = "https"
	}
	alerts, err := alert.New(alert.Config{Meta: db, Datasets: a, Timeout: c.alertTimeout, Retries: retries(c.alertRetries),
		Backoff: c.alertBackoff, Link: scheme + "://" + ln.Addr().String(), Logf: logger.Printf, MaxCaptureBytes: captureBytes})
	if err != nil {
		ln.Close()
		a.Close()
		db.Close()
		return err
	}
	a.SetObserver(alerts)
	var rw *remotewrite.Writer
	if c.remoteWrite.url != "" {
		rwc.Logf = logger.Printf
		if rw, err = remotewrite.New(a, db, rwc); err != nil {
			ln.Close()
			alerts.Close()
			a.Close()
			db.Close()
			return err
		}
	}
	hopts.Logf = logger.Printf
	apiH := api.New(a, hopts)
	own := []prometheus.Collector{cacheCollector{db}}
	if rw != nil {
		own = append(own, rw)
	}
	routes := map[string]http.Handler{
		alert.Prefix: alerts.Handler(),
		"/metrics":   promexp.Handler(promexp.New(a, nil), own...),
		"/":          ui.WithAPI(apiH), // the web UI, and the analytics API under its prefix
	}
	if c.queryAPI {
		qa, err := promapi.New(a, promapi.Config{Host: c.remoteWrite.host, Job: c.remoteWrite.job})
		if err != nil {
			ln.Close()
			alerts.Close()
			a.Close()
			db.Close()
			return err
		}
		routes[promapi.Prefix] = qa.Handler()
	}
	h := apiH.Mount(routes)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 2)
	go func() { done <- a.Run(ctx) }()
	go func() { done <- api.ServeListener(ctx, ln, h, c.tlsCert, c.tlsKey) }()
	rwDone := make(chan struct{})
	go func() {
		defer close(rwDone)
		if rw != nil {
			logger.Printf("remote-write to %s", c.remoteWrite.url)
			_ = rw.Run(ctx)
		}
	}()
	logger.Printf("listening on %s, state in %s", ln.Addr(), c.stateDir)
	notify("READY=1")
	err = <-done
	stop()
	if e := <-done; err == nil {
		err = e
	}
	<-rwDone
	notify("STOPPING=1")
	a.SetObserver(nil)
	if e := alerts.Close(); err == nil {
		err = e
	}
	if e := a.Close(); err == nil {
		err = e
	}
	if e := db.Close(); err == nil {
		err = e
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// retries is the engine's retries from the flag: 0 is none (the
// engine's 0 is its default).
func retries(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// notify tells systemd (Type=notify) how the agent is, when it runs under
// systemd: a datagram to $NOTIFY_SOCKET.
func notify(state string) {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return
	}
	if path[0] == '@' {
		path = "\x00" + path[1:] // an abstract socket
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = conn.Write([]byte(state))
}
