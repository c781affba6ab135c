package test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The base modules SONDE-MIB imports (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF)
// are not in Debian's main archive (snmp-mibs-downloader, in non-free,
// fetches them): where they are missing, the tests write stand-ins that
// define only what SONDE-MIB imports, so that net-snmp's parser checks
// the rest of it.
var mibStandIns = map[string]string{
	"SNMPv2-SMI": `SNMPv2-SMI DEFINITIONS ::= BEGIN
internet    OBJECT IDENTIFIER ::= { iso 3 6 1 }
private     OBJECT IDENTIFIER ::= { internet 4 }
enterprises OBJECT IDENTIFIER ::= { private 1 }
END
`,
	"SNMPv2-TC": `SNMPv2-TC DEFINITIONS ::= BEGIN
DisplayString ::= TEXTUAL-CONVENTION
    DISPLAY-HINT "255a"
    STATUS       current
    DESCRIPTION  "Text."
    SYNTAX       OCTET STRING (SIZE (0..255))
END
`,
	"SNMPv2-CONF": "SNMPv2-CONF DEFINITIONS ::= BEGIN\nEND\n",
}

// mibDirs is the -M path for SONDE-MIB: docs/mib, the system's
// standard modules where installed, else stand-ins.
func mibDirs(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs("..")
	dirs := []string{filepath.Join(root, "docs", "mib")}
	if _, err := os.Stat("/usr/share/snmp/mibs/ietf/SNMPv2-SMI"); err == nil {
		return strings.Join(append(dirs, "/usr/share/snmp/mibs/ietf"), ":")
	}
	dir := t.TempDir()
	for name, text := range mibStandIns {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(append(dirs, dir), ":")
}

// snmptranslate runs Debian's snmptranslate on SONDE-MIB; anything on its
// standard error (a parse warning: an unknown identifier, an unlinked
// OID) is a failure.
func snmptranslate(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("snmptranslate"); err != nil {
		t.Fatalf("snmptranslate is needed (Debian's snmp, installed by .ci/run): %v", err)
	}
	cmd := exec.Command("snmptranslate", append([]string{"-M", mibDirs(t), "-m", "SONDE-MIB"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	persist := t.TempDir()
	os.Mkdir(filepath.Join(persist, "cert_indexes"), 0o700) // or net-snmp says it made it, on standard error
	cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+persist, "SNMPCONFPATH="+t.TempDir())
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("snmptranslate %v: %v\n%s%s", args, err, stderr.String(), stdout.String())
	}
	return strings.TrimSpace(stdout.String())
}

// SONDE-MIB parses without a warning, and names the OIDs sonded sends.
func TestAlertsMIB(t *testing.T) {
	for oid, name := range map[string]string{
		".1.3.6.1.4.1.32473.0.1":   "SONDE-MIB::sondeAlertPosted",
		".1.3.6.1.4.1.32473.0.2":   "SONDE-MIB::sondeAlertCleared",
		".1.3.6.1.4.1.32473.1.1.0": "SONDE-MIB::sondeAlertStatname.0",
		".1.3.6.1.4.1.32473.1.3.0": "SONDE-MIB::sondeAlertValue.0",
		".1.3.6.1.4.1.32473.1.4.0": "SONDE-MIB::sondeAlertLimit.0",
		".1.3.6.1.4.1.32473.1.5.0": "SONDE-MIB::sondeAlertThreshold.0",
		".1.3.6.1.4.1.32473.1.7.0": "SONDE-MIB::sondeAlertLink.0",
	} {
		if got := snmptranslate(t, oid); got != name {
			t.Errorf("%s is %q, want %s", oid, got, name)
		}
	}
	// The notifications carry the objects, in the order sonded sends them.
	def := snmptranslate(t, "-Td", "SONDE-MIB::sondeAlertPosted")
	if !strings.Contains(def, "OBJECTS\t{ sondeAlertStatname, sondeAlertKey, sondeAlertValue, sondeAlertLimit, sondeAlertThreshold, sondeAlertEvent, sondeAlertLink, sondeAlertStep, sondeAlertHost }") {
		t.Errorf("sondeAlertPosted:\n%s", def)
	}
}

// snmptrapd is Debian's snmptrapd started by a test on a loopback port,
// accepting a community and an SNMPv3 user, logging to a file.
type snmptrapd struct {
	addr string
	log  string
}

func startSnmptrapd(t *testing.T, community, engineID, user, authPass, privPass string) *snmptrapd {
	t.Helper()
	bin, err := exec.LookPath("snmptrapd")
	if err != nil {
		t.Fatalf("snmptrapd is needed (Debian's snmptrapd, installed by .ci/run): %v", err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "snmptrapd.conf")
	text := fmt.Sprintf("authCommunity log %s\ncreateUser -e %s %s SHA %q AES %q\nauthUser log %s priv\n",
		community, engineID, user, authPass, privPass, user)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// A free UDP port: bound, read, let go.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	s := &snmptrapd{addr: addr, log: filepath.Join(dir, "traps.log")}
	cmd := exec.Command(bin, "-f", "-C", "-c", conf, "-Lf", s.log, "-On", "-n", "-m", "", "-F", "TRAP %P|%v\n", "udp:"+addr)
	cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("snmptrapd:\n%s\nits log:\n%s", out.String(), s.traps())
		}
	})
	until(t, "snmptrapd started", func() bool { return strings.Contains(s.traps(), "NET-SNMP version") })
	return s
}

func (s *snmptrapd) traps() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// trapsFor are the traps logged about a threshold, each a line.
func (s *snmptrapd) trapsFor(threshold string) []string {
	var out []string
	for _, l := range strings.Split(s.traps(), "\n") {
		if strings.HasPrefix(l, "TRAP ") && strings.Contains(l, `= STRING: "`+threshold+`"`) {
			out = append(out, l)
		}
	}
	return out
}

// The snmp_trap action against Debian's snmptrapd: a dd loop drives a
// threshold over and back; a trap goes out as SNMPv2c (the community) and
// as SNMPv3 authPriv (SHA and AES) on post and on clear, and snmptrapd
// logs each with sonde's OIDs and values. A manager that is not
// listening is a failed attempt, reported; bad items are 400s.
func TestAlertsSNMP(t *testing.T) {
	const community, engineID, user, authPass, privPass = "sonde-c0mm", "0x80007ed904736f6e646574657374", "sondeops", "auth-pass-1", "priv-pass-2"
	trapd := startSnmptrapd(t, community, engineID, user, authPass, privPass)
	authFile := filepath.Join(t.TempDir(), "snmpv3")
	if err := os.WriteFile(authFile, []byte(user+" "+authPass+" "+privPass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	closed, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := closed.LocalAddr().String()
	closed.Close()

	s := startSonded(t, t.TempDir(), "--alert-retries", "0")
	name, dd := uniqueDD(t, "snd")
	watched := "syscall.ops[execname=" + name + "]"
	s.create(watched)
	thID, actID := s.thresholdAction(t, map[string]any{"statname": watched, "limit": 1000, "minpost": 2, "minclear": 2,
		"frequency": 0})
	for _, bad := range []struct {
		item map[string]any
		want string
	}{
		{map[string]any{"handler": "snmp_trap"}, "destination is required"},
		{map[string]any{"handler": "snmp_trap", "destination": "127.0.0.1:notaport"}, "destination"},
		{map[string]any{"handler": "snmp_trap", "destination": trapd.addr, "snmp_version": "1"}, `want \"2c\" or \"3\"`},
		{map[string]any{"handler": "snmp_trap", "destination": trapd.addr, "snmp_version": "3"}, "auth_file"},
		{map[string]any{"handler": "snmp_trap", "destination": trapd.addr, "snmp_version": "3", "auth_file": authFile, "auth_protocol": "SHA",
			"priv_protocol": "ROT13"}, "priv_protocol"},
		{map[string]any{"handler": "snmp_trap", "destination": trapd.addr, "snmp_version": "3", "auth_file": authFile, "auth_protocol": "SHA"},
			"USER AUTHPASS"},
	} {
		if st, body := s.alertCall("POST", "/actions/"+actID, bad.item, nil); st != 400 || !strings.Contains(body, bad.want) {
			t.Errorf("%v: %d %s, want 400 with %q", bad.item, st, body, bad.want)
		}
	}
	var items [3]struct {
		Item struct {
			ID string `json:"uuid"`
		} `json:"item"`
	}
	for i, it := range []map[string]any{
		{"handler": "snmp_trap", "destination": trapd.addr, "community": community, "post": true, "clear": true},
		{"handler": "snmp_trap", "destination": trapd.addr, "snmp_version": "3", "auth_file": authFile, "auth_protocol": "SHA",
			"priv_protocol": "AES", "engine_id": engineID, "post": true, "clear": true},
		{"handler": "snmp_trap", "destination": nobody, "community": community, "post": true},
	} {
		if st, body := s.alertCall("POST", "/actions/"+actID, it, &items[i]); st != 201 {
			t.Fatalf("item %v: %d %s", it, st, body)
		}
	}

	stopLoop := ddLoop(t, dd)
	posted := s.waitEvent("posted", func(e alertEvent) bool { return !e.Posted.IsZero() })
	until(t, "the post's traps, v2c and v3", func() bool { return len(trapd.trapsFor(thID)) >= 2 })
	stopLoop()
	s.waitEvent("cleared", func(e alertEvent) bool { return e.ID == posted.ID && !e.Cleared.IsZero() })
	until(t, "the clear's traps", func() bool { return len(trapd.trapsFor(thID)) >= 4 })

	traps := trapd.trapsFor(thID)
	seen := map[string]bool{}
	for _, l := range traps {
		sec, vars, _ := strings.Cut(strings.TrimPrefix(l, "TRAP "), "|")
		var who, what string
		switch {
		case sec == "TRAP2, SNMP v2c, community "+community:
			who = "v2c"
		case strings.HasPrefix(sec, "TRAP2, SNMP v3, user "+user+","):
			who = "v3"
		default:
			t.Errorf("a trap from %q", sec)
			continue
		}
		switch {
		case strings.Contains(vars, ".1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.4.1.32473.0.1\t"):
			what = "post"
		case strings.Contains(vars, ".1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.4.1.32473.0.2\t"):
			what = "clear"
		default:
			t.Errorf("a trap of no sonde notification: %s", l)
			continue
		}
		seen[who+" "+what] = true
		for _, want := range []string{
			`.1.3.6.1.4.1.32473.1.1.0 = STRING: "` + watched + `"`,
			`.1.3.6.1.4.1.32473.1.4.0 = STRING: "1000"`,
			`.1.3.6.1.4.1.32473.1.5.0 = STRING: "` + thID + `"`,
			`.1.3.6.1.4.1.32473.1.6.0 = STRING: "` + posted.ID + `"`,
			`.1.3.6.1.4.1.32473.1.8.0 = STRING: "` + what + `"`,
			`.1.3.6.1.4.1.32473.1.7.0 = STRING: "http://` + s.addr + `/api/analytics/v1/datasets/`,
		} {
			if !strings.Contains(vars, want) {
				t.Errorf("the %s %s trap lacks %s:\n%s", who, what, want, l)
			}
		}
		if what == "post" && !strings.Contains(vars, fmt.Sprintf(`.1.3.6.1.4.1.32473.1.3.0 = STRING: "%g"`, posted.Value)) {
			t.Errorf("the %s post trap lacks the value %g:\n%s", who, posted.Value, l)
		}
	}
	for _, want := range []string{"v2c post", "v3 post", "v2c clear", "v3 clear"} {
		if !seen[want] {
			t.Errorf("no %s trap in:\n%s", want, strings.Join(traps, "\n"))
		}
	}
	// The trap to a port where nothing listens failed, and says why; the
	// others were delivered.
	ev := s.waitClears("with its clear traps sent", posted.ID, 2)
	refused := 0
	for _, a := range ev.Attempts {
		switch {
		case !a.Delivered && strings.Contains(a.Error, "nothing listens there"):
			refused++
		case !a.Delivered:
			t.Errorf("attempt failed: %+v", a)
		}
	}
	if refused != 1 {
		t.Errorf("the trap to %s: want one failed attempt, got %+v", nobody, ev.Attempts)
	}

	// A test trap from the CLI, through the v3 item: logged, step test;
	// through the one to nobody: the CLI fails, saying why.
	out, err := exec.Command(sonde, "analytics", "alerts", "test", actID, items[1].Item.ID, "-url", "http://"+s.addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "snmp_trap test delivered") {
		t.Errorf("sonde analytics alerts test: %v\n%s", err, out)
	}
	until(t, "the test trap", func() bool {
		for _, l := range trapd.trapsFor(thID) {
			if strings.Contains(l, "SNMP v3, user "+user) && strings.Contains(l, `.1.3.6.1.4.1.32473.1.8.0 = STRING: "test"`) {
				return true
			}
		}
		return false
	})
	out, err = exec.Command(sonde, "analytics", "alerts", "test", actID, items[2].Item.ID, "-url", "http://"+s.addr).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "nothing listens there") {
		t.Errorf("sonde analytics alerts test to nobody: %v\n%s", err, out)
	}
}
