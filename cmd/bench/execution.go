package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/fracti/api/internal/screens"
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
		if m.r.calls, m.r.items, m.r.waves, err = countCalls(ctx, do, srv.calls); err != nil {
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

// print writes the execution section of the report.
func (x *execution) print(w io.Writer) {
	cpu := x.twice.cpu - x.once.cpu
	bytes := x.twice.bytes - x.once.bytes
	allocs := x.twice.allocs - x.once.allocs
	f := float64(max(x.fields, 1))
	fmt.Fprintf(w, "\nexecution alone (group screen asked twice in one request under aliases; %s either way, so the second copy reads nothing):\n", formatCalls(x.once.calls))
	fmt.Fprintf(w, "  once: cpu %s, %s, %s allocs; twice: cpu %s, %s, %s allocs\n",
		formatDuration(x.once.cpu), formatBytes(x.once.bytes), formatCount(x.once.allocs),
		formatDuration(x.twice.cpu), formatBytes(x.twice.bytes), formatCount(x.twice.allocs))
	fmt.Fprintf(w, "  one copy's %d fields with their data in memory: cpu %s, %s, %s allocs (%.1fµs, %.0f bytes, %.1f allocs per field)\n",
		x.fields, formatDuration(cpu), formatBytes(bytes), formatCount(allocs), float64(cpu.Nanoseconds())/1e3/f, bytes/f, allocs/f)
}
