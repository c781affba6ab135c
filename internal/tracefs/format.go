package tracefs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Field is one field of a trace event record, as its format file gives it:
//
//	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
//	field:__data_loc char[] name;	offset:8;	size:4;	signed:0;
//
// For arrays and dynamic (__data_loc, __rel_loc) fields Type is the element
// type ("char"); ArrayLen is the element count of a fixed array, 0 otherwise.
// A flexible array member ("char buf[]") has ArrayLen 0 and Size 0.
// A __data_loc field is a u32 in the record: the data's offset from the start
// of the record in the low 16 bits, its length in the high 16 bits; a
// __rel_loc field is the same, with the offset counted from the end of the
// field itself.
type Field struct {
	Name      string
	Type      string
	Offset    int
	Size      int
	Signed    bool
	ArrayLen  int
	IsDataLoc bool
	IsRelLoc  bool
}

// IsArray reports whether the field is a fixed or flexible array.
func (f Field) IsArray() bool { return f.ArrayLen > 0 || (f.Size == 0 && !f.IsDataLoc && !f.IsRelLoc) }

// Decl renders the field as a C declaration, as the format file writes it.
func (f Field) Decl() string {
	switch {
	case f.IsDataLoc:
		return "__data_loc " + f.Type + "[] " + f.Name
	case f.IsRelLoc:
		return "__rel_loc " + f.Type + "[] " + f.Name
	case f.ArrayLen > 0:
		return fmt.Sprintf("%s %s[%d]", f.Type, f.Name, f.ArrayLen)
	case f.Size == 0:
		return f.Type + " " + f.Name + "[]"
	}
	return f.Type + " " + f.Name
}

// Format is the layout of one event's records.
type Format struct {
	Subsystem string
	Event     string
	ID        uint32
	// Common are the fields every event starts with (common_type,
	// common_flags, common_preempt_count, common_pid).
	Common []Field
	// Fields are the event's own fields, in record order.
	Fields []Field
	// PrintFmt is the text after "print fmt: ", possibly several lines.
	PrintFmt string
}

// Field returns the event's own or common field called name.
func (f *Format) Field(name string) (Field, bool) {
	for _, list := range [][]Field{f.Fields, f.Common} {
		for _, fd := range list {
			if fd.Name == name {
				return fd, true
			}
		}
	}
	return Field{}, false
}

// Format reads and parses events/<subsystem>/<event>/format.
func (fs *FS) Format(subsystem, event string) (*Format, error) {
	name := fs.path("events", subsystem, event, "format")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("event %s:%s: %w", subsystem, event, err)
	}
	f, err := ParseFormat(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.Subsystem = subsystem
	return f, nil
}

// ParseFormat parses the text of an event format file. The subsystem is not
// part of the text; Format fills it in.
func ParseFormat(data []byte) (*Format, error) {
	f := &Format{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	inFields, common, seenFormat := false, true, false
	lineno := 0
	for sc.Scan() {
		lineno++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "name: "):
			f.Event = strings.TrimSpace(strings.TrimPrefix(line, "name: "))
		case strings.HasPrefix(line, "ID: "):
			id, err := strconv.ParseUint(strings.TrimSpace(line[4:]), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad ID: %w", lineno, err)
			}
			f.ID = uint32(id)
		case line == "format:":
			inFields, seenFormat = true, true
		case strings.HasPrefix(line, "print fmt: "):
			f.PrintFmt = printFmt(data, line)
			return f, finish(f, seenFormat)
		case inFields && trimmed == "":
			// A blank line separates the common fields from the event's own.
			common = false
		case inFields:
			fd, err := parseField(trimmed)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineno, err)
			}
			if common && strings.HasPrefix(fd.Name, "common_") {
				f.Common = append(f.Common, fd)
			} else {
				common = false
				f.Fields = append(f.Fields, fd)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return f, finish(f, seenFormat)
}

func finish(f *Format, seenFormat bool) error {
	switch {
	case f.Event == "":
		return fmt.Errorf("no event name")
	case !seenFormat:
		return fmt.Errorf("no format section")
	}
	return nil
}

// printFmt returns everything after "print fmt: ", which may span lines.
func printFmt(data []byte, line string) string {
	i := bytes.Index(data, []byte(line))
	rest := string(data[i+len("print fmt: "):])
	return strings.TrimRight(rest, "\n")
}

// parseField parses one "field:...;\toffset:N;\tsize:N;\tsigned:N;" line.
func parseField(line string) (Field, error) {
	var fd Field
	var decl string
	seen := 0
	for _, part := range strings.Split(line, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, ":")
		if !ok {
			return fd, fmt.Errorf("bad field attribute %q", part)
		}
		var err error
		switch key {
		case "field":
			decl = val
			seen |= 1
		case "offset":
			fd.Offset, err = strconv.Atoi(val)
			seen |= 2
		case "size":
			fd.Size, err = strconv.Atoi(val)
			seen |= 4
		case "signed":
			var s int
			s, err = strconv.Atoi(val)
			fd.Signed = s != 0
		}
		if err != nil {
			return fd, fmt.Errorf("bad %s in %q", key, line)
		}
	}
	if seen != 7 {
		return fd, fmt.Errorf("field line lacks field, offset or size: %q", line)
	}
	if err := parseDecl(&fd, decl); err != nil {
		return fd, err
	}
	return fd, nil
}

// parseDecl splits a C declaration such as "const char * filename",
// "char comm[16]" or "__data_loc char[] name" into fd's name and type.
func parseDecl(fd *Field, decl string) error {
	decl = strings.TrimSpace(decl)
	for _, loc := range []struct {
		prefix string
		flag   *bool
	}{{"__data_loc ", &fd.IsDataLoc}, {"__rel_loc ", &fd.IsRelLoc}} {
		if strings.HasPrefix(decl, loc.prefix) {
			*loc.flag = true
			decl = strings.TrimPrefix(decl, loc.prefix)
		}
	}
	i := strings.LastIndexAny(decl, " *")
	if i < 0 {
		return fmt.Errorf("bad field declaration %q", decl)
	}
	name, typ := decl[i+1:], strings.TrimSpace(decl[:i+1])
	if fd.IsDataLoc || fd.IsRelLoc {
		typ = strings.TrimSpace(strings.TrimSuffix(typ, "[]"))
	}
	if lb := strings.IndexByte(name, '['); lb >= 0 {
		if !strings.HasSuffix(name, "]") {
			return fmt.Errorf("bad array declaration %q", decl)
		}
		fd.ArrayLen = arrayLen(name[lb+1:len(name)-1], typ, fd.Size)
		name = name[:lb]
	}
	if name == "" || typ == "" {
		return fmt.Errorf("bad field declaration %q", decl)
	}
	fd.Name, fd.Type = name, typ
	return nil
}

// arrayLen is the element count of "[n]". Older kernels print a macro
// ("[TASK_COMM_LEN]"); the count is then worked out from the field's size.
func arrayLen(n, elem string, size int) int {
	if n == "" {
		return 0
	}
	if v, err := strconv.Atoi(n); err == nil {
		return v
	}
	if es := scalarSize(elem); es > 0 {
		return size / es
	}
	return size
}

// scalarSize is the size of a common scalar type on a 64-bit kernel, 0 if
// not known.
func scalarSize(t string) int {
	switch strings.TrimPrefix(strings.TrimPrefix(t, "const "), "unsigned ") {
	case "char", "signed char", "u8", "__u8", "s8", "__s8", "bool":
		return 1
	case "short", "u16", "__u16", "s16", "__s16":
		return 2
	case "int", "u32", "__u32", "s32", "__s32", "pid_t":
		return 4
	case "long", "long long", "u64", "__u64", "s64", "__s64", "size_t":
		return 8
	}
	return 0
}
