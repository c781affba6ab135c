// Package lib loads D libraries: the files of declarations (types,
// translators, inlines) that dtrace(1) compiles from its library directory
// before every program, and that sonde loads likewise.
//
// Search path. The libraries are the *.d files of these directories, in
// this order (Path builds the list):
//
//  1. each -L directory, in command-line order;
//  2. each -x libdir=dir, in order;
//  3. each directory of $SONDE_LIBDIR (colon-separated);
//  4. DefaultDir: "/usr/lib/sonde" unless the build sets another, with
//     go build -ldflags "-X github.com/sonde-trace/sonde/internal/d/lib.DefaultDir=/opt/sonde/lib".
//
// A file name found in an earlier directory hides the same name in later
// ones, so that a -L directory can replace an installed library. The
// directories given on the command line must be readable; the others are
// skipped when absent. -x nolibs loads no library (cmd/sonde).
//
// Pragmas. "#pragma D depends_on library x.d" loads x.d first; it must be
// on the search path, or the pragma is an error (D_PRAGMA_DEPEND, at the
// pragma's file and line); dependencies in a cycle are an error too.
// "#pragma D depends_on provider p" makes the library apply only when some
// probe of provider p exists: otherwise Select drops it silently, and every
// library that depends on it, as dtrace does. depends_on module is taken as
// satisfied. "#pragma D binding" and "#pragma D attributes" are accepted
// and ignored (sonde does not model stability); "#pragma D option" is
// honoured as in a program.
//
// Contents. A library holds declarations only: a probe clause in one is an
// error (D_LIB_CLAUSE). Typedef names a library declares are type names in
// the libraries after it and in the program (TypeNames, for
// parser.Options.Types).
package lib

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// DefaultDir is the directory searched last for libraries; set at build
// time with -ldflags "-X github.com/sonde-trace/sonde/internal/d/lib.DefaultDir=dir".
var DefaultDir = "/usr/lib/sonde"

// EnvVar names the environment variable that adds library directories.
const EnvVar = "SONDE_LIBDIR"

// Dir is one directory of the search path.
type Dir struct {
	Path     string
	Required bool // given explicitly: an error when it cannot be read
}

// Path returns the search path: the -L directories, the libdir option's
// directories, those of $SONDE_LIBDIR, then DefaultDir.
func Path(flagDirs, optionDirs []string) []Dir {
	var dirs []Dir
	for _, d := range append(append([]string(nil), flagDirs...), optionDirs...) {
		dirs = append(dirs, Dir{Path: d, Required: true})
	}
	for _, d := range filepath.SplitList(os.Getenv(EnvVar)) {
		if d != "" {
			dirs = append(dirs, Dir{Path: d})
		}
	}
	if DefaultDir != "" {
		dirs = append(dirs, Dir{Path: DefaultDir})
	}
	return dirs
}

// Library is one loaded library file.
type Library struct {
	Name string // file name, as depends_on names it: "net.d"
	Path string // as opened; its positions carry it
	Text string
	Prog *ast.Program
	// Providers are the providers it depends on (depends_on provider).
	Providers []string
	// Deps are the libraries it depends on (depends_on library).
	Deps []*Library

	depNames []*ast.PragmaDecl
}

// Load reads the libraries of dirs, orders them so that each follows the
// libraries it depends on, and parses them. D errors (syntax, bad
// dependencies, clauses) are returned in errs; err is an I/O error.
func Load(dirs []Dir) (libs []*Library, errs diag.List, err error) {
	byName := map[string]*Library{}
	var all []*Library
	for _, d := range dirs {
		entries, rerr := os.ReadDir(d.Path)
		if rerr != nil {
			if d.Required || !errors.Is(rerr, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("cannot read library directory %s: %w", d.Path, unwrapPath(rerr))
			}
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".d") || byName[name] != nil {
				continue
			}
			p := filepath.Join(d.Path, name)
			if fi, serr := os.Stat(p); serr != nil || !fi.Mode().IsRegular() {
				continue
			}
			text, rerr := os.ReadFile(p)
			if rerr != nil {
				return nil, nil, fmt.Errorf("cannot read library %s: %w", p, unwrapPath(rerr))
			}
			l := &Library{Name: name, Path: p, Text: string(text)}
			byName[name] = l
			all = append(all, l)
		}
	}
	// A first parse finds the dependencies; its errors wait for the parse
	// in dependency order, with the typedef names of earlier libraries.
	for _, l := range all {
		prog, _ := parser.ParseFile(l.Path, []byte(l.Text), nil)
		for _, d := range prog.Decls {
			if pd, ok := d.(*ast.PragmaDecl); ok && pd.Kind == "depends_on" {
				errs = append(errs, l.dependsOn(pd, byName)...)
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs, nil
	}
	order, cerrs := sortDeps(all)
	if len(cerrs) > 0 {
		return nil, cerrs, nil
	}
	var types []string
	for _, l := range order {
		prog, perrs := parser.ParseFile(l.Path, []byte(l.Text), &parser.Options{Types: types})
		errs = append(errs, perrs...)
		l.Prog = prog
		for _, d := range prog.Decls {
			switch d := d.(type) {
			case *ast.ProbeClause:
				errs.Add(d.Pos(), "D_LIB_CLAUSE", "probe clauses are not allowed in a library: %s is one of declarations only", l.Name)
			case *ast.TypedefDecl:
				if d.Name != "" {
					types = append(types, d.Name)
				}
			}
		}
	}
	errs.Sort()
	return order, errs, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dependsOn records a depends_on pragma of l.
func (l *Library) dependsOn(pd *ast.PragmaDecl, byName map[string]*Library) diag.List {
	var errs diag.List
	if len(pd.Args) != 2 {
		errs.Add(pd.PragmaPos, "D_PRAGMA_MALFORM", "malformed #pragma depends_on <class> <name>")
		return errs
	}
	switch class, name := pd.Args[0], pd.Args[1]; class {
	case "library":
		dep := byName[name]
		if dep == nil {
			errs.Add(pd.PragmaPos, "D_PRAGMA_DEPEND", "failed to find dependency in libpath: %s", name)
			return errs
		}
		if dep != l {
			l.Deps = append(l.Deps, dep)
			l.depNames = append(l.depNames, pd)
		}
	case "provider":
		l.Providers = append(l.Providers, name)
	case "module":
	default:
		errs.Add(pd.PragmaPos, "D_PRAGMA_INVAL", "invalid class %s specified by #pragma depends_on", class)
	}
	return errs
}

// sortDeps orders libs so that each follows its dependencies, keeping the
// search order otherwise.
func sortDeps(libs []*Library) ([]*Library, diag.List) {
	var order []*Library
	var errs diag.List
	state := map[*Library]int{} // 1 visiting, 2 done
	var visit func(l *Library, via token.Pos) bool
	visit = func(l *Library, via token.Pos) bool {
		switch state[l] {
		case 1:
			errs.Add(via, "D_PRAGMA_DEPEND", "cyclic dependency on library %s", l.Name)
			return false
		case 2:
			return true
		}
		state[l] = 1
		for i, dep := range l.Deps {
			if !visit(dep, l.depNames[i].PragmaPos) {
				return false
			}
		}
		state[l] = 2
		order = append(order, l)
		return true
	}
	for _, l := range libs {
		if !visit(l, token.Pos{File: l.Path}) {
			return nil, errs
		}
	}
	return order, nil
}

// Select returns the libraries that apply: those whose providers all
// exist (hasProvider; nil accepts every provider) and whose dependencies
// apply, in order.
func Select(libs []*Library, hasProvider func(name string) bool) []*Library {
	dropped := map[*Library]bool{}
	var out []*Library
	for _, l := range libs {
		drop := false
		for _, p := range l.Providers {
			if hasProvider != nil && !hasProvider(p) {
				drop = true
			}
		}
		for _, d := range l.Deps {
			if dropped[d] {
				drop = true
			}
		}
		if drop {
			dropped[l] = true
			continue
		}
		out = append(out, l)
	}
	return out
}

// Programs returns the parsed programs of libs.
func Programs(libs []*Library) []*ast.Program {
	var progs []*ast.Program
	for _, l := range libs {
		progs = append(progs, l.Prog)
	}
	return progs
}

// TypeNames returns the typedef names libs declare, sorted.
func TypeNames(libs []*Library) []string {
	var names []string
	for _, l := range libs {
		if l.Prog == nil {
			continue
		}
		for _, d := range l.Prog.Decls {
			if td, ok := d.(*ast.TypedefDecl); ok && td.Name != "" {
				names = append(names, td.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}
