// Package commands is what the fracti-api binary does: one file per
// command (serve, token, table, migrate, verify, rebuild-summaries,
// notify), each with its help text. A command parses its arguments and
// builds what it needs through package wiring from the configuration,
// which Run loads once.
package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/fracti/api/config"
	"github.com/fracti/api/wiring"
)

// A command is one thing the binary does: `fracti-api <name> [args]`.
type command struct {
	name    string
	args    string // the arguments it takes, for the usage line
	summary string // what it does, in a line
	// run runs it: c is the command itself (its flags and usage line).
	run func(ctx context.Context, c command, e env, args []string) error
}

// env is what a command runs with.
type env struct {
	cfg    config.Config // loaded once, before the command runs
	out    io.Writer     // what the command answers (stdout)
	errOut io.Writer     // what it tells the person running it (stderr)
	log    *slog.Logger  // the process's log, on errOut
}

// all are the commands, in the order help lists them.
var all = []command{serveCommand, tokenCommand, verifyCommand, migrateCommand, tableCommand, rebuildSummariesCommand, notifyCommand}

// Main runs the command args name (serve when none) with the process's
// environment and returns the exit status: 0 when it succeeded, 1 when it
// failed (its error on stderr).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := Run(ctx, args, stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) { // -h printed the command's help
		return 0
	}
	fmt.Fprintln(stderr, "error:", err)
	return 1
}

// Run runs the command args name (serve when none): it loads the
// configuration from the environment and hands the command the rest of
// args.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	name := "serve"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "help", "-h", "--help":
		return help(stdout, args)
	}
	cmd, ok := find(name)
	if !ok {
		return fmt.Errorf("unknown command %q (try: %s; or help)", name, strings.Join(names(), ", "))
	}
	cfg, err := config.FromEnvironment()
	if err != nil {
		return err
	}
	return cmd.run(ctx, cmd, env{cfg: cfg, out: stdout, errOut: stderr, log: wiring.Logger(cfg.Server, stderr)}, args)
}

// find is the command called name.
func find(name string) (command, bool) {
	for _, c := range all {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// names are the commands' names.
func names() []string {
	var n []string
	for _, c := range all {
		n = append(n, c.name)
	}
	return n
}

// usage is c's usage line.
func (c command) usage() string { return "usage: fracti-api " + c.name + " " + c.args }

// flags is a flag set for c that prints c's usage line and summary above
// its flags on -h.
func (c command) flags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "%s\n\n%s\n\n", c.usage(), c.summary)
		fs.PrintDefaults()
	}
	return fs
}

// help prints every command with its arguments and what it does, or, given
// a command's name, that command's help.
func help(out io.Writer, args []string) error {
	if len(args) > 0 {
		c, ok := find(args[0])
		if !ok {
			return fmt.Errorf("unknown command %q (try: %s)", args[0], strings.Join(names(), ", "))
		}
		c.flags(out).Usage()
		return nil
	}
	fmt.Fprintf(out, "usage: fracti-api [command] [arguments]   (serve when none)\n\nCommands:\n")
	for _, c := range all {
		fmt.Fprintf(out, "  %-18s %s\n  %-18s %s\n", c.name, c.args, "", c.summary)
	}
	fmt.Fprintf(out, "\n`fracti-api help <command>` or `fracti-api <command> -h` shows a command's flags.\n"+
		"The configuration comes from the environment: docs/configuration.md.\n")
	return nil
}

// quiet is a logger that drops everything: for the commands whose output
// is their report.
func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
