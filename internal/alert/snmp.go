package alert

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gosnmp/gosnmp"
)

// SNMPTrap is the handler that sends an SNMP notification (a trap).
const SNMPTrap = "snmp_trap"

// The OIDs of docs/mib/SONDE-MIB.txt. enterpriseOID is 32473, the
// private enterprise number RFC 5612 keeps for documentation: a
// placeholder until sonde has its own (change it here and in the MIB's
// MODULE-IDENTITY together).
const (
	enterpriseOID = ".1.3.6.1.4.1.32473"
	oidPosted     = enterpriseOID + ".0.1" // sondeAlertPosted
	oidCleared    = enterpriseOID + ".0.2" // sondeAlertCleared
	oidObjects    = enterpriseOID + ".1"   // sondeAlertObjects

	oidSysUpTime   = ".1.3.6.1.2.1.1.3.0"     // SNMPv2-MIB::sysUpTime.0
	oidSnmpTrapOID = ".1.3.6.1.6.3.1.1.4.1.0" // SNMPv2-MIB::snmpTrapOID.0
)

// The notification objects, by their number under sondeAlertObjects.
const (
	objStatname  = 1
	objKey       = 2
	objValue     = 3
	objLimit     = 4
	objThreshold = 5
	objEvent     = 6
	objLink      = 7
	objStep      = 8
	objHost      = 9
)

var snmpAuth = map[string]gosnmp.SnmpV3AuthProtocol{"MD5": gosnmp.MD5, "SHA": gosnmp.SHA, "SHA224": gosnmp.SHA224,
	"SHA256": gosnmp.SHA256, "SHA384": gosnmp.SHA384, "SHA512": gosnmp.SHA512}

// snmpPriv: AES192 and AES256 are Net-SNMP's (the key extended as in
// draft-reeder, gosnmp's AES192C and AES256C); AES192B and AES256B are
// draft-blumenthal's.
var snmpPriv = map[string]gosnmp.SnmpV3PrivProtocol{"DES": gosnmp.DES, "AES": gosnmp.AES, "AES192": gosnmp.AES192C,
	"AES256": gosnmp.AES256C, "AES192B": gosnmp.AES192, "AES256B": gosnmp.AES256}

// checkSNMP validates an snmp_trap item: its manager's address
// resolves, its version and security are complete.
func checkSNMP(it *Item) error {
	if _, err := snmpTarget(it.Destination); err != nil {
		return badf("snmp_trap: %v", err)
	}
	switch it.SNMPVersion {
	case "":
		it.SNMPVersion = "2c"
		fallthrough
	case "2c":
		if it.Community == "" {
			it.Community = "public"
		}
		if it.AuthProtocol != "" || it.PrivProtocol != "" || it.AuthFile != "" {
			return badf("snmp_trap: auth_protocol, priv_protocol and auth_file are SNMPv3's (snmp_version \"3\")")
		}
	case "3":
		if it.Community != "" {
			return badf("snmp_trap: community is SNMPv2c's; SNMPv3 has a user (auth_file)")
		}
		if _, err := snmpUSM(it); err != nil {
			return badf("snmp_trap: %v", err)
		}
	default:
		return badf("snmp_trap: snmp_version %q: want \"2c\" or \"3\"", it.SNMPVersion)
	}
	return nil
}

// snmpTarget reads a destination: HOST or HOST:PORT (default 162),
// resolved now.
func snmpTarget(dest string) (*net.UDPAddr, error) {
	if dest == "" {
		return nil, fmt.Errorf("destination is required: the manager's HOST[:PORT] (port 162 by default)")
	}
	hostport := dest
	if _, _, err := net.SplitHostPort(dest); err != nil {
		hostport = net.JoinHostPort(strings.Trim(dest, "[]"), "162")
	}
	addr, err := net.ResolveUDPAddr("udp", hostport)
	if err != nil {
		return nil, fmt.Errorf("destination %q: %w", dest, err)
	}
	return addr, nil
}

// snmpUSM is an SNMPv3 item's user and keys: auth_file's one line
// "USER [AUTHPASS [PRIVPASS]]", the protocols named, the engine ID.
func snmpUSM(it *Item) (*gosnmp.UsmSecurityParameters, error) {
	if it.AuthFile == "" {
		return nil, fmt.Errorf("SNMPv3 needs auth_file: a file holding \"USER AUTHPASS PRIVPASS\"")
	}
	b, err := os.ReadFile(it.AuthFile)
	if err != nil {
		return nil, fmt.Errorf("auth file: %w", err)
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	sp := &gosnmp.UsmSecurityParameters{AuthenticationProtocol: gosnmp.NoAuth, PrivacyProtocol: gosnmp.NoPriv}
	want := 1
	if it.AuthProtocol != "" {
		p, ok := snmpAuth[strings.ToUpper(it.AuthProtocol)]
		if !ok {
			return nil, fmt.Errorf("auth_protocol %q: want MD5, SHA, SHA224, SHA256, SHA384 or SHA512", it.AuthProtocol)
		}
		sp.AuthenticationProtocol, want = p, 2
	}
	if it.PrivProtocol != "" {
		p, ok := snmpPriv[strings.ToUpper(it.PrivProtocol)]
		if !ok {
			return nil, fmt.Errorf("priv_protocol %q: want DES, AES, AES192, AES256, AES192B or AES256B", it.PrivProtocol)
		}
		if it.AuthProtocol == "" {
			return nil, fmt.Errorf("priv_protocol needs auth_protocol (SNMPv3 has no privacy without authentication)")
		}
		sp.PrivacyProtocol, want = p, 3
	}
	if len(f) != want {
		return nil, fmt.Errorf("auth file %s: want one line %q", it.AuthFile, []string{"", "USER", "USER AUTHPASS", "USER AUTHPASS PRIVPASS"}[want])
	}
	sp.UserName = f[0]
	for _, pass := range f[1:] {
		if len(pass) < 8 {
			return nil, fmt.Errorf("auth file %s: SNMPv3 passphrases are at least 8 characters", it.AuthFile)
		}
	}
	if want >= 2 {
		sp.AuthenticationPassphrase = f[1]
	}
	if want == 3 {
		sp.PrivacyPassphrase = f[2]
	}
	id, err := engineID(it.EngineID)
	if err != nil {
		return nil, err
	}
	sp.AuthoritativeEngineID = string(id)
	return sp, nil
}

// engineID reads a hex engine ID (5 to 32 bytes), or makes sonded's
// default: the enterprise number with the top bit set, format 4 (text),
// and the host's name (RFC 3411's SnmpEngineID).
func engineID(s string) ([]byte, error) {
	if s == "" {
		host, _ := os.Hostname()
		if host == "" {
			host = "sonded"
		}
		if len(host) > 27 {
			host = host[:27]
		}
		return append([]byte{0x80, 0x00, 0x7e, 0xd9, 0x04}, host...), nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil || len(b) < 5 || len(b) > 32 {
		return nil, fmt.Errorf("engine_id %q: want 5 to 32 bytes in hex", s)
	}
	return b, nil
}

// snmpSender sends the notice as an SNMPv2c or SNMPv3 trap.
type snmpSender struct {
	it      Item
	started time.Time // for sysUpTime
	now     func() time.Time
}

// snmpVars are the trap's variables: sysUpTime, snmpTrapOID, then
// sonde's objects (scalars: instance .0).
func snmpVars(n Notice, upTime time.Duration) []gosnmp.SnmpPDU {
	trap := oidPosted
	if n.What == string(Clear) {
		trap = oidCleared
	}
	obj := func(i int, v string) gosnmp.SnmpPDU {
		return gosnmp.SnmpPDU{Name: oidObjects + "." + strconv.Itoa(i) + ".0", Type: gosnmp.OctetString, Value: v}
	}
	return []gosnmp.SnmpPDU{
		{Name: oidSysUpTime, Type: gosnmp.TimeTicks, Value: uint32(upTime / (10 * time.Millisecond))},
		{Name: oidSnmpTrapOID, Type: gosnmp.ObjectIdentifier, Value: trap},
		obj(objStatname, n.Statname),
		obj(objKey, strings.Join(n.Key, ",")),
		obj(objValue, strconv.FormatFloat(n.Value, 'g', -1, 64)),
		obj(objLimit, strconv.FormatFloat(n.Limit, 'g', -1, 64)),
		obj(objThreshold, n.Threshold),
		obj(objEvent, n.Event),
		obj(objLink, n.Link),
		obj(objStep, n.What),
		obj(objHost, n.Host),
	}
}

func (s snmpSender) send(ctx context.Context, n Notice) error {
	addr, err := snmpTarget(s.it.Destination)
	if err != nil {
		return err
	}
	g := &gosnmp.GoSNMP{Target: addr.IP.String(), Port: uint16(addr.Port), Transport: "udp", Context: ctx,
		Timeout: time.Second, Retries: 0, MaxOids: gosnmp.MaxOids}
	if dl, ok := ctx.Deadline(); ok {
		g.Timeout = time.Until(dl)
	}
	up := s.now().Sub(s.started)
	if s.it.SNMPVersion == "3" {
		sp, err := snmpUSM(&s.it)
		if err != nil {
			return err
		}
		sp.AuthoritativeEngineBoots, sp.AuthoritativeEngineTime = 1, uint32(max(up/time.Second, 0))
		g.Version, g.SecurityModel, g.SecurityParameters = gosnmp.Version3, gosnmp.UserSecurityModel, sp
		g.MsgFlags = gosnmp.NoAuthNoPriv
		switch {
		case sp.PrivacyProtocol != gosnmp.NoPriv:
			g.MsgFlags = gosnmp.AuthPriv
		case sp.AuthenticationProtocol != gosnmp.NoAuth:
			g.MsgFlags = gosnmp.AuthNoPriv
		}
	} else {
		g.Version, g.Community = gosnmp.Version2c, s.it.Community
	}
	if err := g.Connect(); err != nil {
		return fmt.Errorf("snmp %s: %w", addr, err)
	}
	defer g.Conn.Close()
	if _, err := g.SendTrap(gosnmp.SnmpTrap{Variables: snmpVars(n, up)}); err != nil {
		return fmt.Errorf("snmp trap to %s: %w", addr, err)
	}
	return unreachable(g.Conn, addr)
}

// unreachable waits a moment for an ICMP port unreachable in answer to
// the trap (a trap has no answer of its own): a manager that is not
// listening is then a failure, not a silent loss. Past the moment, the
// trap counts as delivered.
func unreachable(c net.Conn, addr *net.UDPAddr) error {
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	var b [1]byte
	_, err := c.Read(b[:])
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("snmp trap to %s: nothing listens there (port unreachable)", addr)
	}
	return nil
}
