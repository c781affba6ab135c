package usdt

import (
	"bytes"
	"errors"
	"fmt"
)

// The type record note that sonde-generated headers put in the objects
// that include them (see FORMAT.md).
const (
	TypeNoteSection = ".note.sonde"
	TypeNoteOwner   = "sonde"
	TypeNoteType    = 0x5344 // "SD"; readelf names 1, 2 and 0x100..0x101 (NT_VERSION, NT_ARCH, GNU build attributes) whatever the owner
	TypeNoteVersion = 1

	// TypeFlagTranslated is set when the definition has a translated
	// argument list (": (...)"), even an empty one.
	TypeFlagTranslated = 1
)

// ErrTypeVersion is returned by ParseTypeRecord for a record of a version
// this reader does not know; NewFile skips such records.
var ErrTypeVersion = errors.New("usdt: unknown type record version")

// TypedArg is one argument of a probe definition: its type as written in
// the definition ("char *", "struct foo *", "uint64_t") and its name ("" if
// the definition gave none).
type TypedArg struct {
	Type string
	Name string
}

// ProbeTypes is the type record of one probe: its native arguments (what
// the application passes) and its translated arguments (what D clauses see
// as args[]), as the provider definition declared them.
type ProbeTypes struct {
	Provider string
	Name     string // as in the stapsdt note: request__start

	Native []TypedArg
	// Translated is nil when the definition has no ": (...)" part; then
	// args[] are the native arguments.
	Translated []TypedArg
	// Map[i] is the index in Native of the argument that Translated[i] is
	// translated from (DTrace matches them by name).
	Map []int
}

// Args returns the argument types D clauses see (args[]): the translated
// ones when there are any, else the native ones.
func (t *ProbeTypes) Args() []TypedArg {
	if t.Translated != nil {
		return t.Translated
	}
	return t.Native
}

// ParseTypeRecord decodes the descriptor of a sonde type note.
func ParseTypeRecord(desc []byte) (*ProbeTypes, error) {
	if len(desc) < 4 {
		return nil, fmt.Errorf("sonde type record: %d bytes is too short", len(desc))
	}
	if desc[0] != TypeNoteVersion {
		return nil, fmt.Errorf("%w %d", ErrTypeVersion, desc[0])
	}
	nargc, xargc, flags := int(desc[1]), int(desc[2]), desc[3]
	if flags&TypeFlagTranslated == 0 && xargc != 0 {
		return nil, fmt.Errorf("sonde type record: %d translated arguments without the translated flag", xargc)
	}
	if len(desc) < 4+xargc {
		return nil, fmt.Errorf("sonde type record: truncated argument map")
	}
	t := &ProbeTypes{}
	if flags&TypeFlagTranslated != 0 {
		t.Translated = make([]TypedArg, xargc)
		t.Map = make([]int, xargc)
		for i := range t.Map {
			t.Map[i] = int(desc[4+i])
			if t.Map[i] >= nargc {
				return nil, fmt.Errorf("sonde type record: translated argument %d maps to native argument %d of %d", i, t.Map[i], nargc)
			}
		}
	}
	rest := desc[4+xargc:]
	next := func() (string, error) {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", fmt.Errorf("sonde type record: unterminated string")
		}
		s := string(rest[:i])
		rest = rest[i+1:]
		return s, nil
	}
	var err error
	if t.Provider, err = next(); err != nil {
		return nil, err
	}
	if t.Name, err = next(); err != nil {
		return nil, err
	}
	if t.Provider == "" || t.Name == "" {
		return nil, fmt.Errorf("sonde type record: empty provider or probe name")
	}
	t.Native = make([]TypedArg, nargc)
	for _, list := range [][]TypedArg{t.Native, t.Translated} {
		for i := range list {
			if list[i].Type, err = next(); err != nil {
				return nil, err
			}
			if list[i].Name, err = next(); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// EncodeTypeRecord encodes t as a type note descriptor (without the note
// header). Generated headers write the same bytes with assembler
// directives.
func EncodeTypeRecord(t *ProbeTypes) ([]byte, error) {
	if len(t.Native) > 255 || len(t.Translated) > 255 || len(t.Map) != len(t.Translated) {
		return nil, fmt.Errorf("sonde type record: bad argument counts")
	}
	var b bytes.Buffer
	flags := byte(0)
	if t.Translated != nil {
		flags |= TypeFlagTranslated
	}
	b.Write([]byte{TypeNoteVersion, byte(len(t.Native)), byte(len(t.Translated)), flags})
	for _, m := range t.Map {
		if m < 0 || m >= len(t.Native) {
			return nil, fmt.Errorf("sonde type record: map index %d out of range", m)
		}
		b.WriteByte(byte(m))
	}
	put := func(s string) error {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return fmt.Errorf("sonde type record: NUL in %q", s)
		}
		b.WriteString(s)
		b.WriteByte(0)
		return nil
	}
	strs := []string{t.Provider, t.Name}
	for _, list := range [][]TypedArg{t.Native, t.Translated} {
		for _, a := range list {
			strs = append(strs, a.Type, a.Name)
		}
	}
	for _, s := range strs {
		if err := put(s); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}
