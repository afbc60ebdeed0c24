package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fracti/api/internal/testkit/screens"
)

// execution is what the GraphQL executor alone costs on the group screen:
// the screen asked once, then twice in one request under two aliases. The
// second copy reads nothing (its reads are the first copy's, shared by the
// request's loaders), so the difference is the cost of executing and
// writing one copy with all its data in memory.
type execution struct {
	once, twice row
	fields      int // fields in one copy's response
}

// measureExecution measures the screen once and twice, n sequential
// requests each, and counts the fields of one copy.
func measureExecution(ctx context.Context, srv *serverSide, groupID string, n int) (*execution, error) {
	vars := map[string]any{"g": groupID}
	once := requestBody(screens.Group, vars)
	twice := requestBody(twiceAliased(screens.Group), vars)
	x := &execution{once: row{screen: "group", side: "once"}, twice: row{screen: "group", side: "twice"}}
	for _, m := range []struct {
		body []byte
		r    *row
	}{{once, &x.once}, {twice, &x.twice}} {
		do := func(ctx context.Context, check bool) error { return srv.do(ctx, m.body, check) }
		if err := do(ctx, true); err != nil {
			return nil, err
		}
		var err error
		if m.r.calls, m.r.items, m.r.waves, err = countCalls(ctx, do, srv.calls, nil); err != nil {
			return nil, err
		}
		if err := sequential(ctx, do, n, m.r); err != nil {
			return nil, err
		}
	}
	if !maps.Equal(x.once.calls, x.twice.calls) {
		return nil, fmt.Errorf("the second copy read more: %s against %s", formatCalls(x.twice.calls), formatCalls(x.once.calls))
	}
	out, err := srv.response(ctx, once)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	x.fields = countFields(v)
	return x, nil
}

// twiceAliased turns a one-root-field query `query(…) { field(…) { … } }`
// into the same field asked twice, as a: and b:.
func twiceAliased(q string) string {
	open := strings.Index(q, "{")
	head, body := q[:open+1], strings.TrimSpace(q[open+1:strings.LastIndex(q, "}")])
	return head + " a: " + body + " b: " + body + " }"
}

// countFields counts the object fields in a decoded JSON value: what the
// executor resolved and wrote, one by one.
func countFields(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		for _, f := range v {
			n += 1 + countFields(f)
		}
	case []any:
		for _, e := range v {
			n += countFields(e)
		}
	}
	return n
}

// perField is what executing one field costs on average.
type perField struct {
	cpuMicros, bytes, allocs float64
}

// perField divides the second copy's cost by its fields.
func (x *execution) perField() perField {
	f := float64(max(x.fields, 1))
	return perField{
		cpuMicros: float64((x.twice.cpu - x.once.cpu).Nanoseconds()) / 1e3 / f,
		bytes:     (x.twice.bytes - x.once.bytes) / f,
		allocs:    (x.twice.allocs - x.once.allocs) / f,
	}
}

// Lines of an earlier report that hold its per-field figures: this tool's,
// and the one-line form it printed before it compared runs.
var (
	perFieldLine    = regexp.MustCompile(`per field: cpu ([0-9.]+)µs, ([0-9.]+) bytes, ([0-9.]+) allocs`)
	oldPerFieldLine = regexp.MustCompile(`\(([0-9.]+)µs, ([0-9.]+) bytes, ([0-9.]+) allocs per field\)`)
)

// beforeIssue27 is this tool's report on main before issue 27 (gqlgen
// 0.17.95, every field resolved in goroutines, Go's collector defaults),
// the default "before" of the per-field figures.
//
//go:embed before_issue27.txt
var beforeIssue27 []byte

// readBefore reads the per-field figures of an earlier report ("": the
// report before issue 27).
func readBefore(path string) (*perField, error) {
	b, err := beforeIssue27, error(nil)
	if path != "" {
		if b, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("-before: %w", err)
		}
	}
	m := perFieldLine.FindSubmatch(b)
	if m == nil {
		m = oldPerFieldLine.FindSubmatch(b)
	}
	if m == nil {
		return nil, fmt.Errorf("-before: %s holds no per-field figures", path)
	}
	var v [3]float64
	for i := range v {
		if v[i], err = strconv.ParseFloat(string(m[i+1]), 64); err != nil {
			return nil, fmt.Errorf("-before: %w", err)
		}
	}
	return &perField{cpuMicros: v[0], bytes: v[1], allocs: v[2]}, nil
}

// print writes the execution section of the report, beside before's
// figures when there are any.
func (x *execution) print(w io.Writer, before *perField) {
	cpu := x.twice.cpu - x.once.cpu
	bytes := x.twice.bytes - x.once.bytes
	allocs := x.twice.allocs - x.once.allocs
	fmt.Fprintf(w, "\nexecution alone (group screen asked twice in one request under aliases; %s either way, so the second copy reads nothing):\n", formatCalls(x.once.calls))
	fmt.Fprintf(w, "  once: cpu %s, %s, %s allocs; twice: cpu %s, %s, %s allocs\n",
		formatDuration(x.once.cpu), formatBytes(x.once.bytes), formatCount(x.once.allocs),
		formatDuration(x.twice.cpu), formatBytes(x.twice.bytes), formatCount(x.twice.allocs))
	fmt.Fprintf(w, "  one copy's %d fields with their data in memory: cpu %s, %s, %s allocs\n",
		x.fields, formatDuration(cpu), formatBytes(bytes), formatCount(allocs))
	now := x.perField()
	fmt.Fprintf(w, "  per field: cpu %.2fµs, %.0f bytes, %.1f allocs\n", now.cpuMicros, now.bytes, now.allocs)
	if before != nil {
		ratio := func(a, b float64) string {
			if b == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f×", a/b)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  per field\tbefore\tnow\tnow/before")
		fmt.Fprintf(tw, "  cpu\t%.2fµs\t%.2fµs\t%s\n", before.cpuMicros, now.cpuMicros, ratio(now.cpuMicros, before.cpuMicros))
		fmt.Fprintf(tw, "  bytes\t%.0f\t%.0f\t%s\n", before.bytes, now.bytes, ratio(now.bytes, before.bytes))
		fmt.Fprintf(tw, "  allocs\t%.1f\t%.1f\t%s\n", before.allocs, now.allocs, ratio(now.allocs, before.allocs))
		_ = tw.Flush()
	}
}
