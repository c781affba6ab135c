package alert

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/smtp"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// sender delivers a notice; ctx bounds the attempt.
type sender interface {
	send(ctx context.Context, n Notice) error
}

// handler makes the sender of an item.
func (e *Engine) handler(action string, it Item) (sender, error) {
	switch it.Handler {
	case Webhook:
		return webhook{url: it.URL}, nil
	case Alertmanager:
		return alertmanagerSender{it: it, now: e.cfg.Now}, nil
	case Capture:
		return captureSender{e: e, action: action, it: it}, nil
	case SNMPTrap:
		return snmpSender{it: it, started: e.started, now: e.cfg.Now}, nil
	case Email:
		return emailSender{it: it}, nil
	case Syslog:
		return syslogSender{it: it}, nil
	case ResumeDataset:
		return datasetSender{ds: e.cfg.Datasets, name: it.Dataset, state: analytics.Archived}, nil
	case SuspendDataset:
		return datasetSender{ds: e.cfg.Datasets, name: it.Dataset, state: analytics.Suspended}, nil
	}
	return nil, fmt.Errorf("unknown handler %q", it.Handler)
}

// webhook POSTs the notice as JSON; any status but 2xx is a failure.
type webhook struct{ url string }

func (w webhook) send(ctx context.Context, n Notice) error { return postJSON(ctx, w.url, n) }

// postJSON POSTs v as JSON to url, as sonded; any status but 2xx is a
// failure, with the start of what the server said.
func postJSON(ctx context.Context, url string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "sonded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// datasetSender suspends or resumes a dataset (the appliance's
// enable/disable). A dataset already so is left alone; resuming makes it
// archived.
type datasetSender struct {
	ds    Datasets
	name  string
	state analytics.State
}

func (d datasetSender) send(_ context.Context, n Notice) error {
	if n.What == "test" {
		_, err := d.ds.Dataset(d.name)
		return err
	}
	cur, err := d.ds.Dataset(d.name)
	if err != nil {
		return err
	}
	if (cur.State == analytics.Suspended) == (d.state == analytics.Suspended) {
		return nil
	}
	_, err = d.ds.SetState(d.name, d.state)
	return err
}

// subject and body are what email and syslog say.
func subject(n Notice) string {
	what := map[string]string{"post": "ALERT", "renotify": "STILL", "clear": "CLEARED", "test": "TEST"}[n.What]
	cmp := ">"
	if n.Type == Inverted {
		cmp = "<"
	}
	key := ""
	if len(n.Key) > 0 {
		key = " [" + strings.Join(n.Key, ", ") + "]"
	}
	if n.What == "clear" {
		side := "under"
		if n.Type == Inverted {
			side = "over"
		}
		return fmt.Sprintf("%s %s%s = %g, back %s its limit of %g on %s", what, n.Statname, key, n.Value, side, n.Limit, n.Host)
	}
	return fmt.Sprintf("%s %s%s = %g %s %g on %s", what, n.Statname, key, n.Value, cmp, n.Limit, n.Host)
}

func body(n Notice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", subject(n))
	fmt.Fprintf(&b, "statistic:  %s\n", n.Statname)
	if len(n.Key) > 0 {
		fmt.Fprintf(&b, "key:        %s\n", strings.Join(n.Key, ", "))
	}
	fmt.Fprintf(&b, "value:      %g\n", n.Value)
	fmt.Fprintf(&b, "limit:      %g (%s: alert %s it)\n", n.Limit, n.Type, map[bool]string{true: "below", false: "above"}[n.Type == Inverted])
	fmt.Fprintf(&b, "time:       %s\n", n.Time.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "host:       %s\n", n.Host)
	fmt.Fprintf(&b, "threshold:  %s\n", n.Threshold)
	if n.Event != "" {
		fmt.Fprintf(&b, "event:      %s\n", n.Event)
	}
	if n.Link != "" {
		fmt.Fprintf(&b, "data:       %s\n", n.Link)
	}
	return b.String()
}

// emailSender sends the notice over SMTP.
type emailSender struct{ it Item }

func checkEmail(it *Item) error {
	if _, err := mail.ParseAddress(it.Address); err != nil {
		return badf("email: address %q: %v", it.Address, err)
	}
	if it.From != "" {
		if _, err := mail.ParseAddress(it.From); err != nil {
			return badf("email: from %q: %v", it.From, err)
		}
	}
	if it.Server == "" {
		it.Server = "127.0.0.1:25"
	}
	if _, port, err := net.SplitHostPort(it.Server); err != nil || port == "" {
		return badf("email: server %q: want HOST:PORT", it.Server)
	}
	switch it.StartTLS {
	case "":
		it.StartTLS = "auto"
	case "auto", "require", "never":
	default:
		return badf("email: starttls %q: want auto, require or never", it.StartTLS)
	}
	if it.AuthFile != "" {
		if _, _, err := readAuth(it.AuthFile); err != nil {
			return badf("email: %v", err)
		}
	}
	if it.TLSCA != "" {
		if _, err := readCA(it.TLSCA); err != nil {
			return badf("email: %v", err)
		}
	}
	return nil
}

// readCA reads a PEM file of certificate authorities.
func readCA(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tls_ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("tls_ca %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// readAuth reads "user password" from the first line of a file.
func readAuth(path string) (string, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("auth file: %w", err)
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	if len(f) != 2 {
		return "", "", fmt.Errorf("auth file %s: want one line \"USER PASSWORD\"", path)
	}
	return f[0], f[1], nil
}

func (s emailSender) send(ctx context.Context, n Notice) error {
	host, _, _ := net.SplitHostPort(s.it.Server)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.it.Server)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", s.it.Server, err)
	}
	defer c.Close()
	if err := s.secure(c, host); err != nil {
		return err
	}
	from := s.it.From
	if from == "" {
		from = "sonded@" + hostOr(n.Host)
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(s.it.Address); err != nil {
		return fmt.Errorf("smtp RCPT TO %s: %w", s.it.Address, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := io.WriteString(w, s.message(from, n)); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return c.Quit()
}

// secure starts TLS when offered (or required) and authenticates.
func (s emailSender) secure(c *smtp.Client, host string) error {
	if ok, _ := c.Extension("STARTTLS"); ok && s.it.StartTLS != "never" {
		cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
		if s.it.TLSCA != "" {
			pool, err := readCA(s.it.TLSCA)
			if err != nil {
				return err
			}
			cfg.RootCAs = pool
		}
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("smtp STARTTLS: %w", err)
		}
	} else if s.it.StartTLS == "require" {
		return fmt.Errorf("smtp %s does not offer STARTTLS, and it is required", s.it.Server)
	}
	if s.it.AuthFile == "" {
		return nil
	}
	user, pass, err := readAuth(s.it.AuthFile)
	if err != nil {
		return err
	}
	if err := c.Auth(smtp.PlainAuth("", user, pass, host)); err != nil {
		return fmt.Errorf("smtp AUTH: %w", err)
	}
	return nil
}

func (s emailSender) message(from string, n Notice) string {
	subj := s.it.Subject
	if subj == "" {
		subj = "sonde alert"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s: %s\r\n", from, s.it.Address, subj, subject(n))
	fmt.Fprintf(&b, "Date: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n", n.Time.Format(time.RFC1123Z))
	b.WriteString(strings.ReplaceAll(body(n), "\n", "\r\n"))
	return b.String()
}

func hostOr(h string) string {
	if h == "" {
		return "localhost"
	}
	return h
}

// syslogSender writes an RFC 5424 message to a local datagram socket, over
// UDP (RFC 5426: one message a datagram) or over TCP (RFC 6587's octet
// counting: the message's length in bytes, a space, the message).
type syslogSender struct{ it Item }

// syslogTarget reads a destination: a path (unix datagram socket),
// udp://host:port or tcp://host:port.
func syslogTarget(dest string) (network, addr string, err error) {
	switch {
	case strings.HasPrefix(dest, "/"):
		return "unixgram", dest, nil
	case strings.HasPrefix(dest, "udp://"), strings.HasPrefix(dest, "tcp://"):
		u, err := url.Parse(dest)
		if err != nil || u.Port() == "" || u.Path != "" {
			return "", "", fmt.Errorf("destination %q: want %s://HOST:PORT", dest, dest[:3])
		}
		return u.Scheme, u.Host, nil
	}
	return "", "", fmt.Errorf("destination %q: want a socket's path (/dev/log), udp://HOST:PORT or tcp://HOST:PORT", dest)
}

var facilities = map[string]int{"kern": 0, "user": 1, "mail": 2, "daemon": 3, "auth": 4, "syslog": 5, "local0": 16,
	"local1": 17, "local2": 18, "local3": 19, "local4": 20, "local5": 21, "local6": 22, "local7": 23}

func facility(name string) (int, error) {
	if name == "" {
		return 3, nil
	}
	f, ok := facilities[name]
	if !ok {
		return 0, fmt.Errorf("facility %q: want daemon, user, local0 ... local7", name)
	}
	return f, nil
}

// sdID is the structured data's ID: 32473 is the enterprise number kept
// for examples (RFC 5612), until sonde has its own.
const sdID = "sonde@32473"

func (s syslogSender) send(ctx context.Context, n Notice) error {
	network, addr, err := syslogTarget(s.it.Destination)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	msg := rfc5424(s.it.Facility, n)
	if network == "tcp" {
		msg = strconv.Itoa(len(msg)) + " " + msg
	}
	_, err = conn.Write([]byte(msg))
	return err
}

// rfc5424 formats the notice: warning when it posts, notice when it
// clears or is a test.
func rfc5424(fac string, n Notice) string {
	f, _ := facility(fac)
	sev := 4
	if n.What == "clear" || n.What == "test" {
		sev = 5
	}
	params := []string{"event", n.Event, "threshold", n.Threshold, "statname", n.Statname, "what", n.What,
		"value", strconv.FormatFloat(n.Value, 'g', -1, 64), "limit", strconv.FormatFloat(n.Limit, 'g', -1, 64)}
	if len(n.Key) > 0 {
		params = append(params, "key", strings.Join(n.Key, ","))
	}
	var sd strings.Builder
	sd.WriteString("[" + sdID)
	for i := 0; i < len(params); i += 2 {
		fmt.Fprintf(&sd, " %s=\"%s\"", params[i], sdEscape(params[i+1]))
	}
	sd.WriteString("]")
	return fmt.Sprintf("<%d>1 %s %s sonded %d %s %s %s", f*8+sev, n.Time.UTC().Format(time.RFC3339), nilDash(n.Host),
		os.Getpid(), n.What, sd.String(), subject(n))
}

func sdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, `]`, `\]`).Replace(s)
}

func nilDash(s string) string {
	if s == "" || strings.ContainsAny(s, " ") {
		return "-"
	}
	return s
}

// pathEscape escapes a dataset's name for a URL path.
func pathEscape(s string) string { return url.PathEscape(s) }
