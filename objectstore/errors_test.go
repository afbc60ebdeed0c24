package objectstore_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timeout is the clients' bound in these tests, short so that they run fast.
const timeout = 300 * time.Millisecond

// deadClient is a client of a store at endpoint, bounded by timeout.
func deadClient(t *testing.T, endpoint string) *objectstore.Client {
	c, err := objectstore.New(objectstore.Options{Bucket: "fracti-receipts", Endpoint: endpoint, Region: "us-east-1", PathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("id", "secret", ""), Timeout: timeout})
	require.NoError(t, err)
	return c
}

// calls are every call of the client that reaches the store, each
// returning its error.
func calls(c *objectstore.Client) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"Head": func(ctx context.Context) error { _, err := c.Head(ctx, "k"); return err },
		"Read": func(ctx context.Context) error { _, err := c.Read(ctx, "k", 10); return err },
		"Open": func(ctx context.Context) error {
			body, _, err := c.Open(ctx, "k")
			if err == nil {
				_, err = io.ReadAll(body)
				body.Close()
			}
			return err
		},
		"Put":       func(ctx context.Context) error { return c.Put(ctx, "k", "image/png", []byte("png")) },
		"ClearTags": func(ctx context.Context) error { return c.ClearTags(ctx, "k") },
		"Delete":    func(ctx context.Context) error { return c.Delete(ctx, "k", "l") },
		"List": func(ctx context.Context) error {
			for _, err := range c.List(ctx, "receipts/") {
				return err
			}
			return nil
		},
		"DeletePrefix": func(ctx context.Context) error { _, err := c.DeletePrefix(ctx, "receipts/"); return err },
	}
}

// returns is call's error, failing the test if it hangs (a guard, not a
// measure: the bound under test is the client's Timeout).
func returns(t *testing.T, call func(context.Context) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call(context.Background()) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the call did not return")
		return nil
	}
}

// TestUnavailable: a store that accepts connections and never answers, one
// that refuses them, and one that fails with 500s: every call returns
// ErrUnavailable, the first because the client's Timeout ended it (the
// caller's context has no deadline).
func TestUnavailable(t *testing.T) {
	hanging := hangingListener(t)
	refused := refusedAddress(t)
	var attempts atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		attempts.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>`)
	}))
	t.Cleanup(failing.Close)

	for _, store := range []struct{ name, endpoint string }{
		{"never answers", "http://" + hanging},
		{"refuses connections", "http://" + refused},
		{"fails with 500", failing.URL},
	} {
		c := deadClient(t, store.endpoint)
		for name, call := range calls(c) {
			t.Run(store.name+"/"+name, func(t *testing.T) {
				err := returns(t, call)
				require.ErrorIs(t, err, objectstore.ErrUnavailable)
				assert.True(t, objectstore.IsUnavailable(err))
				assert.False(t, objectstore.IsNotFound(err))
				if store.name == "never answers" && name != "Open" {
					assert.ErrorIs(t, err, context.DeadlineExceeded, "the client's Timeout ended it")
				}
			})
		}
	}

	attempts.Store(0)
	c, err := objectstore.New(objectstore.Options{Bucket: "fracti-receipts", Endpoint: failing.URL, PathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("id", "secret", "")}) // DefaultTimeout: room for the retries
	require.NoError(t, err)
	_, err = c.Head(context.Background(), "k")
	require.ErrorIs(t, err, objectstore.ErrUnavailable)
	assert.Equal(t, int32(3), attempts.Load(), "the SDK's retries before giving up")
}

// TestOpenStalls: a store that starts sending an object and stops fails
// the read in progress with ErrUnavailable, after Timeout without data.
func TestOpenStalls(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, "%PDF-1.7\n")
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })

	body, size, err := deadClient(t, srv.URL).Open(context.Background(), "k")
	require.NoError(t, err)
	require.Equal(t, int64(100), size)
	defer body.Close()
	got, err := returnsBytes(t, body)
	require.ErrorIs(t, err, objectstore.ErrUnavailable)
	assert.Equal(t, "%PDF-1.7\n", string(got), "what came before the store stopped")
}

// returnsBytes reads body to its end, guarded as returns is.
func returnsBytes(t *testing.T, body io.Reader) ([]byte, error) {
	var got []byte
	err := returns(t, func(context.Context) error {
		var err error
		got, err = io.ReadAll(body)
		return err
	})
	return got, err
}

// TestRefusedIsNeither: the store refusing the call (wrong credentials)
// and the caller giving up are neither ErrNotFound nor ErrUnavailable:
// nothing to wait for.
func TestRefusedIsNeither(t *testing.T) {
	bucket := s3test.Bucket(t)
	o := s3test.Options(t, bucket)
	o.Credentials = credentials.NewStaticCredentialsProvider("fracti-local", "not-the-secret", "")
	c, err := objectstore.New(o)
	require.NoError(t, err)
	for name, call := range calls(c) {
		t.Run(name, func(t *testing.T) {
			err := returns(t, call)
			require.Error(t, err)
			assert.False(t, objectstore.IsNotFound(err), err)
			assert.False(t, objectstore.IsUnavailable(err), err)
			assert.Contains(t, err.Error(), "StatusCode: 403")
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s3test.Client(t).Head(ctx, "k")
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, objectstore.IsUnavailable(err), "the caller gave up")
}

// hangingListener accepts connections and never answers, until the test ends.
func hangingListener(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// refusedAddress is a local address nothing listens on.
func refusedAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
