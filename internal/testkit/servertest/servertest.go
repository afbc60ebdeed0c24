// Package servertest runs the server as its operators do, for the system
// tests, the commands' tests and the deploy checks: the binary built and
// started as processes (BuildServer, StartInstance), `serve` in-process on
// a free port (Serve), a fresh local table in the environment (LocalTable),
// and a client's GraphQL over HTTP (GQL) and WebSocket (SubscribeOn).
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// module is the server's package: what BuildServer builds.
const module = "github.com/fracti/api"

// LocalTable points the configuration at a fresh table on DynamoDB Local
// (DYNAMODB_ENDPOINT and DYNAMODB_TABLE, for the test) and returns its name.
func LocalTable(t testing.TB) string {
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	table := dynamotest.Table(t)
	t.Setenv("DYNAMODB_TABLE", table)
	return table
}

// FreePort is a port nothing listens on just now.
func FreePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// waitReady waits until base's /readyz answers 200.
func waitReady(t testing.TB, base, what string) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, what+" did not start")
}

// Serve runs serve (the serve command) on a free port (PORT) with the
// environment the test set, and returns its base URL once /readyz answers
// 200. stop ends it as a SIGTERM would and returns serve's error; the
// test's end stops it too.
func Serve(t *testing.T, serve func(ctx context.Context) error) (base string, stop func() error) {
	t.Helper()
	port := FreePort(t)
	t.Setenv("PORT", port)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				err = errors.New("serve did not stop")
			}
		})
		return err
	}
	t.Cleanup(func() { require.NoError(t, stop()) })
	base = "http://127.0.0.1:" + port
	waitReady(t, base, "serve")
	return base, stop
}

// BuildServer compiles the server's binary, with the build tags given, into
// the test's temporary directory.
func BuildServer(t testing.TB, tags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fracti-api")
	out, err := exec.Command("go", "build", "-tags="+strings.Join(tags, ","), "-o", bin, module).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// Instance is a server process of the binary under test.
type Instance struct {
	URL string // http://127.0.0.1:<port>/graphql
	PID int
}

// StartInstance runs the server binary on table with its own port until the
// test ends; every instance shares CURSOR_SECRET, as instances behind one
// load balancer must. extraEnv adds to (and overrides) its environment.
func StartInstance(t testing.TB, bin, table string, extraEnv ...string) Instance {
	t.Helper()
	port := FreePort(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "PORT="+port, "DYNAMODB_ENDPOINT="+dynamotest.Endpoint(t),
		"DYNAMODB_TABLE="+table, "CURSOR_SECRET=shared-by-every-instance", "PLAYGROUND=false",
		"STREAM_POLL_INTERVAL=50ms", "QUOTA_WRITES_PER_DAY=0", "QUOTA_READS_PER_DAY=0",
		"RATES_URL=off", "CRYPTO_RATES_URL=off") // never the public providers
	cmd.Env = append(cmd.Env, extraEnv...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait() // and for its output to be copied: the logs are read next
		if t.Failed() {
			t.Logf("instance on %s:\n%s", port, logs.String())
		}
	})
	base := "http://127.0.0.1:" + port
	waitReady(t, base, "instance")
	return Instance{URL: base + "/graphql", PID: cmd.Process.Pid}
}

// GQL runs an operation that must succeed on url as the bearer of token.
func GQL(t testing.TB, url, token string, out any, query string, vars map[string]any) {
	t.Helper()
	GQLAs(t, url, "Bearer "+token, out, query, vars)
}

// GQLAs runs an operation that must succeed, with this Authorization
// header, and decodes its data into out (unless nil).
func GQLAs(t testing.TB, url, authorization string, out any, query string, vars map[string]any) {
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

// UserToken creates an access token for the user straight in the store.
func UserToken(t testing.TB, s *store.Store, userID, name string) string {
	t.Helper()
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: userID, Name: name})
	require.NoError(t, err)
	return token
}

// Received counts the events a subscription delivered, by id.
type Received struct {
	mu     sync.Mutex
	counts map[string]int       // id ("<groupId>:<seq>") → deliveries
	first  map[string]time.Time // id → when it first arrived
}

func (r *Received) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[id]++
	if _, ok := r.first[id]; !ok {
		r.first[id] = time.Now()
	}
}

// Arrived is when the event first arrived (zero: not yet).
func (r *Received) Arrived(id string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[id]
}

// Snapshot is how many times each event arrived so far; anything else the
// subscription received is counted under "unexpected <type> <payload>".
func (r *Received) Snapshot() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// SubscribeOn opens a subscription on url (graphql-transport-ws) as the
// bearer of token, and counts its events by the id of their field.
func SubscribeOn(t testing.TB, url, token, query string, vars map[string]any, field string) *Received {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wsclient.Dial(ctx, url, map[string]any{"Authorization": "Bearer " + token})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.CloseNow() })
	require.NoError(t, c.Subscribe(ctx, "1", query, vars))
	r := &Received{counts: map[string]int{}, first: map[string]time.Time{}}
	go func() {
		for m := range c.Messages {
			var p struct {
				Data   map[string]struct{ ID string }
				Errors []any
			}
			if json.Unmarshal(m.Payload, &p) == nil && m.Type == "next" && len(p.Errors) == 0 {
				r.add(p.Data[field].ID)
			} else {
				r.add(fmt.Sprintf("unexpected %s %s", m.Type, m.Payload))
			}
		}
	}()
	return r
}
