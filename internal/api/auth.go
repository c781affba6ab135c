package api

import (
	"bufio"
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// Role is what a credential allows.
type Role int

// Roles: a read-only credential may only GET; admin may do everything.
const (
	NoRole Role = iota
	ReadOnly
	Admin
)

func (r Role) String() string {
	switch r {
	case ReadOnly:
		return "read-only"
	case Admin:
		return "admin"
	}
	return "none"
}

// ParseRole reads a role's name: "read-only" or "admin".
func ParseRole(s string) (Role, error) {
	switch s {
	case "read-only":
		return ReadOnly, nil
	case "admin":
		return Admin, nil
	}
	return NoRole, fmt.Errorf("unknown role %q (want read-only or admin)", s)
}

// User is one line of a users file: a password hash and a role.
type User struct {
	Role Role
	// Hash is "pbkdf2-sha256$ITERATIONS$SALT$KEY", salt and key in
	// unpadded base64 (HashPassword makes one).
	Hash string
}

// MinTokenLen is the shortest bearer token a tokens file may hold: a
// token guards the agent off loopback, so it must not be guessable.
const MinTokenLen = 16

// LoadTokens reads a tokens file: one "TOKEN ROLE" per line, ROLE
// read-only or admin; blank lines and lines starting with # are ignored.
func LoadTokens(path string) (map[string]Role, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	defer f.Close()
	return ParseTokens(f, path)
}

// ParseTokens reads a tokens file's text; name is its name in errors.
func ParseTokens(r io.Reader, name string) (map[string]Role, error) {
	tokens := map[string]Role{}
	err := eachLine(r, name, func(fields []string) error {
		if len(fields) != 2 {
			return fmt.Errorf("want TOKEN ROLE, found %d fields", len(fields))
		}
		if len(fields[0]) < MinTokenLen {
			return fmt.Errorf("token shorter than %d characters", MinTokenLen)
		}
		role, err := ParseRole(fields[1])
		if err != nil {
			return err
		}
		tokens[fields[0]] = role
		return nil
	})
	return tokens, err
}

// LoadUsers reads a users file: one "USER ROLE HASH" per line, HASH as
// HashPassword makes it (sonde analytics passwd prints such lines); blank
// lines and lines starting with # are ignored.
func LoadUsers(path string) (map[string]User, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	defer f.Close()
	return ParseUsers(f, path)
}

// ParseUsers reads a users file's text; name is its name in errors.
func ParseUsers(r io.Reader, name string) (map[string]User, error) {
	users := map[string]User{}
	err := eachLine(r, name, func(fields []string) error {
		if len(fields) != 3 {
			return fmt.Errorf("want USER ROLE HASH, found %d fields", len(fields))
		}
		role, err := ParseRole(fields[1])
		if err != nil {
			return err
		}
		if _, _, _, err := parseHash(fields[2]); err != nil {
			return err
		}
		users[fields[0]] = User{Role: role, Hash: fields[2]}
		return nil
	})
	return users, err
}

// eachLine calls fn with the fields of each line that is not blank or a
// comment; its errors are prefixed with name:line.
func eachLine(r io.Reader, name string, fn func([]string) error) error {
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := fn(strings.Fields(text)); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// hashIterations is PBKDF2's work factor for new hashes.
const hashIterations = 100_000

// HashPassword returns a users file's HASH for password.
func HashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("salt: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, password, salt, hashIterations, 32)
	if err != nil {
		return "", fmt.Errorf("hash: %w", err)
	}
	enc := base64.RawStdEncoding
	return fmt.Sprintf("pbkdf2-sha256$%d$%s$%s", hashIterations, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// parseHash splits a HASH into its iterations, salt and key.
func parseHash(h string) (iter int, salt, key []byte, err error) {
	parts := strings.Split(h, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return 0, nil, nil, fmt.Errorf("hash is not pbkdf2-sha256$ITERATIONS$SALT$KEY")
	}
	iter, err = strconv.Atoi(parts[1])
	if err != nil || iter < 1 || iter > 10_000_000 {
		return 0, nil, nil, fmt.Errorf("hash: bad iteration count %q", parts[1])
	}
	enc := base64.RawStdEncoding
	if salt, err = enc.DecodeString(parts[2]); err != nil {
		return 0, nil, nil, fmt.Errorf("hash: bad salt: %w", err)
	}
	if key, err = enc.DecodeString(parts[3]); err != nil || len(key) == 0 {
		return 0, nil, nil, fmt.Errorf("hash: bad key")
	}
	return iter, salt, key, nil
}

// checkPassword says whether password matches hash.
func checkPassword(hash, password string) bool {
	iter, salt, key, err := parseHash(hash)
	if err != nil {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, password, salt, iter, len(key))
	return err == nil && subtle.ConstantTimeCompare(got, key) == 1
}

// IsLoopback says whether a listener's address is loopback only
// (127.0.0.0/8, ::1) or a Unix socket: there, no credentials are needed.
// An unspecified address (0.0.0.0, ::) is not loopback.
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

type ctxKey int

const loopbackKey ctxKey = 0

// ConnContext is an http.Server's ConnContext for connections accepted on
// ln: it records whether ln is a loopback listener. A request without that
// record (a server that did not set it) always needs credentials.
func ConnContext(ln net.Listener) func(context.Context, net.Conn) context.Context {
	loopback := IsLoopback(ln.Addr())
	return func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, loopbackKey, loopback)
	}
}

// onLoopback says whether r came through a loopback listener.
func onLoopback(r *http.Request) bool {
	lo, _ := r.Context().Value(loopbackKey).(bool)
	return lo
}

// authenticate returns the role of r's credentials: admin on a loopback
// listener, else that of a bearer token, of HTTP basic auth or of the
// appliance's X-Auth-User/X-Auth-Key headers.
func (h *Handler) authenticate(r *http.Request) (Role, error) {
	if onLoopback(r) {
		return Admin, nil
	}
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, cred, _ := strings.Cut(auth, " ")
		if strings.EqualFold(scheme, "Bearer") {
			return h.tokenRole(strings.TrimSpace(cred))
		}
		if user, pass, ok := r.BasicAuth(); ok {
			return h.userRole(user, pass)
		}
		return NoRole, errorf(http.StatusUnauthorized, "invalid Authorization header: want Bearer or Basic")
	}
	if user := r.Header.Get("X-Auth-User"); user != "" {
		return h.userRole(user, r.Header.Get("X-Auth-Key"))
	}
	return NoRole, errorf(http.StatusUnauthorized, "credentials required: this agent does not listen on loopback (use a bearer token, basic auth or X-Auth-User/X-Auth-Key)")
}

// tokenRole looks a bearer token up, comparing in constant time.
func (h *Handler) tokenRole(tok string) (Role, error) {
	role := NoRole
	for t, r := range h.opts.Tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
			role = r
		}
	}
	if role == NoRole {
		return NoRole, errorf(http.StatusUnauthorized, "invalid token")
	}
	return role, nil
}

// userRole checks a user's password; successful checks are remembered
// (by a digest of the credentials) so that clients sending basic auth on
// every request do not pay PBKDF2 each time.
func (h *Handler) userRole(user, pass string) (Role, error) {
	u, ok := h.opts.Users[user]
	if !ok {
		checkPassword(dummyHash, pass) // the same work for unknown users
		return NoRole, errorf(http.StatusUnauthorized, "invalid user or password")
	}
	digest := sha256.Sum256([]byte(user + "\x00" + pass + "\x00" + u.Hash))
	if _, ok := h.verified.Load(digest); ok {
		return u.Role, nil
	}
	if !checkPassword(u.Hash, pass) {
		return NoRole, errorf(http.StatusUnauthorized, "invalid user or password")
	}
	h.verified.Store(digest, true)
	return u.Role, nil
}

// dummyHash is checked for unknown users (its password is unknown).
const dummyHash = "pbkdf2-sha256$100000$c29uZGUtZHVtbXktc2FsdA$2mS9b3Ee8fRkS4vQ3rL2bQ"

// allowed says whether role may use method.
func allowed(role Role, method string) bool {
	switch role {
	case Admin:
		return true
	case ReadOnly:
		return method == http.MethodGet || method == http.MethodHead
	}
	return false
}
