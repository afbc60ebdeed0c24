package schedule_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/schedule"
	"github.com/stretchr/testify/require"
)

var start = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// outcomes records what the scheduler tells its observer.
type outcomes struct {
	mu  sync.Mutex
	got []string
}

func (o *outcomes) observe(job, outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, job+":"+outcome)
}

func (o *outcomes) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.got...)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRunDueFollowsTheInterval(t *testing.T) {
	clock := testclock.At(start)
	var o outcomes
	s := schedule.New(schedule.Options{Clock: clock, Observe: o.observe, Jitter: -1, Log: quiet()})
	runs := 0
	s.Register("count", time.Minute, func(context.Context) error { runs++; return nil })

	require.Equal(t, 1, s.RunDue(), "the first run comes at once")
	require.Equal(t, 0, s.RunDue(), "not again before the interval")
	clock.Add(59 * time.Second)
	require.Equal(t, 0, s.RunDue())
	clock.Add(time.Second)
	require.Equal(t, 1, s.RunDue())
	clock.Add(10 * time.Minute)
	require.Equal(t, 1, s.RunDue(), "missed times are one run, not ten")
	require.Equal(t, 3, runs)
	require.Equal(t, []string{"count:ok", "count:ok", "count:ok"}, o.list())
}

func TestJitterStaysWithinItsPart(t *testing.T) {
	for range 20 {
		clock := testclock.At(start)
		s := schedule.New(schedule.Options{Clock: clock, Jitter: 0.5, Log: quiet()})
		s.Register("j", time.Minute, func(context.Context) error { return nil })
		clock.Add(30 * time.Second)
		require.Equal(t, 1, s.RunDue(), "the first run within half an interval")
		clock.Add(time.Minute - time.Nanosecond)
		require.Equal(t, 0, s.RunDue(), "never before the interval")
		clock.Add(30*time.Second + time.Nanosecond)
		require.Equal(t, 1, s.RunDue(), "never after one and a half")
	}
}

func TestAFailingJobRunsAgainAndOthersRun(t *testing.T) {
	clock := testclock.At(start)
	var o outcomes
	s := schedule.New(schedule.Options{Clock: clock, Observe: o.observe, Jitter: -1, Log: quiet()})
	var panics atomic.Int32
	s.Register("panics", time.Minute, func(context.Context) error {
		if panics.Add(1) == 1 {
			var m map[string]int
			m["boom"]++ // a nil map write: a runtime panic
		}
		return nil
	})
	s.Register("fails", time.Minute, func(context.Context) error { return errors.New("table unreachable") })
	require.Equal(t, 2, s.RunDue())
	clock.Add(time.Minute)
	require.Equal(t, 2, s.RunDue())
	require.Equal(t, []string{"panics:panic", "fails:error", "panics:ok", "fails:error"}, o.list())
}

func TestStopWaitsForRunsInFlight(t *testing.T) {
	s := schedule.New(schedule.Options{Log: quiet()})
	// started holds the first run's signal even if the test is not waiting
	// yet: unbuffered, a run that came first dropped it and the test hung.
	started, release := make(chan struct{}, 1), make(chan struct{})
	var finished atomic.Bool
	s.Register("slow", time.Millisecond, func(context.Context) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
		finished.Store(true)
		return nil
	})
	s.Start()
	<-started
	stopped := make(chan error)
	go func() { stopped <- s.Stop(context.Background()) }()
	close(release)
	require.NoError(t, <-stopped)
	require.True(t, finished.Load(), "Stop returned before the run in flight ended")
}

func TestStopCancelsRunsWhenTheGraceEnds(t *testing.T) {
	s := schedule.New(schedule.Options{Log: quiet()})
	started := make(chan struct{})
	var sawCancel atomic.Bool
	s.Register("stuck", time.Millisecond, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		sawCancel.Store(true)
		return ctx.Err()
	})
	s.Start()
	<-started
	grace, cancel := context.WithCancel(context.Background())
	cancel() // the grace is over at once
	require.ErrorIs(t, s.Stop(grace), context.Canceled)
	require.True(t, sawCancel.Load())
	require.Equal(t, 0, s.RunDue(), "nothing runs after Stop")
}
