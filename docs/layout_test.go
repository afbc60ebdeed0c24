package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is the repository's Go module.
const module = "github.com/fracti/api"

// imports maps every package of the repository (by import path) to the
// repository's packages its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".local", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("..", filepath.Dir(p))
		require.NoError(t, err)
		pkg := path.Join(module, filepath.ToSlash(rel))
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if (imp == module || strings.HasPrefix(imp, module+"/")) && !slices.Contains(out[pkg], imp) {
				out[pkg] = append(out[pkg], imp)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestImportsPointDown: the entry point uses the commands, the commands
// the wiring and the configuration, the wiring the configuration and the
// domain packages; nothing below imports anything above it. The test
// support in internal/testkit is for tests and the tools in cmd/ only.
func TestImportsPointDown(t *testing.T) {
	allowed := map[string][]string{ // a package → the only packages that may import it
		module + "/commands": {module},
		module + "/wiring":   {module + "/commands"},
		module + "/config":   {module + "/commands", module + "/wiring", module + "/cmd/bench"},
	}
	graph := imports(t)
	require.Contains(t, graph, module+"/store", "the walk found the packages")
	for pkg, deps := range graph {
		for _, dep := range deps {
			if who, ok := allowed[dep]; ok {
				require.Contains(t, who, pkg, "%s imports %s, above it", pkg, dep)
			}
			if strings.HasPrefix(dep, module+"/internal/testkit/") {
				require.True(t, strings.HasPrefix(pkg, module+"/internal/testkit/") || strings.HasPrefix(pkg, module+"/cmd/"),
					"%s imports the test support %s", pkg, dep)
			}
		}
	}
}

// TestRootIsADoorway: the repository's root holds the entry point and few
// other Go files (tests included).
func TestRootIsADoorway(t *testing.T) {
	files, err := filepath.Glob("../*.go")
	require.NoError(t, err)
	require.LessOrEqual(t, len(files), 3, "Go files at the root: %v", files)
	require.Contains(t, files, "../server.go")
}

// TestLayoutNamesEveryFolder: docs/layout.md, the map of the repository,
// names every folder that holds Go code, so that a new one is not missed.
func TestLayoutNamesEveryFolder(t *testing.T) {
	layout, err := os.ReadFile("layout.md")
	require.NoError(t, err)
	for pkg := range imports(t) {
		dir := strings.TrimPrefix(pkg, module+"/")
		if pkg == module || strings.Contains(dir, "/generated") || strings.Contains(dir, "/model") {
			continue
		}
		require.Contains(t, string(layout), dir+"/", "docs/layout.md does not name %s/", dir)
	}
}
