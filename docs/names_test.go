// Package docs holds podsrc's documents beside a test that keeps the Go
// names they mention true to the code.
package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// declarations are the names the repository's Go code declares.
type declarations struct {
	// top are the top-level names of each package, by package name.
	top map[string]map[string]bool
	// members are the methods and fields of each type, by type name (over
	// all packages).
	members map[string]map[string]bool
	// any are all top-level names and members, whatever declares them.
	any map[string]bool
}

func (d *declarations) addTop(pkg, name string) {
	if d.top[pkg] == nil {
		d.top[pkg] = map[string]bool{}
	}
	d.top[pkg][name] = true
	d.any[name] = true
}

func (d *declarations) addMember(typ, name string) {
	if d.members[typ] == nil {
		d.members[typ] = map[string]bool{}
	}
	d.members[typ][name] = true
	d.any[name] = true
}

// declared parses every Go file of the repository (tests and testdata
// aside) and collects its declarations.
func declared(t *testing.T, root string) *declarations {
	t.Helper()
	d := &declarations{top: map[string]map[string]bool{}, members: map[string]map[string]bool{}, any: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if name := e.Name(); name == "testdata" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		d.addFile(f)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the repository's Go code: %v", err)
	}
	return d
}

func (d *declarations) addFile(f *ast.File) {
	pkg := f.Name.Name
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil {
				d.addTop(pkg, decl.Name.Name)
				continue
			}
			d.addMember(receiverType(decl.Recv.List[0].Type), decl.Name.Name)
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					d.addTop(pkg, spec.Name.Name)
					d.addTypeMembers(spec)
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						d.addTop(pkg, n.Name)
					}
				}
			}
		}
	}
}

func (d *declarations) addTypeMembers(spec *ast.TypeSpec) {
	var fields *ast.FieldList
	switch typ := spec.Type.(type) {
	case *ast.StructType:
		fields = typ.Fields
	case *ast.InterfaceType:
		fields = typ.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			d.addMember(spec.Name.Name, n.Name)
		}
	}
}

// receiverType is the name of a method's receiver type, without pointer or
// type parameters.
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// has reports whether the dotted name is declared: a top-level name, a
// package's top-level name, a type's member, or a package's type's member.
func (d *declarations) has(name string) bool {
	parts := strings.Split(name, ".")
	switch len(parts) {
	case 1:
		return d.any[parts[0]]
	case 2:
		return d.top[parts[0]][parts[1]] || d.members[parts[0]][parts[1]]
	case 3:
		return d.top[parts[0]][parts[1]] && d.members[parts[1]][parts[2]]
	}
	return false
}

// codeName matches a code span that names Go: identifiers joined by dots.
var codeName = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*){0,2})`")

// TestArchitectureNamesExist checks that every Go name docs/architecture.md
// puts in a code span is declared in the code, so the page a new engineer
// reads first does not point at names that were renamed or removed.
func TestArchitectureNamesExist(t *testing.T) {
	page, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	d := declared(t, "..")
	spans := codeName.FindAllStringSubmatch(string(page), -1)
	if len(spans) < 20 {
		t.Fatalf("architecture.md names %d Go names in code spans; the page should follow the code", len(spans))
	}
	for _, m := range spans {
		if !d.has(m[1]) {
			t.Errorf("architecture.md names `%s`, which the code does not declare", m[1])
		}
	}
}
