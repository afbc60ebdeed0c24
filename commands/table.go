package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fracti/api/config"
	"github.com/fracti/api/store"
	"github.com/fracti/api/wiring"
)

// appTag is the tag every table `table create` makes carries.
const appTag, appTagValue = "app", "fracti"

// envPattern is what an environment's name may be: it goes into the table's
// name and a tag.
var envPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

var tableCommand = command{
	name: "table",
	sub:  []string{"create", "describe"},
	args: "[--env <name>] [--tag key=value ...] [--pitr=false]",
	summary: "create makes the table the server needs, or brings the one that exists up to it (changing only what can change in place); " +
		"describe prints the table and how it differs. Both name the table DYNAMODB_TABLE, or FractiTable-<env> with --env (one table per environment, as deploy/fracti.yaml names it).",
	run: runTable,
}

// runTable runs `table create` and `table describe`.
func runTable(ctx context.Context, c command, e env, args []string) error {
	sub, args, err := c.subcommand(args)
	if err != nil {
		return err
	}
	out := e.out
	fs := c.flags(e.errOut)
	environment := fs.String("env", "", "the environment, such as dev or prod: the table is FractiTable-<env>, tagged env=<env>")
	pitr := fs.Bool("pitr", true, "point-in-time recovery (continuous backups); false leaves it as it is")
	extra := map[string]string{}
	fs.Func("tag", "a tag the table must carry, key=value (repeat for more)", func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || k == "":
			return errors.New("want key=value")
		case k == appTag || k == "env":
			return fmt.Errorf("the %s tag is set by the command", k)
		}
		extra[k] = v
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New(c.usage())
	}
	name, err := TableName(e.cfg.Store.Table, e.cfg.Store.TableSet, *environment)
	if err != nil {
		return err
	}
	want := store.TableSetup{PointInTimeRecovery: *pitr, Tags: TableTags(*environment)}
	maps.Copy(want.Tags, extra)

	// Not wiring.OpenStore: on a local endpoint it would create a missing table.
	s, err := wiring.Table(ctx, e.cfg.Store, name)
	if err != nil {
		return err
	}
	if sub == "create" {
		return createTable(ctx, s, want, out)
	}
	return describeTable(ctx, s, want, out)
}

// TableName is the table the table command works on: FractiTable-<env>
// with an environment, else configured (the
// DYNAMODB_TABLE setting). Set both, they must agree, so that the command
// never works on another table than the server would.
func TableName(configured string, setInEnv bool, env string) (string, error) {
	if env == "" {
		return configured, nil
	}
	if !envPattern.MatchString(env) {
		return "", fmt.Errorf("--env %q: want lower-case letters, digits and -, starting with a letter (at most 32)", env)
	}
	name := config.TableBaseName + "-" + env
	if setInEnv && configured != name {
		return "", fmt.Errorf("--env %s names table %s, but DYNAMODB_TABLE is %s: unset one, or make them agree", env, name, configured)
	}
	return name, nil
}

// TableTags are the tags a table of the environment carries: app=fracti,
// and env=<env> when there is one. The CloudFormation template sets the same.
func TableTags(env string) map[string]string {
	tags := map[string]string{appTag: appTagValue}
	if env != "" {
		tags["env"] = env
	}
	return tags
}

// createTable runs `table create`: it fails when something still differs
// that only an operator can change.
func createTable(ctx context.Context, s *store.Store, want store.TableSetup, out io.Writer) error {
	res, err := s.SetUpTable(ctx, want)
	if err != nil {
		return err
	}
	if res.Created {
		fmt.Fprintf(out, "Created table %s.\n", s.Table())
	} else {
		fmt.Fprintf(out, "Table %s exists already.\n", s.Table())
	}
	for _, c := range res.Changed {
		fmt.Fprintf(out, "  set %s\n", c)
	}
	if !res.Created && len(res.Changed) == 0 && len(res.Remaining) == 0 {
		fmt.Fprintln(out, "  nothing to change")
	}
	if skipped := notSupported(res.State, want); len(skipped) > 0 {
		fmt.Fprintf(out, "  skipped %s: this DynamoDB does not support them (DynamoDB Local)\n", strings.Join(skipped, " and "))
	}
	fmt.Fprintln(out)
	printTable(out, res.State)
	if len(res.Remaining) == 0 {
		return nil
	}
	fmt.Fprintln(out, "\nStill differs from what the server needs; change it by hand (or make a new table):")
	for _, d := range res.Remaining {
		fmt.Fprintf(out, "  %s\n", d)
	}
	return fmt.Errorf("table %s still differs from what the server needs, in ways `table create` does not change (above)", s.Table())
}

// describeTable runs `table describe`: the table, and how it differs from
// what the server needs and the flags ask for.
func describeTable(ctx context.Context, s *store.Store, want store.TableSetup, out io.Writer) error {
	st, err := s.DescribeTable(ctx)
	if errors.Is(err, store.ErrNoTable) {
		return fmt.Errorf("table %s does not exist: create it with `table create` and the same flags (or deploy/fracti.yaml)", s.Table())
	} else if err != nil {
		return err
	}
	printTable(out, st)
	var fixable, manual []store.Difference
	for _, d := range st.Differences(want) {
		if d.Fixable {
			fixable = append(fixable, d)
		} else {
			manual = append(manual, d)
		}
	}
	if len(fixable)+len(manual) == 0 {
		fmt.Fprintln(out, "\nThe table is what the server needs.")
		return nil
	}
	if len(fixable) > 0 {
		fmt.Fprintln(out, "\nDiffers from what the server needs; `table create` changes this:")
		for _, d := range fixable {
			fmt.Fprintf(out, "  %s\n", d)
		}
	}
	if len(manual) > 0 {
		fmt.Fprintln(out, "\nDiffers from what the server needs; change it by hand (or make a new table):")
		for _, d := range manual {
			fmt.Fprintf(out, "  %s\n", d)
		}
	}
	return nil
}

// notSupported names what want asks for that the engine has no operation for.
func notSupported(st store.TableState, want store.TableSetup) []string {
	var names []string
	if want.PointInTimeRecovery && st.PointInTimeRecovery == store.NotSupported {
		names = append(names, "point-in-time recovery")
	}
	if len(want.Tags) > 0 && st.TagsNotSupported {
		names = append(names, "tags")
	}
	return names
}

// printTable prints the table's settings, one a line.
func printTable(out io.Writer, st store.TableState) {
	line := func(label, format string, args ...any) {
		fmt.Fprintf(out, "%-12s %s\n", label, fmt.Sprintf(format, args...))
	}
	const unsupported = "not supported by this DynamoDB (DynamoDB Local)"
	line("table", "%s", st.Name)
	line("arn", "%s", st.ARN)
	line("status", "%s", st.Status)
	line("keys", "%s", keyList(st.Keys))
	for _, ix := range st.Indexes {
		line("index "+ix.Name, "%s, projection %s, %s", keyList(ix.Keys), ix.Projection, ix.Status)
	}
	line("billing", "%s", st.BillingMode)
	switch st.TTLStatus {
	case "", "DISABLED":
		line("TTL", "off")
	default:
		line("TTL", "on %s (%s)", st.TTLAttribute, st.TTLStatus)
	}
	if st.StreamViewType == "" {
		line("stream", "off")
	} else {
		line("stream", "%s, %s", st.StreamViewType, st.StreamARN)
	}
	switch st.PointInTimeRecovery {
	case store.NotSupported:
		line("PITR", unsupported)
	default:
		line("PITR", "%s", st.PointInTimeRecovery)
	}
	switch {
	case st.TagsNotSupported:
		line("tags", unsupported)
	case len(st.Tags) == 0:
		line("tags", "none")
	default:
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(st.Tags)) {
			kv = append(kv, k+"="+st.Tags[k])
		}
		line("tags", "%s", strings.Join(kv, ", "))
	}
	line("items", "about %d, %s (DynamoDB's estimates, updated about every six hours)", st.ItemCount, byteSize(st.SizeBytes))
}

func keyList(keys []store.KeyAttribute) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, ", ")
}

// byteSize writes n bytes in the largest unit it is at least one of.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
