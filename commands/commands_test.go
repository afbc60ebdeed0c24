package commands

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/fracti/api/config"
	"github.com/stretchr/testify/require"
)

// call runs c as Run would, with the configuration the test's environment
// sets, and its answer written to out.
func call(t *testing.T, c command, args []string, out io.Writer) error {
	t.Helper()
	cfg, err := config.FromEnvironment()
	require.NoError(t, err)
	return c.run(context.Background(), c, env{cfg: cfg, out: out, errOut: io.Discard, log: quiet()}, args)
}

// run runs the binary's command line args, its output discarded.
func run(args ...string) error {
	return Run(context.Background(), args, io.Discard, io.Discard)
}

// stdout runs the command line args, which must succeed, and returns what
// it wrote on stdout.
func stdout(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), args, &out, io.Discard))
	return out.String()
}

// TestHelp: help lists every command with its arguments, a command's help
// shows its flags, -h is not a failure, and an unknown command names the
// known ones.
func TestHelp(t *testing.T) {
	out := stdout(t, "help")
	require.Contains(t, out, "usage: fracti-api")
	for _, c := range all {
		require.Contains(t, out, "  "+c.name+" ", "help lists %s", c.name)
		require.Contains(t, out, c.args)
	}
	require.Contains(t, stdout(t, "help", "migrate"), "-segments")
	require.Contains(t, stdout(t, "help", "table"), "-pitr", "a subcommand's flags")

	var errOut bytes.Buffer
	require.Zero(t, Main(context.Background(), []string{"verify", "-h"}, io.Discard, &errOut))
	require.Contains(t, errOut.String(), "usage: fracti-api verify [--group <id>]")

	errOut.Reset()
	require.Equal(t, 1, Main(context.Background(), []string{"frobnicate"}, io.Discard, &errOut))
	require.Contains(t, errOut.String(), `error: unknown command "frobnicate" (try: serve, token, verify, migrate, table, rebuild-summaries, notify; or help)`)
}

// TestBadConfigurationStopsTheCommand: a command does not run on a
// configuration it cannot use, and says which setting is wrong.
func TestBadConfigurationStopsTheCommand(t *testing.T) {
	t.Setenv("AUTH_MAX_AGE", "a day")
	require.ErrorContains(t, run("verify"), "AUTH_MAX_AGE")
}
