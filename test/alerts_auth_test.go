package test

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// authSMTP is aiosmtpd requiring AUTH (alice / s3cret), started from a
// few lines of Python: its command line has no option for an
// authenticator.
const authSMTP = `
import sys, time
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Debugging
from aiosmtpd.smtp import AuthResult
def auth(server, session, envelope, mechanism, data):
    ok = data.login == b"alice" and data.password == b"s3cret"
    return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535
c = Controller(Debugging(sys.stdout), hostname="127.0.0.1", port=int(sys.argv[1]), authenticator=auth,
               auth_required=True, auth_require_tls=False)
c.start()
print("ready", flush=True)
while True:
    time.sleep(3600)
`

// Email with SMTP AUTH from a file: delivered with the right password,
// refused with the server's reason with a wrong one.
func TestAlertEmailAuth(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("/usr/bin/python3", "-c", authSMTP, port)
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("aiosmtpd's stderr:\n%s", stderr.String())
		}
	})
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if l != "ready" {
			t.Fatalf("aiosmtpd: %s", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("aiosmtpd with AUTH did not start")
	}

	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	os.WriteFile(good, []byte("alice s3cret\n"), 0o600)
	os.WriteFile(bad, []byte("alice guess\n"), 0o600)
	s := startSonded(t, t.TempDir(), "--alert-retries", "0")
	actID := s.testAction(t)
	for _, c := range []struct {
		file      string
		delivered bool
		why       string
	}{{good, true, ""}, {bad, false, "535"}} {
		var it struct {
			Item struct {
				ID string `json:"uuid"`
			} `json:"item"`
		}
		item := map[string]any{"handler": "email", "address": "ops@example.com", "server": addr, "auth_file": c.file, "subject": "[sonde auth]"}
		if st, body := s.alertCall("POST", "/actions/"+actID, item, &it); st != 201 {
			t.Fatalf("item: %d %s", st, body)
		}
		var ev struct{ Event alertEvent }
		if st, body := s.alertCall("POST", "/actions/"+actID+"/"+it.Item.ID+"/test", nil, &ev); st != 200 {
			t.Fatalf("test: %d %s", st, body)
		}
		a := ev.Event.Attempts
		if len(a) != 1 || a[0].Delivered != c.delivered || !strings.Contains(a[0].Error, c.why) {
			t.Errorf("auth file %s: attempts %+v; want delivered %v (%q)", filepath.Base(c.file), a, c.delivered, c.why)
		}
	}
	got := 0
	for {
		select {
		case l := <-lines:
			if strings.HasPrefix(l, "Subject: [sonde auth]: TEST ") {
				got++
			}
			continue
		case <-time.After(time.Second):
		}
		break
	}
	if got != 1 {
		t.Errorf("aiosmtpd received %d test mails, want 1", got)
	}
}
