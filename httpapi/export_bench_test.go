package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// BenchmarkExport5000 exports a group of 5,000 expenses (and one of 500,
// to compare) as JSON and as CSV through the whole handler, and reports
// the bytes written and, at every page the export flushes
// (runtime.ReadMemStats), how far the heap has grown above what it held
// before the export: with the garbage not yet collected (peak-heap-bytes,
// which the collector's pacing bounds), and live after a collection
// (peak-live-bytes: what the export holds). The live peak must not grow
// with the group: the 5,000-expense export fails if it holds more than
// 256 KiB above the 500-expense one. The forced collections are in ns/op.
func BenchmarkExport5000(b *testing.B) {
	live := map[string]uint64{}
	for _, n := range []int{500, 5000} {
		h, path, token := exportBenchGroup(b, n)
		for _, format := range []string{"json", "csv"} {
			b.Run(fmt.Sprintf("%s/expenses=%d", format, n), func(b *testing.B) {
				b.ReportAllocs()
				var w *heapWriter
				for b.Loop() {
					w = &heapWriter{header: http.Header{}}
					runtime.GC()
					w.start()
					req := httptest.NewRequest(http.MethodGet, path+"."+format, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					h.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("HTTP %d", w.status)
					}
				}
				b.ReportMetric(float64(w.bytes), "bytes/export")
				b.ReportMetric(float64(w.peak), "peak-heap-bytes")
				b.ReportMetric(float64(w.live), "peak-live-bytes")
				b.ReportMetric(float64(w.pages), "flushes/export")
				if small, ok := live[format]; !ok {
					live[format] = w.live
				} else if w.live > small+256<<10 {
					b.Fatalf("the export of %d expenses held %d bytes, of 500 %d: memory grows with the group", n, w.live, small)
				}
			})
		}
	}
}

// exportBenchGroup is a group of four members with n expenses in three
// currencies, each paid by two members and shared by all four, and a
// handler and token to export it with.
func exportBenchGroup(b *testing.B, n int) (http.Handler, string, string) {
	b.Helper()
	ctx := context.Background()
	s := store.New(dynamotest.Client(b), dynamotest.Table(b), store.Options{CursorSecret: []byte("bench")})
	token, _ := auth.NewToken()
	if _, err := s.CreateToken(ctx, store.Token{Hash: auth.HashToken(token), UserID: "100", Name: "U100"}); err != nil {
		b.Fatal(err)
	}
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Big", Currency: usd(), Creator: store.NewMember{UserID: "100", Name: "U100"}})
	if err != nil {
		b.Fatal(err)
	}
	users := []string{"100", "101", "102", "103"}
	for _, id := range users[1:] {
		if _, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: id, Name: "U" + id}); err != nil {
			b.Fatal(err)
		}
	}
	currencies := []money.Currency{usd(), money.MustCurrency("EUR"), money.MustCurrency("JPY")}
	// Four writers, each a quarter of the expenses.
	const writers = 4
	failures := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && failures[w] == nil; i += writers {
				cur := currencies[i%len(currencies)]
				part := money.NewAmount(int64(100+i%7), cur)
				e := store.Expense{GroupID: g.ID, PayerID: users[i%4], PayerName: "U" + users[i%4], Amount: money.Sum(cur, part, part, part, part),
					Description: fmt.Sprintf("Expense number %d, with a description of a usual length", i), Category: "food",
					SplitType: store.SplitExact, CreatedBy: "100",
					Payers: []store.Payment{{UserID: users[i%4], UserName: "U" + users[i%4], Amount: money.Sum(cur, part, part, part)},
						{UserID: users[(i+1)%4], UserName: "U" + users[(i+1)%4], Amount: part}}}
				for _, u := range users {
					e.Splits = append(e.Splits, store.Split{UserID: u, UserName: "U" + u, Amount: part})
				}
				_, failures[w] = s.CreateExpense(ctx, g.Title, e, "")
			}
		}()
	}
	wg.Wait()
	for _, err := range failures {
		if err != nil {
			b.Fatal(err)
		}
	}
	h := httpapi.New(httpapi.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return h, httpapi.ExportPath + g.ID, token
}

// heapWriter is a ResponseWriter that counts what is written and, at each
// flush, how far the heap has grown above where it started.
type heapWriter struct {
	header http.Header
	status int
	bytes  int64
	pages  int
	base   uint64
	peak   uint64 // garbage included
	live   uint64 // after a collection
}

func (w *heapWriter) start() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.base = m.HeapAlloc
}

func (w *heapWriter) Header() http.Header { return w.header }

func (w *heapWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *heapWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.bytes += int64(len(b))
	return len(b), nil
}

func (w *heapWriter) Flush() {
	w.pages++
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.peak = max(w.peak, m.HeapAlloc-min(w.base, m.HeapAlloc))
	runtime.GC()
	runtime.ReadMemStats(&m)
	w.live = max(w.live, m.HeapAlloc-min(w.base, m.HeapAlloc))
}
