package aggprom

import (
	"fmt"
	"strconv"
	"strings"
)

// The address of --prometheus is parsed here rather than by net/netip:
// netip, and the unique and weak packages it brings, made sonde's peak
// RSS 0.3 MiB larger on every start (pages of a larger binary). The tests
// check these functions against net/netip.

// parseAddr is addr's IP address, IPv4 (4 bytes) or IPv6 (16), and port;
// a nil address for every address.
func parseAddr(addr string) ([]byte, int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return nil, 0, fmt.Errorf("missing port in address (host:port, e.g. 127.0.0.1:9400)")
	}
	host, port := addr[:i], addr[i+1:]
	bracketed := strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]")
	if bracketed {
		host = host[1 : len(host)-1]
	} else if strings.Contains(host, ":") {
		return nil, 0, fmt.Errorf("an IPv6 address goes in brackets ([::1]:9400)")
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("invalid port %q", port)
	}
	switch {
	case host == "" && !bracketed:
		return nil, int(p), nil
	case host == "localhost":
		return []byte{127, 0, 0, 1}, int(p), nil
	case strings.Contains(host, "%"):
		return nil, 0, fmt.Errorf("address %q: zoned IPv6 addresses are not supported", host)
	}
	ip := parseIP(host)
	if ip == nil {
		return nil, 0, fmt.Errorf("host %q is not an IP address (give one, \"localhost\" or none for every address)", host)
	}
	if isZero(ip) {
		return nil, int(p), nil // 0.0.0.0 and :: listen on every address, as Go's net.Listen does
	}
	return ip, int(p), nil
}

// parseIP parses an IPv4 address (4 bytes) or an IPv6 one (16 bytes, or
// 4 for an IPv4-mapped ::ffff:a.b.c.d); nil when s is neither.
func parseIP(s string) []byte {
	if !strings.Contains(s, ":") {
		if v4, ok := parseIPv4(s); ok {
			return v4[:]
		}
		return nil
	}
	v6, ok := parseIPv6(s)
	if !ok {
		return nil
	}
	if isZero(v6[:10]) && v6[10] == 0xff && v6[11] == 0xff {
		return v6[12:]
	}
	return v6[:]
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// parseIPv4 parses a dotted quad: four decimal fields of 0 to 255,
// without leading zeros.
func parseIPv4(s string) ([4]byte, bool) {
	var out [4]byte
	fields := strings.Split(s, ".")
	if len(fields) != 4 {
		return out, false
	}
	for i, f := range fields {
		if f == "" || len(f) > 3 || len(f) > 1 && f[0] == '0' {
			return out, false
		}
		n := 0
		for _, c := range f {
			if c < '0' || c > '9' {
				return out, false
			}
			n = n*10 + int(c-'0')
		}
		if n > 255 {
			return out, false
		}
		out[i] = byte(n)
	}
	return out, true
}

// parseIPv6 parses RFC 4291's text forms: eight groups of one to four
// hex digits, "::" once for one or more groups of zeros, and a dotted
// quad for the last two groups.
func parseIPv6(s string) ([16]byte, bool) {
	var out [16]byte
	head, tail, compressed := strings.Cut(s, "::")
	if compressed && strings.Contains(tail, "::") {
		return out, false
	}
	hb, ok := groups(head, !compressed)
	if !ok {
		return out, false
	}
	tb, ok := groups(tail, true)
	if !ok {
		return out, false
	}
	n := len(hb) + len(tb)
	if compressed && n > 14 || !compressed && n != 16 {
		return out, false
	}
	copy(out[:], hb)
	copy(out[16-len(tb):], tb)
	return out, true
}

// groups parses colon-separated hex groups; the last may be a dotted
// quad when last says the part ends the address.
func groups(part string, last bool) ([]byte, bool) {
	if part == "" {
		return nil, true
	}
	var b []byte
	gs := strings.Split(part, ":")
	for i, g := range gs {
		if last && i == len(gs)-1 && strings.Contains(g, ".") {
			v4, ok := parseIPv4(g)
			if !ok {
				return nil, false
			}
			b = append(b, v4[:]...)
			continue
		}
		if g == "" || len(g) > 4 {
			return nil, false
		}
		n, err := strconv.ParseUint(g, 16, 16)
		if err != nil {
			return nil, false
		}
		b = append(b, byte(n>>8), byte(n))
	}
	return b, true
}

// formatHostPort writes ip:port, an IPv6 address in brackets in RFC
// 5952's form (lower case, the longest run of two or more zero groups,
// the first of equals, as "::").
func formatHostPort(ip []byte, port int) string {
	if len(ip) == 4 {
		return fmt.Sprintf("%d.%d.%d.%d:%d", ip[0], ip[1], ip[2], ip[3], port)
	}
	var g [8]uint16
	for i := range g {
		g[i] = uint16(ip[2*i])<<8 | uint16(ip[2*i+1])
	}
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		j := i
		for j < 8 && g[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j + 1
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < 8; i++ {
		if i == best {
			b.WriteString("::")
			i += bestLen - 1
			continue
		}
		if i > 0 && i != best+bestLen {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(g[i]), 16))
	}
	b.WriteString("]:" + strconv.Itoa(port))
	return b.String()
}
