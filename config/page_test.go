package config

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md's settings from the declarations")

// pagePath is the configuration page, from this package's directory.
const pagePath = "../docs/configuration.md"

// TestConfigurationPage: docs/configuration.md lists exactly the declared
// settings, each with its declared default and meaning, by section; with
// -update it is rewritten so.
func TestConfigurationPage(t *testing.T) {
	body, err := os.ReadFile(pagePath)
	require.NoError(t, err)
	page := string(body)
	before, rest, ok := strings.Cut(page, PageBegin+"\n")
	require.True(t, ok, "%s lacks the line %s", pagePath, PageBegin)
	_, after, ok := strings.Cut(rest, PageEnd)
	require.True(t, ok, "%s lacks the line %s", pagePath, PageEnd)
	want := before + PageBegin + "\n" + Markdown() + PageEnd + after
	if *update {
		require.NoError(t, os.WriteFile(pagePath, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, page, "docs/configuration.md is out of step with config/settings.go: run `go test ./config -update`")
	for _, s := range Settings() {
		require.NotContains(t, before+after, "| `"+s.Name+"` |", "the server's settings are listed once, in the generated part")
	}
}

// TestOnlyConfigReadsTheEnvironment: no code of the server but this
// package reads the environment (os.Getenv, os.LookupEnv, os.Environ), so
// every setting goes through a declaration. Tests and the test support in
// internal/testkit (which finds DynamoDB Local) aside.
func TestOnlyConfigReadsTheEnvironment(t *testing.T) {
	var readers []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch path {
			case filepath.Join("..", "config"), filepath.Join("..", "internal", "testkit"):
				return filepath.SkipDir
			}
			switch d.Name() {
			case ".git", ".local", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" {
				switch sel.Sel.Name {
				case "Getenv", "LookupEnv", "Environ":
					readers = append(readers, fset.Position(sel.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, readers, "only package config reads the environment")
}
