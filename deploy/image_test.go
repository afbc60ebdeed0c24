package deploy

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fracti/api/config"
	"github.com/stretchr/testify/require"
)

// imageBuild is how the Dockerfile builds the binary.
const imageBuild = `RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fracti-api .`

// The image's binary must run on an image without libc: built as the
// Dockerfile builds it, it has no program interpreter and no dynamic
// section, and it runs. (No Docker daemon runs where the tests do, so the
// image itself is not built here; `make image` does.)
func TestImageBinaryIsStatic(t *testing.T) {
	dockerfile, err := os.ReadFile("../Dockerfile")
	require.NoError(t, err)
	require.Contains(t, string(dockerfile), imageBuild+"\n")

	bin := filepath.Join(t.TempDir(), "fracti-api")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = ".." // the build context's root, as in the image
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "a dynamic loader is needed")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "shared libraries are needed")
	}
	require.Nil(t, f.Section(".dynamic"))
	require.Nil(t, f.Section(".symtab"), "-s strips the symbol table")

	out, err = exec.Command(bin, "help").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "usage: fracti-api")
}

// The Dockerfile's base images are pinned (Go as go.mod asks), and the
// server runs as a user other than root on the port it listens on by
// default.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	require.NoError(t, err)
	dockerfile := string(b)
	from := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(dockerfile, -1)
	require.Len(t, from, 2, "a build stage and the image")
	gomod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(string(gomod))[1]
	require.True(t, strings.HasPrefix(from[0][1], "golang:"+goVersion+"-"), "%s: the Go of go.mod (%s)", from[0][1], goVersion)
	require.Equal(t, "gcr.io/distroless/static-debian12:nonroot", from[1][1])
	last := dockerfile[strings.LastIndex(dockerfile, "\nFROM "):]
	require.Contains(t, last, "\nUSER nonroot:nonroot\n")
	t.Setenv("PORT", "")
	cfg, err := config.FromEnvironment()
	require.NoError(t, err)
	require.Contains(t, last, "\nEXPOSE "+cfg.Server.Port+"\n")
	require.Contains(t, last, `ENTRYPOINT ["/fracti-api"]`)

	ignore, err := os.ReadFile("../.dockerignore")
	require.NoError(t, err)
	for _, p := range []string{".git", ".local", "bin", "e2e/node_modules"} {
		require.Contains(t, strings.Split(string(ignore), "\n"), p)
	}
}
