package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/remotewrite"
)

// remoteWrite is the flags of the remote-write writer.
type remoteWrite struct {
	url, host, job            string
	tokenFile                 string
	user, passwordFile        string
	caFile, certFile, keyFile string
	insecure                  bool
	maxCatchUp                time.Duration
	maxSamples                int
}

// config is the writer's configuration from the flags; credentials are
// read from files, never given on the command line.
func (r *remoteWrite) config() (remotewrite.Config, error) {
	if u, err := url.Parse(r.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return remotewrite.Config{}, fmt.Errorf("--remote-write: %q is not an http(s) URL", r.url)
	}
	c := remotewrite.Config{URL: r.url, Host: r.host, Job: r.job, Username: r.user, MaxCatchUp: r.maxCatchUp, MaxSamples: r.maxSamples}
	read := func(flag, path string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("--%s: %w", flag, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	var err error
	if r.tokenFile != "" {
		if c.BearerToken, err = read("remote-write-bearer-token-file", r.tokenFile); err != nil {
			return c, err
		}
	}
	if (r.user == "") != (r.passwordFile == "") {
		return c, fmt.Errorf("--remote-write-user and --remote-write-password-file go together")
	}
	if r.passwordFile != "" {
		if c.Password, err = read("remote-write-password-file", r.passwordFile); err != nil {
			return c, err
		}
	}
	if r.caFile != "" || r.certFile != "" || r.keyFile != "" || r.insecure {
		c.TLS = &tls.Config{InsecureSkipVerify: r.insecure} //nolint:gosec // asked for by a flag
		if r.caFile != "" {
			pem, err := os.ReadFile(r.caFile)
			if err != nil {
				return c, fmt.Errorf("--remote-write-ca-file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return c, fmt.Errorf("--remote-write-ca-file: no certificate in %s", r.caFile)
			}
			c.TLS.RootCAs = pool
		}
		if (r.certFile == "") != (r.keyFile == "") {
			return c, fmt.Errorf("--remote-write-cert-file and --remote-write-key-file go together")
		}
		if r.certFile != "" {
			cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
			if err != nil {
				return c, fmt.Errorf("--remote-write-cert-file: %w", err)
			}
			c.TLS.Certificates = []tls.Certificate{cert}
		}
	}
	return c, nil
}
