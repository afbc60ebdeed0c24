package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// instance is a server process of the binary under test.
type instance struct {
	url string // http://127.0.0.1:<port>/graphql
	pid int
}

// buildServer compiles the server once per test run.
func buildServer(t testing.TB, tags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fracti-api")
	out, err := exec.Command("go", "build", "-tags="+strings.Join(tags, ","), "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// startInstance runs the server binary on table with its own port until the
// test ends; every instance shares CURSOR_SECRET, as instances behind one
// load balancer must.
func startInstance(t testing.TB, bin, table string, extraEnv ...string) instance {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "DYNAMODB_ENDPOINT="+dynamotest.Endpoint(t),
		"DYNAMODB_TABLE="+table, "CURSOR_SECRET=shared-by-every-instance", "PLAYGROUND=false",
		"STREAM_POLL_INTERVAL=50ms", "QUOTA_WRITES_PER_DAY=0", "QUOTA_READS_PER_DAY=0")
	cmd.Env = append(cmd.Env, extraEnv...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait() // and for its output to be copied: the logs are read next
		if t.Failed() {
			t.Logf("instance on %d:\n%s", port, logs.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "instance did not start")
	return instance{url: base + "/graphql", pid: cmd.Process.Pid}
}

// gql runs an operation on an instance as the bearer of token.
func gql(t testing.TB, url, token string, out any, query string, vars map[string]any) {
	t.Helper()
	gqlAs(t, url, "Bearer "+token, out, query, vars)
}

// gqlAs runs an operation that must succeed, with this Authorization header.
func gqlAs(t testing.TB, url, authorization string, out any, query string, vars map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var res struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
	require.Empty(t, res.Errors, "%s", query)
	if out != nil {
		require.NoError(t, json.Unmarshal(res.Data, out))
	}
}

// userToken creates an access token for the user straight in the store.
func userToken(t testing.TB, s *store.Store, userID, name string) string {
	t.Helper()
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: userID, Name: name})
	require.NoError(t, err)
	return token
}

// received counts the events a subscription delivered, by group and sequence.
type received struct {
	mu     sync.Mutex
	counts map[string]int       // "<groupId>:<seq>" → deliveries
	first  map[string]time.Time // "<groupId>:<seq>" → when it first arrived
}

func (r *received) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[id]++
	if r.first == nil {
		r.first = map[string]time.Time{}
	}
	if _, ok := r.first[id]; !ok {
		r.first[id] = time.Now()
	}
}

// arrived is when the event first arrived (zero: not yet).
func (r *received) arrived(id string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[id]
}

func (r *received) snapshot() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// subscribeOn opens a subscription on an instance and counts its events by id.
func subscribeOn(t testing.TB, inst instance, token, query string, vars map[string]any, field string) *received {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wsclient.Dial(ctx, inst.url, map[string]any{"Authorization": "Bearer " + token})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.CloseNow() })
	require.NoError(t, c.Subscribe(ctx, "1", query, vars))
	r := &received{counts: map[string]int{}}
	go func() {
		for m := range c.Messages {
			var p struct {
				Data   map[string]struct{ ID string }
				Errors []any
			}
			if json.Unmarshal(m.Payload, &p) == nil && m.Type == "next" && len(p.Errors) == 0 {
				r.add(p.Data[field].ID)
			} else {
				r.add("unexpected " + m.Type + " " + string(m.Payload))
			}
		}
	}()
	return r
}

// TestLiveAcrossTwoServerProcesses: subscribers on instance B receive every
// event of mutations sent to instance A, and of writes that went to the
// table without any server, exactly once.
func TestLiveAcrossTwoServerProcesses(t *testing.T) {
	table := localTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{CursorSecret: []byte("shared-by-every-instance")})
	bin := buildServer(t)
	a, b := startInstance(t, bin, table), startInstance(t, bin, table)

	const writers = 4
	ids := make([]string, writers)
	tokens := make([]string, writers)
	for i := range writers {
		ids[i] = strconv.Itoa(5001 + i)
		tokens[i] = userToken(t, s, ids[i], "User "+ids[i])
	}
	// Two groups with every writer in both, made through A.
	groups := make([]string, 2)
	for gi := range groups {
		var out struct{ CreateGroup struct{ ID string } }
		gql(t, a.url, tokens[0], &out, `mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id } }`,
			map[string]any{"t": "Group " + strconv.Itoa(gi)})
		groups[gi] = out.CreateGroup.ID
		for _, tok := range tokens[1:] {
			var inv struct{ CreateInvite struct{ Secret string } }
			gql(t, a.url, tokens[0], &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, map[string]any{"g": groups[gi]})
			gql(t, a.url, tok, nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": inv.CreateInvite.Secret})
		}
	}

	// On B: writer 0 follows every group, writer 1 the first group only.
	// B must be reading its stream first: it refuses subscriptions until then.
	require.Eventually(t, func() bool {
		var probe struct{ Group struct{ SyncToken string } }
		gql(t, b.url, tokens[0], &probe, `query($g: ID!) { group(id: $g) { syncToken } }`, map[string]any{"g": groups[0]})
		return probe.Group.SyncToken != ""
	}, 10*time.Second, 50*time.Millisecond)
	mine := subscribeOn(t, b, tokens[0], `subscription { myEvents { id } }`, nil, "myEvents")
	one := subscribeOn(t, b, tokens[1], `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, map[string]any{"g": groups[0]}, "groupEvents")

	// A marker through A tells when both subscriptions are live: everything
	// after it counts.
	marker := func(g string) string {
		gql(t, a.url, tokens[0], nil, `mutation($g: ID!, $u: ID!) { createExpense(input: {groupId: $g, amount: "1.00",
			description: "marker", splitType: EQUAL, splits: [{userId: $u}]}) { id } }`, map[string]any{"g": g, "u": ids[0]})
		head, err := s.ListChanges(context.Background(), g, "", 100)
		require.NoError(t, err)
		return fmt.Sprintf("%s:%d", g, head.Events[len(head.Events)-1].Seq)
	}
	require.Eventually(t, func() bool {
		m := marker(groups[0])
		time.Sleep(300 * time.Millisecond)
		return mine.snapshot()[m] == 1 && one.snapshot()[m] == 1
	}, 20*time.Second, 10*time.Millisecond, "subscriptions on B never saw A's writes")
	start := map[string]int64{}
	for _, g := range groups {
		changes, err := s.ListChanges(context.Background(), g, "", 100)
		require.NoError(t, err)
		start[g] = changes.Events[len(changes.Events)-1].Seq
	}

	// 220 mutations from four clients at once, all sent to A, plus writes
	// a script makes straight to the table.
	const perWriter = 55
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				g := groups[i%len(groups)]
				gql(t, a.url, tokens[w], nil, `mutation($g: ID!, $a: Decimal!, $s: [SplitInput!]!) {
					createExpense(input: {groupId: $g, amount: $a, description: "lunch", splitType: EQUAL, splits: $s}) { id } }`,
					map[string]any{"g": g, "a": fmt.Sprintf("%d.00", i+1), "s": []map[string]any{{"userId": ids[w]}}})
			}
		}()
	}
	for i := range 5 {
		grp, err := s.GetGroups(context.Background(), groups[:1])
		require.NoError(t, err)
		title := fmt.Sprintf("renamed by a script %d", i)
		_, err = s.UpdateGroup(context.Background(), *grp[0], store.GroupChange{Title: &title}, ids[0])
		require.NoError(t, err)
	}
	wg.Wait()

	// Every event after the marker, per the log itself.
	want := map[string][]string{}
	for _, g := range groups {
		changes, err := s.ListChanges(context.Background(), g, s.SyncToken(g, start[g]), 100)
		require.NoError(t, err)
		for changes.HasMore {
			more, err := s.ListChanges(context.Background(), g, changes.Token, 100)
			require.NoError(t, err)
			changes.Events, changes.Token, changes.HasMore = append(changes.Events, more.Events...), more.Token, more.HasMore
		}
		for _, ev := range changes.Events {
			want[g] = append(want[g], fmt.Sprintf("%s:%d", g, ev.Seq))
		}
	}
	require.GreaterOrEqual(t, len(want[groups[0]])+len(want[groups[1]]), writers*perWriter+5)

	expect := func(r *received, groups ...string) {
		t.Helper()
		var ids []string
		for _, g := range groups {
			ids = append(ids, want[g]...)
		}
		require.Eventually(t, func() bool {
			got := r.snapshot()
			for _, id := range ids {
				if got[id] == 0 {
					return false
				}
			}
			return true
		}, 30*time.Second, 50*time.Millisecond, "events lost")
		time.Sleep(500 * time.Millisecond) // anything doubled arrives by now
		wanted := map[string]bool{}
		for _, id := range ids {
			wanted[id] = true
		}
		for id, n := range r.snapshot() {
			require.Equal(t, 1, n, "%s delivered %d times", id, n)
			g, seq, ok := splitEventID(id)
			require.True(t, ok, "not an event: %s", id)
			if seq > start[g] {
				require.True(t, wanted[id], "%s was not expected here", id)
			}
		}
	}
	expect(mine, groups...)
	expect(one, groups[0])
}

// splitEventID splits a GroupEvent id "<groupId>:<seq>".
func splitEventID(id string) (string, int64, bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(id[i+1:], 10, 64)
	return id[:i], seq, err == nil
}
