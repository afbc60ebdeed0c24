package systemtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/internal/benchprobe"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// BenchmarkLiveDelivery measures, against a server process on DynamoDB
// Local with the default stream poll, the delay from a mutation's commit
// (its response) to the delivery of its event to each of 1,000 open
// subscriptions (20 members of one group, 50 connections each), and the
// server's memory per idle subscribed connection (its resident set before
// and after they open). One mutation per iteration, one at a time.
func BenchmarkLiveDelivery(b *testing.B) {
	const members, perMember = 20, 50
	table := servertest.LocalTable(b)
	s := store.New(dynamotest.Client(b), table, store.Options{})
	inst := servertest.StartInstance(b, servertest.BuildServer(b), table, "STREAM_POLL_INTERVAL=", "LIVE_CONNECTIONS_PER_USER="+strconv.Itoa(perMember))

	tokens, group, expense := benchGroup(b, inst.URL, s, 7001, members)
	expense() // warm up the server's paths before measuring its memory
	time.Sleep(time.Second)
	before := residentKiB(b, inst.PID)

	// 1,000 subscriptions; each records when every event arrives.
	type arrival struct {
		id string
		at time.Time
	}
	arrivals := make(chan arrival, 1<<16)
	var conns []*wsclient.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range members * perMember {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := wsclient.Dial(ctx, inst.URL, map[string]any{"Authorization": "Bearer " + tokens[i%members]})
			if err != nil {
				b.Error(err)
				return
			}
			if err := c.Subscribe(ctx, "1", `subscription($g: ID!) { groupEvents(groupId: $g) { id type } }`, map[string]any{"g": group}); err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				for m := range c.Messages {
					var p struct {
						Data struct{ GroupEvents struct{ ID, Type string } }
					}
					if m.Type == "next" && json.Unmarshal(m.Payload, &p) == nil {
						arrivals <- arrival{p.Data.GroupEvents.ID, time.Now()}
					}
				}
			}()
		}()
	}
	wg.Wait()
	require.Len(b, conns, members*perMember)
	defer func() {
		for _, c := range conns {
			_ = c.CloseNow()
		}
	}()
	time.Sleep(2 * time.Second) // idle: subscribed, nothing to send
	after := residentKiB(b, inst.PID)

	// Each mutation's event, delivered to all 1,000.
	var delays []time.Duration
	b.ResetTimer()
	for range b.N {
		expense()
		committed := time.Now()
		want := fmt.Sprintf("%s:", group)
		got := 0
		timeout := time.After(30 * time.Second)
		for got < members*perMember {
			select {
			case a := <-arrivals:
				if !strings.HasPrefix(a.id, want) {
					continue
				}
				if a.at.Before(committed) {
					a.at = committed // delivered before the response reached the writer
				}
				delays = append(delays, a.at.Sub(committed))
				got++
			case <-timeout:
				b.Fatalf("only %d of %d deliveries", got, members*perMember)
			}
		}
	}
	b.StopTimer()
	slices.Sort(delays)
	pct := func(p float64) float64 {
		return float64(delays[int(p*float64(len(delays)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(after-before)/float64(members*perMember), "KiB/idle-conn")
	b.Logf("%d deliveries on %d cores: p50 %.1f ms, p99 %.1f ms; server RSS %d KiB → %d KiB with %d idle subscribed connections",
		len(delays), runtime.NumCPU(), pct(0.5), pct(0.99), before, after, members*perMember)
}

// residentKiB is the resident set size of process pid, from /proc.
func residentKiB(b *testing.B, pid int) int64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(b, err)
			return kib
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkLiveFanout measures, against a server process on DynamoDB
// Local, what subscriptions cost on one instance:
//
//   - idle: 10,000 graphql-transport-ws connections holding one groupEvents
//     subscription each, and the server's goroutines, heap in use and
//     resident memory per subscription (before and after they open);
//   - fan-out: one event to 5,000 of them, selecting `id sequence type`,
//     then the event's subject (the expense and its payers): when each
//     subscriber has it after the first did (the fan-out), after the
//     writer's response (the stream poll included), the server's CPU time,
//     and the DynamoDB reads made for it (the membership check and the
//     payload: the same for 1 subscriber as for 5,000).
//
// It measures once, with fanoutEvents events per selection whatever b.N
// (the setup takes minutes; a second run with a larger b.N reports the same
// figures again).
func BenchmarkLiveFanout(b *testing.B) {
	fanoutOnce.Do(func() { fanoutFigures = measureFanout(b) })
	for _, f := range fanoutFigures {
		b.ReportMetric(f.value, f.unit)
	}
}

// fanoutEvents is how many events BenchmarkLiveFanout sends per selection.
const fanoutEvents = 5

var (
	fanoutOnce    sync.Once
	fanoutFigures []benchFigure
)

// benchFigure is one figure a benchmark reports.
type benchFigure struct {
	value float64
	unit  string
}

// measureFanout is BenchmarkLiveFanout's measurement.
func measureFanout(b *testing.B) (figures []benchFigure) {
	report := func(v float64, unit string) { figures = append(figures, benchFigure{v, unit}) }
	const members, idle, fanout = 20, 10000, 5000
	table := servertest.LocalTable(b)
	s := store.New(dynamotest.Client(b), table, store.Options{})
	inst := servertest.StartInstance(b, servertest.BuildServer(b, "benchprobe"), table, "STREAM_POLL_INTERVAL=", "LIVE_CONNECTIONS_PER_USER="+strconv.Itoa(idle/members+1))
	base := strings.TrimSuffix(inst.URL, "/graphql")

	tokens, group, expense := benchGroup(b, inst.URL, s, 8001, members)
	expense() // warm up the server's paths before measuring it
	time.Sleep(time.Second)

	// Idle: 10,000 subscriptions, one per connection; the client reads
	// nothing after its subscription starts (no goroutine of its own).
	const idleQuery = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type } }`
	before := collectGarbage(b, base, inst.PID)
	rssBefore := residentKiB(b, inst.PID)
	idleConns := make([]*websocket.Conn, idle)
	parallel(b, idle, 32, func(i int) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ws, err := wsclient.DialIdle(ctx, inst.URL, map[string]any{"Authorization": "Bearer " + tokens[i%members]},
			wsclient.Subscription{ID: "1", Query: idleQuery, Variables: map[string]any{"g": group}})
		require.NoError(b, err)
		idleConns[i] = ws
	})
	waitMetric(b, base, "fracti_live_subscriptions", idle)
	time.Sleep(2 * time.Second) // idle
	after := collectGarbage(b, base, inst.PID)
	rssAfter := residentKiB(b, inst.PID)
	perSub := func(name string) float64 { return (after[name] - before[name]) / idle }
	heap, stack := perSub("go_memstats_heap_inuse_bytes")/1024, perSub("go_memstats_stack_inuse_bytes")/1024
	report(perSub("go_goroutines"), "goroutines/idle-sub")
	report(heap, "heap-KiB/idle-sub")
	report(stack, "stack-KiB/idle-sub")
	report(heap+stack, "heap+stack-KiB/idle-sub")
	report(float64(rssAfter-rssBefore)/idle, "rss-KiB/idle-sub")
	b.Logf("%d idle subscriptions (one per connection), after a collection: %.2f goroutines, %.1f KiB heap in use, %.1f KiB of stacks (%.1f KiB together), %.1f KiB resident each",
		idle, perSub("go_goroutines"), heap, stack, heap+stack, float64(rssAfter-rssBefore)/idle)
	for _, c := range idleConns {
		_ = c.CloseNow()
	}
	waitMetric(b, base, "fracti_live_subscriptions", 0)

	// Fan-out: 5,000 subscribers that read what they are sent.
	type arrival struct {
		seq int
		at  time.Time
	}
	arrivals := make(chan arrival, fanout*4)
	conns := make([]*benchSubscriber, fanout)
	parallel(b, fanout, 32, func(i int) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ws, err := wsclient.DialIdle(ctx, inst.URL, map[string]any{"Authorization": "Bearer " + tokens[i%members]})
		require.NoError(b, err)
		conns[i] = &benchSubscriber{ws}
		go conns[i].read(func(seq int, at time.Time) { arrivals <- arrival{seq, at} })
	})
	defer func() {
		for _, c := range conns {
			_ = c.ws.CloseNow()
		}
	}()
	time.Sleep(3 * time.Second)               // the idle connections' ends settle
	profile := os.Getenv("BENCH_CPU_PROFILE") // where the server's CPU profile of the fan-outs goes, if anywhere
	if profile != "" {
		require.NoError(b, syscall.Kill(inst.PID, syscall.SIGUSR2))
	}
	for _, sel := range []struct{ name, query string }{
		{"id sequence type", idleQuery},
		{"subject", `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type
			subject { __typename ... on Expense { id description amount payers { member { name } amount } } } } }`},
	} {
		id := strconv.Itoa(len(sel.name))
		parallel(b, fanout, 32, func(i int) {
			require.NoError(b, conns[i].send("subscribe", id, map[string]any{"query": sel.query, "variables": map[string]any{"g": group}}))
		})
		waitMetric(b, base, "fracti_live_subscriptions", fanout)
		var spread, delays, server []time.Duration
		var cpu time.Duration
		reads := map[string]float64{}
		for iter := range fanoutEvents + 1 { // the first warms up, and is not counted
			fanout0 := scrapeMetrics(b, base)["fracti_live_fanout_seconds_sum"]
			expense()
			committed := time.Now()
			// The writer's reads are over once it has its response; the
			// event reaches subscribers after the next stream poll.
			m0, cpu0 := scrapeMetrics(b, base), cpuTime(b, inst.PID)
			var first time.Time
			var seq int
			var got []time.Time
			for len(got) < fanout {
				select {
				case a := <-arrivals:
					if seq == 0 {
						seq, first = a.seq, a.at
					}
					if a.seq == seq {
						got = append(got, a.at)
					}
				case <-time.After(time.Minute):
					b.Fatalf("%s: only %d of %d deliveries", sel.name, len(got), fanout)
				}
			}
			if iter == 0 {
				continue
			}
			cpu += cpuTime(b, inst.PID) - cpu0
			m1 := scrapeMetrics(b, base)
			// The server's share: from the hub taking the event to its last
			// frame written (one event per iteration).
			server = append(server, time.Duration((m1["fracti_live_fanout_seconds_sum"]-fanout0)*float64(time.Second)))
			for _, op := range []string{"BatchGetItem", "GetItem", "Query"} {
				k := `fracti_dynamodb_calls_total{operation="` + op + `"}`
				reads[op] += m1[k] - m0[k]
			}
			for _, at := range got {
				spread = append(spread, at.Sub(first))
				delays = append(delays, max(0, at.Sub(committed)))
			}
		}
		// The event's reads: the membership check and the payload
		// (BatchGetItem, Query); GetItem is the connections' credential
		// checks (token lookups, cached per token).
		slices.Sort(spread)
		slices.Sort(delays)
		slices.Sort(server)
		pct := func(d []time.Duration, p float64) float64 {
			return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
		}
		b.Logf("one event to %d subscribers selecting %s, %d events: the server's share (the hub taking it to its last frame written) p50 %.1f ms, max %.1f ms",
			fanout, sel.name, fanoutEvents, pct(server, 0.5), pct(server, 1))
		b.Logf("one event to %d subscribers selecting %s, %d events: fan-out after the first delivery p50 %.1f ms, all %.1f ms; "+
			"after the writer's response p50 %.1f ms, all %.1f ms; server CPU %.3f s per event; DynamoDB calls per event: %.1f BatchGetItem, %.1f Query, %.1f GetItem",
			fanout, sel.name, fanoutEvents, pct(spread, 0.5), pct(spread, 1), pct(delays, 0.5), pct(delays, 1), cpu.Seconds()/fanoutEvents,
			reads["BatchGetItem"]/fanoutEvents, reads["Query"]/fanoutEvents, reads["GetItem"]/fanoutEvents)
		unit := strings.ReplaceAll(sel.name, " ", "-")
		report(pct(server, 0.5), "server-p50-ms/"+unit)
		report(pct(server, 1), "server-max-ms/"+unit)
		report(pct(spread, 0.5), "fanout-p50-ms/"+unit)
		report(pct(spread, 1), "fanout-max-ms/"+unit)
		report(pct(delays, 0.5), "commit-p50-ms/"+unit)
		report(cpu.Seconds()/fanoutEvents, "cpu-s/event/"+unit)
		report((reads["BatchGetItem"]+reads["Query"])/fanoutEvents, "reads/event/"+unit)
		parallel(b, fanout, 32, func(i int) { require.NoError(b, conns[i].send("complete", id, nil)) })
		waitMetric(b, base, "fracti_live_subscriptions", 0)
	}
	if profile != "" {
		require.NoError(b, syscall.Kill(inst.PID, syscall.SIGUSR2))
		src := benchprobe.ProfilePath(inst.PID, "cpu")
		require.Eventually(b, func() bool {
			data, err := os.ReadFile(src)
			return err == nil && len(data) > 0 && os.WriteFile(profile, data, 0o644) == nil
		}, 10*time.Second, 100*time.Millisecond)
	}
	return figures
}

// collectGarbage has the server (built with -tags benchprobe) collect
// garbage, and returns its metrics after: the heap and stacks in use
// without garbage.
func collectGarbage(b *testing.B, base string, pid int) map[string]float64 {
	const cycles = "go_gc_duration_seconds_count"
	n := scrapeMetrics(b, base)[cycles]
	require.NoError(b, syscall.Kill(pid, syscall.SIGUSR1))
	var m map[string]float64
	require.Eventually(b, func() bool {
		m = scrapeMetrics(b, base)
		return m[cycles] >= n+2
	}, 30*time.Second, 50*time.Millisecond)
	return m
}

// benchGroup makes a group of members users (ids from firstID on), each
// with an access token, and returns the tokens, the group and a function
// that records an expense in it (its first member paying).
func benchGroup(b *testing.B, url string, s *store.Store, firstID, members int) (tokens []string, group string, expense func()) {
	tokens = make([]string, members)
	for i := range members {
		tokens[i] = servertest.UserToken(b, s, strconv.Itoa(firstID+i), "Member "+strconv.Itoa(i))
	}
	var created struct{ CreateGroup struct{ ID string } }
	servertest.GQL(b, url, tokens[0], &created, `mutation { createGroup(input: {title: "Bench", currency: "USD"}) { id } }`, nil)
	group = created.CreateGroup.ID
	for _, tok := range tokens[1:] {
		var inv struct{ CreateInvite struct{ Secret string } }
		servertest.GQL(b, url, tokens[0], &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, map[string]any{"g": group})
		servertest.GQL(b, url, tok, nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": inv.CreateInvite.Secret})
	}
	split := fmt.Sprintf(`[{userId: "%d"}, {userId: "%d"}]`, firstID, firstID+1)
	return tokens, group, func() {
		servertest.GQL(b, url, tokens[0], nil, `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "12.00",
			description: "coffee", splitType: EQUAL, splits: `+split+`}) { id } }`, map[string]any{"g": group})
	}
}

// parallel runs f(0..n-1) on workers goroutines.
func parallel(b *testing.B, n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// scrapeMetrics reads the instance's /metrics: each sample by its name and
// labels as written.
func scrapeMetrics(b *testing.B, base string) map[string]float64 {
	resp, err := http.Get(base + "/metrics")
	require.NoError(b, err)
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				out[line[:i]] = v
			}
		}
	}
	return out
}

// waitMetric waits until the instance's metric reads want.
func waitMetric(b *testing.B, base, name string, want float64) {
	deadline := time.Now().Add(2 * time.Minute)
	for scrapeMetrics(b, base)[name] != want {
		if time.Now().After(deadline) {
			b.Fatalf("%s never reached %v (%v)", name, want, scrapeMetrics(b, base)[name])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cpuTime is the CPU time process pid has used (user and system), from /proc.
func cpuTime(b *testing.B, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(b, err)
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the line.
	rest := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(rest[11], 10, 64)
	stime, _ := strconv.ParseInt(rest[12], 10, 64)
	const ticks = 100 // USER_HZ
	return time.Duration(utime+stime) * time.Second / ticks
}

// benchSubscriber is the fan-out's client: the lightest reader of a
// graphql-transport-ws connection, so that the clients, on the same cores
// as the server, take as little of them as they can. It notes when each
// frame was read and finds the event's sequence in it without decoding the
// message; it answers pings.
type benchSubscriber struct{ ws *websocket.Conn }

// send writes a protocol message.
func (c *benchSubscriber) send(typ, id string, payload any) error {
	m := map[string]any{"type": typ}
	if id != "" {
		m["id"] = id
	}
	if payload != nil {
		m["payload"] = payload
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// read hands the sequence of every event the connection receives to got,
// with when its frame was read, until the connection ends. Each message is
// read into the connection's one buffer (no allocation per frame, as
// Conn.Read's io.ReadAll would make) and the sequence is found by a byte
// scan, not by decoding the JSON.
func (c *benchSubscriber) read(got func(seq int, at time.Time)) {
	marker := []byte(`"sequence":`)
	ping := []byte(`"type":"ping"`)
	buf := make([]byte, 0, 1024)
	ctx := context.Background()
	for {
		_, r, err := c.ws.Reader(ctx)
		if err != nil {
			return
		}
		data, err := readInto(r, buf[:0])
		if err != nil {
			return
		}
		buf = data[:0] // keep a grown buffer for the next message
		at := time.Now()
		if i := bytes.Index(data, marker); i >= 0 {
			seq := 0
			for _, ch := range data[i+len(marker):] {
				if ch < '0' || ch > '9' {
					break
				}
				seq = seq*10 + int(ch-'0')
			}
			got(seq, at)
		} else if bytes.Contains(data, ping) {
			_ = c.send("pong", "", nil)
		}
	}
}

// readInto appends the rest of r to b, growing it only when it is full.
func readInto(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, cap(b))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
