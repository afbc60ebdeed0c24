package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/internal/wsclient"
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
	table := localTable(b)
	s := store.New(dynamotest.Client(b), table, store.Options{})
	inst := startInstance(b, buildServer(b), table, "STREAM_POLL_INTERVAL=", "LIVE_CONNECTIONS_PER_USER="+strconv.Itoa(perMember))

	tokens := make([]string, members)
	for i := range members {
		tokens[i] = userToken(b, s, strconv.Itoa(7001+i), "Member "+strconv.Itoa(i))
	}
	var created struct{ CreateGroup struct{ ID string } }
	gql(b, inst.url, tokens[0], &created, `mutation { createGroup(input: {title: "Bench", currency: "USD"}) { id } }`, nil)
	group := created.CreateGroup.ID
	for _, tok := range tokens[1:] {
		var inv struct{ CreateInvite struct{ Secret string } }
		gql(b, inst.url, tokens[0], &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, map[string]any{"g": group})
		gql(b, inst.url, tok, nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": inv.CreateInvite.Secret})
	}
	expense := func() {
		gql(b, inst.url, tokens[0], nil, `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "12.00",
			description: "coffee", splitType: EQUAL, splits: [{userId: "7001"}, {userId: "7002"}]}) { id } }`, map[string]any{"g": group})
	}
	expense() // warm up the server's paths before measuring its memory
	time.Sleep(time.Second)
	before := residentKiB(b, inst.pid)

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
			c, err := wsclient.Dial(ctx, inst.url, map[string]any{"Authorization": "Bearer " + tokens[i%members]})
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
	after := residentKiB(b, inst.pid)

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
