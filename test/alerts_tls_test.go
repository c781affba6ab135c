package test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1, its own authority, and
// its key.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sonde test SMTP"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), 0o600)
	return cert, key
}

// Email over STARTTLS to aiosmtpd requiring TLS: delivered when the
// server's certificate is trusted (tls_ca), refused with the reason when
// it is not, and refused by the server when STARTTLS is not used.
func TestAlertEmailStartTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, t.TempDir())
	smtp := startSMTP(t, "--tlscert", cert, "--tlskey", key)
	s := startSonded(t, dir, "--alert-retries", "0")
	actID := s.testAction(t)
	for _, c := range []struct {
		item      map[string]any
		delivered bool
		why       string
	}{
		{map[string]any{"tls_ca": cert}, true, ""},
		{map[string]any{}, false, "certificate"},
		{map[string]any{"starttls": "never"}, false, "STARTTLS"},
	} {
		item := map[string]any{"handler": "email", "address": "ops@example.com", "server": smtp.addr, "subject": "[sonde tls]"}
		for k, v := range c.item {
			item[k] = v
		}
		var it struct {
			Item struct {
				ID string `json:"uuid"`
			} `json:"item"`
		}
		if st, body := s.alertCall("POST", "/actions/"+actID, item, &it); st != 201 {
			t.Fatalf("item %v: %d %s", item, st, body)
		}
		var ev struct{ Event alertEvent }
		if st, body := s.alertCall("POST", "/actions/"+actID+"/"+it.Item.ID+"/test", nil, &ev); st != 200 {
			t.Fatalf("test: %d %s", st, body)
		}
		a := ev.Event.Attempts
		if len(a) != 1 || a[0].Delivered != c.delivered || !strings.Contains(a[0].Error, c.why) {
			t.Errorf("email %v: attempts %+v; want delivered %v (%q)", c.item, a, c.delivered, c.why)
		}
	}
	if mail := smtp.mail(); strings.Count(mail, "Subject: [sonde tls]: TEST ") != 1 {
		t.Errorf("aiosmtpd received:\n%s", mail)
	}
}

// testAction makes a threshold that never fires on the agent's first
// dataset and an action of it, and returns the action's ID, for tests of
// action items (POST .../actions/ID and .../ITEM/test).
func (s *sonded) testAction(t *testing.T) string {
	t.Helper()
	var ds struct {
		Datasets []struct {
			Name string `json:"name"`
		} `json:"datasets"`
	}
	if st, body := s.call("GET", "/datasets", nil, &ds); st != 200 || len(ds.Datasets) == 0 {
		t.Fatalf("datasets: %d %s", st, body)
	}
	_, actID := s.thresholdAction(t, map[string]any{"statname": ds.Datasets[0].Name, "limit": 1e15})
	return actID
}
