package alert

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

// A trap's variables: sysUpTime, the notification (posted or cleared),
// then sonde's objects in the MIB's order (snmptrapd reads them in
// test/alerts_snmp_test.go).
func TestSNMPVars(t *testing.T) {
	n := Notice{What: "clear", Event: "alert-000007", Threshold: "th-1", Statname: "syscall.ops[execname]", Key: []string{"dd"},
		Value: 12.5, Limit: 1000, Host: "h", Link: "http://a/x"}
	vs := snmpVars(n, 1234*time.Millisecond)
	if vs[0].Name != oidSysUpTime || vs[0].Value != uint32(123) || vs[1].Value != ".1.3.6.1.4.1.32473.0.2" {
		t.Errorf("header %+v", vs[:2])
	}
	want := []string{"syscall.ops[execname]", "dd", "12.5", "1000", "th-1", "alert-000007", "http://a/x", "clear", "h"}
	for i, w := range want {
		v := vs[2+i]
		if v.Name != oidObjects+"."+[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}[i]+".0" || v.Type != gosnmp.OctetString || v.Value != w {
			t.Errorf("variable %d: %+v, want %q", i, v, w)
		}
	}
	n.What = "renotify"
	if vs := snmpVars(n, 0); vs[1].Value != oidPosted {
		t.Errorf("a re-notification is %v, want sondeAlertPosted", vs[1].Value)
	}
}

func TestSNMPBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	full, short := write("full", "ops authpass1 privpass1\n"), write("short", "ops authpass1 priv\n")
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{}, "destination is required"},
		{Item{Destination: "127.0.0.1:x"}, "destination"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "1"}, `want "2c" or "3"`},
		{Item{Destination: "127.0.0.1", AuthFile: full}, "SNMPv3's"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", Community: "c"}, "community is SNMPv2c's"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3"}, "needs auth_file"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: full, PrivProtocol: "AES"}, "needs auth_protocol"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: full, AuthProtocol: "SHA1"}, "auth_protocol"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: full, AuthProtocol: "SHA"}, `"USER AUTHPASS"`},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: short, AuthProtocol: "SHA", PrivProtocol: "AES"}, "at least 8"},
		{Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: full, AuthProtocol: "SHA", PrivProtocol: "AES", EngineID: "0x80"}, "engine_id"},
	} {
		err := checkSNMP(&c.it)
		if err == nil || status(err) != http.StatusBadRequest || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want 400 with %q", c.it, err, c.want)
		}
	}
	it := Item{Destination: "127.0.0.1", SNMPVersion: "3", AuthFile: full, AuthProtocol: "sha", PrivProtocol: "aes"}
	if err := checkSNMP(&it); err != nil {
		t.Fatal(err)
	}
	sp, _ := snmpUSM(&it)
	if sp.UserName != "ops" || sp.AuthenticationProtocol != gosnmp.SHA || sp.PrivacyProtocol != gosnmp.AES ||
		!strings.HasPrefix(sp.AuthoritativeEngineID, "\x80\x00\x7e\xd9\x04") {
		t.Errorf("usm %+v", sp)
	}
	v2 := Item{Destination: "localhost"}
	if err := checkSNMP(&v2); err != nil || v2.SNMPVersion != "2c" || v2.Community != "public" {
		t.Errorf("v2c defaults: %+v %v", v2, err)
	}
}
