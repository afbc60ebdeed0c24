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
	"slices"
	"strings"

	"github.com/fracti/api/config"
	"github.com/fracti/api/wiring"
)

// A command is one thing the binary does: `fracti-api <name> [args]`.
type command struct {
	name string
	// sub are its subcommands, the first of its arguments (token: create;
	// table: create, describe); none for most.
	sub     []string
	args    string // the arguments it takes after them, for the usage line
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
		return help(ctx, stdout, args)
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
func (c command) usage() string {
	line := "usage: fracti-api " + c.name
	if len(c.sub) > 0 {
		line += " " + strings.Join(c.sub, "|")
	}
	return line + " " + c.args
}

// subcommand splits args into c's subcommand and the rest; without one it
// fails with c's usage line (-h is the first subcommand's, to show the flags).
func (c command) subcommand(args []string) (sub string, rest []string, err error) {
	if len(args) > 0 && slices.Contains(c.sub, args[0]) {
		return args[0], args[1:], nil
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		return c.sub[0], args, nil // its flags print the help
	}
	return "", nil, errors.New(c.usage())
}

// flags is a flag set for c that prints c's usage line and summary above
// its flags on -h.
func (c command) flags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "%s\n\n%s\n\n", c.usage(), strings.Join(wrap(c.summary, 100), "\n"))
		fs.PrintDefaults()
	}
	return fs
}

// help prints every command with its arguments and what it does, or, given
// a command's name, that command's help with its flags (what -h prints).
func help(ctx context.Context, out io.Writer, args []string) error {
	if len(args) > 0 {
		c, ok := find(args[0])
		if !ok {
			return fmt.Errorf("unknown command %q (try: %s)", args[0], strings.Join(names(), ", "))
		}
		// Every command parses its flags (those of its first subcommand)
		// before it does anything else: -h prints them and stops it there.
		helpArgs := []string{"-h"}
		if len(c.sub) > 0 {
			helpArgs = []string{c.sub[0], "-h"}
		}
		err := c.run(ctx, c, env{out: out, errOut: out, log: quiet()}, helpArgs)
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	fmt.Fprintf(out, "usage: fracti-api [command] [arguments]   (serve when none)\n\nCommands:\n")
	for _, c := range all {
		fmt.Fprintf(out, "  %-18s %s\n", c.name, strings.TrimPrefix(c.usage(), "usage: fracti-api "+c.name+" "))
		for _, line := range wrap(c.summary, 80) {
			fmt.Fprintf(out, "  %-18s %s\n", "", line)
		}
	}
	fmt.Fprintf(out, "\n`fracti-api help <command>` or `fracti-api <command> -h` shows a command's flags.\n"+
		"The configuration comes from the environment: docs/configuration.md.\n")
	return nil
}

// wrap breaks text into lines of at most width characters, between words.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}

// quiet is a logger that drops everything: for the commands whose output
// is their report.
func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
