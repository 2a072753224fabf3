package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clusterImport is the test helper every test that uses the test cluster
// goes through.
const clusterImport = "github.com/podsrc/podsrc/test/cluster"

// clusterEntries are test/cluster's functions that hand a test the cluster
// (and skip it when PODSRC_TEST_CLUSTER=off or the cluster cannot be had).
var clusterEntries = []string{"Get", "StandaloneContainerd"}

// usesCluster reports whether the Go file calls one of clusterEntries.
func usesCluster(t *testing.T, path string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == clusterImport {
			name = "cluster"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return false
	}
	used := false
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !used
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(clusterEntries, sel.Sel.Name) {
				used = true
			}
		}
		return !used
	})
	return used
}

// TestClusterTestFilesAreNamed checks the rule `suite flake -cluster` picks
// packages by: outside test/e2e (whose every test uses the cluster), a test
// file calls test/cluster's Get or StandaloneContainerd exactly when its
// name ends in _cluster_test.go.
func TestClusterTestFilesAreNamed(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == filepath.Join("test", "e2e") || d.Name() == "testdata" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		checked++
		named, uses := strings.HasSuffix(rel, clusterTestSuffix), usesCluster(t, path)
		switch {
		case uses && !named:
			t.Errorf("%s uses the test cluster: name it *%s", rel, clusterTestSuffix)
		case named && !uses:
			t.Errorf("%s is named *%s but does not call test/cluster's %s", rel, clusterTestSuffix, strings.Join(clusterEntries, " or "))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	if checked == 0 {
		t.Fatalf("no test file under %s", root)
	}
}

// TestClusterPackagesByFileName checks that the cluster packages are those
// with a *_cluster_test.go file, in either test package, test/e2e aside.
func TestClusterPackagesByFileName(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":                       "module github.com/podsrc/podsrc\n\ngo 1.26\n",
		"a/a.go":                       "package a\n",
		"a/a_cluster_test.go":          "package a\n",
		"b/b.go":                       "package b\n",
		"b/b_cluster_test.go":          "package b_test\n",
		"fake/fake.go":                 "package fake\n",
		"fake/fakecluster_test.go":     "package fake\n",
		"unit/unit.go":                 "package unit\n",
		"unit/unit_test.go":            "package unit\n",
		"test/e2e/e2e_cluster_test.go": "package e2e\n",
	})
	enterModule(t, dir)
	got, err := clusterPackages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"github.com/podsrc/podsrc/a", "github.com/podsrc/podsrc/b"}
	if !slices.Equal(got, want) {
		t.Errorf("clusterPackages = %q, want %q", got, want)
	}
}
