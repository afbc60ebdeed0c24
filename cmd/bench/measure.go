package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
)

// countRuns is how many single requests the call counts come from: the
// fewest waves over them is the honest figure (see dynamotest.Counter).
const countRuns = 5

// row is one line of the report: one screen served one way.
type row struct {
	screen, side string
	calls        callRange // DynamoDB calls per request, by operation
	capacity     capacity  // what one request consumes, on average
	waves        int
	items        [2]int // fewest and most items read by one request
	p50, p99     time.Duration
	cpu          time.Duration // this process's CPU time per request
	bytes        float64       // bytes allocated per request
	allocs       float64       // allocations per request
}

// throughput is one screen's concurrent run, both ways.
type throughput struct {
	screen      string
	server, raw float64 // requests per second
	// serverCPU and rawCPU are this process's CPU time per request during
	// the run: with every core busy, no time goes to idle spinning, which
	// inflates the sequential runs' figure.
	serverCPU, rawCPU time.Duration
}

// measureScreen measures both sides of a screen: first each side's calls,
// then each side's sequential and concurrent runs.
func measureScreen(ctx context.Context, sc screen, o options) ([]row, throughput, error) {
	sides := []struct {
		name  string
		do    func(context.Context, bool) error
		calls *dynamotest.Counter
	}{
		{"server", sc.server, sc.serverCalls},
		{"raw", sc.raw, sc.rawCalls},
	}
	var rows []row
	var rates [2]float64
	var cpus [2]time.Duration
	for i, side := range sides {
		r := row{screen: sc.name, side: side.name}
		if side.name == "raw" && sc.beforeRaw != nil {
			if err := sc.beforeRaw(ctx); err != nil {
				return nil, throughput{}, err
			}
		}
		// Warm-up: the first request looks the access token up and fills
		// connection pools; what it costs is not what a screen costs.
		if err := side.do(ctx, true); err != nil {
			return nil, throughput{}, fmt.Errorf("%s warm-up: %w", side.name, err)
		}
		var err error
		if r.calls, r.items, r.waves, err = countCalls(ctx, side.do, side.calls, &r.capacity); err != nil {
			return nil, throughput{}, fmt.Errorf("%s: %w", side.name, err)
		}
		do := side.do
		if side.name == "server" && o.serverProf != "" {
			do = profileServer(sc.name, do, o.profAllocs)
		}
		if err := sequential(ctx, do, o.n, &r); err != nil {
			return nil, throughput{}, fmt.Errorf("%s: %w", side.name, err)
		}
		if rates[i], cpus[i], err = concurrent(ctx, side.do, o.clients, o.duration); err != nil {
			return nil, throughput{}, fmt.Errorf("%s at %d clients: %w", side.name, o.clients, err)
		}
		rows = append(rows, r)
	}
	return rows, throughput{screen: sc.name, server: rates[0], raw: rates[1], serverCPU: cpus[0], rawCPU: cpus[1]}, nil
}

// countCalls serves the screen countRuns times alone, each fully checked,
// and reports the calls per operation (their range: the server's loaders
// batch by timing, so a batch can split in two), the items read (their
// range) and the fewest waves of any run; and, into capacity when it is
// not nil, the capacity a request consumes on average.
func countCalls(ctx context.Context, do func(context.Context, bool) error, c *dynamotest.Counter, capacity *capacity) (callRange, [2]int, int, error) {
	calls := callRange{}
	items := [2]int{-1, 0}
	waves := 0
	for i := range countRuns {
		c.Reset()
		u := &usage{}
		if err := do(withUsage(ctx, u), true); err != nil {
			return nil, items, 0, err
		}
		if capacity != nil {
			capacity.add(u, countRuns)
		}
		got := c.ByOperation()
		for op := range got {
			if _, ok := calls[op]; !ok {
				calls[op] = [2]int{-1, 0}
			}
		}
		for op, r := range calls {
			n := got[op]
			if r[0] < 0 || n < r[0] {
				r[0] = n
			}
			r[1] = max(r[1], n)
			calls[op] = r
		}
		if n := c.ItemsRead(); items[0] < 0 || n < items[0] {
			items[0] = n
		}
		items[1] = max(items[1], c.ItemsRead())
		if i == 0 {
			waves = c.Waves()
		}
		waves = min(waves, c.Waves())
	}
	return calls, items, waves, nil
}

// callRange is, per operation name, the fewest and most calls of one request.
type callRange map[string][2]int

// sequential serves the screen n times one after another: latency
// percentiles, and this process's CPU time and allocations per request.
func sequential(ctx context.Context, do func(context.Context, bool) error, n int, r *row) error {
	lat := make([]time.Duration, n)
	runtime.GC() // start from a clean heap, so that one side's garbage is not the other's bill
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	for i := range n {
		start := time.Now()
		if err := do(ctx, false); err != nil {
			return err
		}
		lat[i] = time.Since(start)
	}
	cpu1 := cpuTime()
	runtime.ReadMemStats(&after)
	slices.Sort(lat)
	r.p50, r.p99 = percentile(lat, 0.50), percentile(lat, 0.99)
	r.cpu = (cpu1 - cpu0) / time.Duration(n)
	r.bytes = float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	r.allocs = float64(after.Mallocs-before.Mallocs) / float64(n)
	return nil
}

// concurrent serves the screen from clients goroutines for d and returns
// the completed requests per second and the CPU time per request; the first
// error stops it.
func concurrent(ctx context.Context, do func(context.Context, bool) error, clients int, d time.Duration) (float64, time.Duration, error) {
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start, cpuStart := time.Now(), cpuTime()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if err := do(ctx, false); err != nil {
					if errors.Is(err, errExhausted) {
						return // a replay has nothing left to send: this client is done
					}
					if ctx.Err() == nil {
						once.Do(func() { firstErr = err; cancel() })
					}
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, 0, firstErr
	}
	n := max(done.Load(), 1)
	return float64(n) / time.Since(start).Seconds(), (cpuTime() - cpuStart) / time.Duration(n), nil
}

// cpuTime is the user and system CPU time this process has used. DynamoDB
// Local runs in its own (Java) process: its CPU is not in here.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// printReport writes the table and the throughput section.
func printReport(w io.Writer, o options, rows []row, tput []throughput, booksPrefix string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "screen\tside\tcalls\twaves\titems\tp50\tp99\tcpu/req\tbytes/req\tallocs/req")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.screen, r.side, formatCalls(r.calls), r.waves, formatRange(r.items),
			formatDuration(r.p50), formatDuration(r.p99), formatDuration(r.cpu), formatBytes(r.bytes), formatCount(r.allocs))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nthroughput at %d clients (%s each):\n", o.clients, o.duration)
	for _, t := range tput {
		ratio := 0.0
		if t.raw > 0 {
			ratio = t.server / t.raw
		}
		fmt.Fprintf(w, "  %-6s server %6.0f req/s, raw %6.0f req/s, ratio %.2f   cpu/req under load: server %s, raw %s\n",
			t.screen, t.server, t.raw, ratio, formatDuration(t.serverCPU), formatDuration(t.rawCPU))
	}
	fmt.Fprintf(w, "\n(%d sequential requests per row after a warm-up; calls, items: range over %d single requests, waves: the fewest; cpu: this Go process only, DynamoDB Local's CPU not included; %d CPUs; books at %s<currency>)\n",
		o.n, countRuns, runtime.NumCPU(), booksPrefix)
}

// formatCalls is "BatchGetItem 2, Query 3", by operation name, with a
// range where runs differed ("BatchGetItem 7-8").
func formatCalls(calls callRange) string {
	names := slices.Sorted(maps.Keys(calls))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + formatRange(calls[n])
	}
	return strings.Join(parts, ", ")
}

// formatRange is "7" or "7-8".
func formatRange(r [2]int) string {
	if r[0] == r[1] {
		return fmt.Sprint(r[0])
	}
	return fmt.Sprintf("%d-%d", r[0], r[1])
}

// formatDuration rounds to what is worth reading.
func formatDuration(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0fms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	}
}

// formatBytes is bytes in KB or MB.
func formatBytes(b float64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.2f MB", b/(1<<20)) // two places: the targets are whole megabytes
	}
	return fmt.Sprintf("%.0f KB", b/(1<<10))
}

// formatCount is a count in thousands when large.
func formatCount(n float64) string {
	if n >= 10_000 {
		return fmt.Sprintf("%.0fk", n/1000)
	}
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", n/1000)
	}
	return fmt.Sprintf("%.0f", n)
}
