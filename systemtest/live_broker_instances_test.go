package systemtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/redistest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestLiveFiveInstancesThroughRedis: five server processes on one table
// with Redis as the broker. Every subscriber on every instance receives
// every event exactly once: events written through any instance and
// straight to the table by a script; while the instance reading the
// stream's shard is SIGKILLed (another takes its lease over from the
// checkpoint) and while Redis itself is killed (every instance reads the
// stream itself from the checkpoints). And the stream is read by one
// instance per shard, not five: GetRecords calls per shard per second, as
// a proxy in front of DynamoDB Local counts them, stay those of one reader.
func TestLiveFiveInstancesThroughRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five server processes")
	}
	ctx := context.Background()
	table := servertest.LocalTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{CursorSecret: []byte("shared-by-every-instance")})
	_, err := s.EnableStream(ctx)
	require.NoError(t, err)
	broker := redistest.Start(t)
	proxy := dynamotest.NewRecorder(t)
	bin := servertest.BuildServer(t)
	const poll = 50 * time.Millisecond // startInstance's STREAM_POLL_INTERVAL
	instances := make([]servertest.Instance, 5)
	for i := range instances {
		instances[i] = servertest.StartInstance(t, bin, table, "DYNAMODB_ENDPOINT="+proxy.URL, "LIVE_BROKER="+broker.URL(), "LEASE_TIMEOUT=2s")
	}

	ids := []string{"7001", "7002"}
	tokens := []string{servertest.UserToken(t, s, ids[0], "Writer"), servertest.UserToken(t, s, ids[1], "Reader")}
	var created struct{ CreateGroup struct{ ID string } }
	servertest.GQL(t, instances[0].URL, tokens[0], &created, `mutation { createGroup(input: {title: "Five", currency: "USD"}) { id } }`, nil)
	g := created.CreateGroup.ID
	var inv struct{ CreateInvite struct{ Secret string } }
	servertest.GQL(t, instances[0].URL, tokens[0], &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, map[string]any{"g": g})
	servertest.GQL(t, instances[1].URL, tokens[1], nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": inv.CreateInvite.Secret})

	// On every instance: the writer's myEvents and the reader's groupEvents.
	subs := make([][2]*servertest.Received, len(instances))
	for i, inst := range instances {
		require.Eventually(t, func() bool {
			var probe struct{ Group struct{ SyncToken string } }
			servertest.GQL(t, inst.URL, tokens[0], &probe, `query($g: ID!) { group(id: $g) { syncToken } }`, map[string]any{"g": g})
			return probe.Group.SyncToken != ""
		}, 10*time.Second, 50*time.Millisecond)
		subs[i] = [2]*servertest.Received{
			servertest.SubscribeOn(t, inst.URL, tokens[0], `subscription { myEvents { id } }`, nil, "myEvents"),
			servertest.SubscribeOn(t, inst.URL, tokens[1], `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, map[string]any{"g": g}, "groupEvents"),
		}
	}
	write := func(inst servertest.Instance, n int) {
		servertest.GQL(t, inst.URL, tokens[n%2], nil, `mutation($g: ID!, $a: Decimal!, $u: ID!) { createExpense(input: {groupId: $g,
			amount: $a, description: "taxi", splitType: EQUAL, splits: [{userId: $u}]}) { id } }`,
			map[string]any{"g": g, "a": fmt.Sprintf("%d.00", n+1), "u": ids[n%2]})
	}
	script := func(n int) { // a write straight to the table: only the stream carries it
		grp, err := s.GetGroups(ctx, []string{g})
		require.NoError(t, err)
		title := "renamed " + strconv.Itoa(n)
		_, err = s.UpdateGroup(ctx, *grp[0], store.GroupChange{Title: &title}, ids[0])
		require.NoError(t, err)
	}
	lastSeq := func() int64 {
		page, err := s.ListEvents(ctx, g, store.PageArgs{First: 1})
		require.NoError(t, err)
		return page.Items[0].Seq
	}
	// Every subscription is live once a marker reaches all of them.
	require.Eventually(t, func() bool {
		write(instances[0], 0)
		id := fmt.Sprintf("%s:%d", g, lastSeq())
		time.Sleep(200 * time.Millisecond)
		for _, pair := range subs {
			if pair[0].Snapshot()[id] == 0 || pair[1].Snapshot()[id] == 0 {
				return false
			}
		}
		return true
	}, 20*time.Second, 10*time.Millisecond, "subscriptions never all saw a write")
	start := lastSeq()

	// Writes through every instance and by a script, at once.
	burst := func(insts []servertest.Instance, from int) {
		var wg sync.WaitGroup
		for i, inst := range insts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 6 {
					write(inst, from+i*10+k)
				}
			}()
		}
		for k := range 3 {
			script(from + k)
		}
		wg.Wait()
	}

	// GetRecords per shard per second while five instances run: one reader's.
	arn, err := s.StreamARN(ctx)
	require.NoError(t, err)
	shards := streamShards(t, arn)
	proxy.Reset()
	began := time.Now()
	burst(instances, 100)
	time.Sleep(2 * time.Second)
	elapsed := time.Since(began).Seconds()
	reads := 0
	for _, c := range proxy.Calls() {
		if c.Operation == "GetRecords" {
			reads++
		}
	}
	perShard := float64(reads) / float64(shards) / elapsed
	t.Logf("GetRecords: %d calls over %.1fs on %d shard(s): %.1f per shard per second (one reader polls %.0f)", reads, elapsed, shards, perShard, 1/poll.Seconds())
	require.Less(t, perShard, 1.5/poll.Seconds(), "more than one reader per shard")

	// How soon a write through one instance reaches a subscriber on
	// another (published at commit), logged: the figure, not a test.
	var waits []time.Duration
	for k := range 20 {
		write(instances[0], 700+k)
		wrote := time.Now()
		id := fmt.Sprintf("%s:%d", g, lastSeq())
		require.Eventually(t, func() bool { return !subs[2][1].Arrived(id).IsZero() }, 10*time.Second, time.Millisecond)
		waits = append(waits, subs[2][1].Arrived(id).Sub(wrote))
	}
	slices.Sort(waits)
	t.Logf("from a mutation's response on one instance to the event on another's subscriber: p50 %v, max %v", waits[len(waits)/2], waits[len(waits)-1])

	// SIGKILL the instance holding the shard's lease, mid-burst.
	leases, err := s.ListLeases(ctx, store.LeaseSet(store.StreamLabel(arn), live.ConsumerPublisher))
	require.NoError(t, err)
	victim := -1
	for _, l := range leases {
		for i, inst := range instances {
			if l.Owner != "" && strings.Contains(l.Owner, "/"+strconv.Itoa(inst.PID)+"/") {
				victim = i
			}
		}
	}
	require.NotEqual(t, -1, victim, "no instance holds a lease: %+v", leases)
	var alive []servertest.Instance
	var aliveSubs [][2]*servertest.Received
	for i, inst := range instances {
		if i != victim {
			alive, aliveSubs = append(alive, inst), append(aliveSubs, subs[i])
		}
	}
	done := make(chan struct{})
	go func() { defer close(done); burst(alive[:2], 200) }()
	marks := map[string]int64{"start": start, "kill": lastSeq()}
	require.NoError(t, syscall.Kill(instances[victim].PID, syscall.SIGKILL))
	<-done
	burst(alive, 300)

	// Kill the broker, mid-run.
	marks["broker"] = lastSeq()
	broker.Kill()
	burst(alive, 400)
	time.Sleep(500 * time.Millisecond)
	burst(alive, 500)

	// The broker back: the instances return to it.
	broker.Restart()
	burst(alive, 600)
	for _, inst := range alive {
		metricsURL := strings.TrimSuffix(inst.URL, "/graphql") + "/metrics"
		require.Eventually(t, func() bool {
			return scrape.Get(t, metricsURL).Sum("fracti_live_stream_fallback", nil) == 0
		}, 30*time.Second, 100*time.Millisecond, "an instance still reads the stream itself")
		require.Equal(t, 1.0, scrape.Get(t, metricsURL).Sum("fracti_live_stream_fallbacks_total", nil), "the outage is counted")
	}
	burst(alive, 800)

	// Every event after the marker, once, on every surviving subscription.
	end := lastSeq()
	require.Greater(t, end-start, int64(100))
	for i, pair := range aliveSubs {
		for j, r := range pair {
			var missing []int64
			ok := assertEventually(30*time.Second, func() bool {
				got := r.Snapshot()
				missing = missing[:0]
				for seq := start + 1; seq <= end; seq++ {
					if got[fmt.Sprintf("%s:%d", g, seq)] == 0 {
						missing = append(missing, seq)
					}
				}
				return len(missing) == 0
			})
			require.True(t, ok, "subscription %d of surviving instance %d lost events %v (marks: %v)", j, i, missing, marks)
		}
	}
	time.Sleep(500 * time.Millisecond) // anything doubled arrives by now
	for _, pair := range aliveSubs {
		for _, r := range pair {
			for id, n := range r.Snapshot() {
				require.Equal(t, 1, n, "%s delivered %d times", id, n)
			}
		}
	}
}

// streamShards counts the shards of the stream.
func streamShards(t *testing.T, arn string) int {
	t.Helper()
	streams, err := store.NewStreamsClient(context.Background(), store.ClientConfig{Endpoint: dynamotest.Endpoint(t)})
	require.NoError(t, err)
	out, err := streams.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn})
	require.NoError(t, err)
	return max(1, len(out.StreamDescription.Shards))
}

// assertEventually polls cond every 50ms until it holds or wait passes.
func assertEventually(wait time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(wait)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
