// Package schedule runs the server's timed work: jobs registered with an
// interval, each run at that interval plus a random jitter, on every
// instance of the server.
//
// The contract with a job: the scheduler runs it again and again, on every
// instance at once, and promises nothing about once. Two instances may run
// the same job at the same moment; a run may be cut off anywhere (shutdown,
// a crash, a deadline) and the work it was doing be done again by the next
// run, here or elsewhere. Exactly once is therefore the job's own business,
// through its writes' conditions: each unit of work must have a
// deterministic identity written with a condition (such as a recurring
// expense's occurrence marker, written only if absent, in the same
// transaction as the work), so that whoever comes second writes nothing.
// Within one instance a job never overlaps itself: its next run is timed
// from the end of the one before.
//
// A job's error or panic is logged and counted (Observer) and the job runs
// again at its next time; it never stops the scheduler or the server. The
// scheduler reads time from a Clock, and RunDue runs whatever is due now,
// so that tests move a clock (internal/testkit/testclock) and call RunDue instead
// of sleeping.
package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"time"
)

// Clock tells the time; time.Now's, or a test's.
type Clock interface {
	Now() time.Time
}

// Job is one run of some timed work. It must stop soon after ctx ends.
type Job func(ctx context.Context) error

// Outcomes of a run, as Observer is told them.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
	OutcomePanic = "panic"
)

// Observer is told every run's job name and outcome (metrics).
type Observer func(job, outcome string)

// DefaultJitter is the part of a job's interval added at random to each
// wait, so that instances started together do not run together forever.
const DefaultJitter = 0.1

// Options configure a Scheduler; the zero value is usable.
type Options struct {
	Clock   Clock        // default: the real time
	Log     *slog.Logger // default: slog.Default()
	Observe Observer     // default: none
	// Jitter is the fraction of the interval (0 to 1) a wait may be
	// lengthened by at random; 0 means DefaultJitter, negative none.
	Jitter float64
}

// Scheduler runs registered jobs until stopped.
type Scheduler struct {
	clock   Clock
	log     *slog.Logger
	observe Observer
	jitter  float64

	mu      sync.Mutex
	jobs    []*entry
	started bool

	stop    chan struct{} // closed by Stop: no more runs start
	jobCtx  context.Context
	cancel  context.CancelFunc // ends runs in flight when Stop's grace ends
	running sync.WaitGroup
}

type entry struct {
	name  string
	every time.Duration
	run   Job

	mu   sync.Mutex // held while the job runs: it never overlaps itself
	next time.Time  // guarded by Scheduler.mu
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// New returns a scheduler with no jobs.
func New(opts Options) *Scheduler {
	s := &Scheduler{clock: opts.Clock, log: opts.Log, observe: opts.Observe, jitter: opts.Jitter, stop: make(chan struct{})}
	if s.clock == nil {
		s.clock = realClock{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.observe == nil {
		s.observe = func(string, string) {}
	}
	switch {
	case s.jitter == 0:
		s.jitter = DefaultJitter
	case s.jitter < 0:
		s.jitter = 0
	}
	s.jitter = min(s.jitter, 1)
	s.jobCtx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Register adds a job that runs every interval (plus jitter); its first run
// comes within the jitter of now, so that work that waited for the server
// (such as a recurring expense's catch-up) is not delayed by a whole
// interval. Jobs are registered before Start.
func (s *Scheduler) Register(name string, every time.Duration, job Job) {
	if every <= 0 {
		panic(fmt.Sprintf("schedule: job %s needs a positive interval", name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		panic("schedule: Register after Start")
	}
	s.jobs = append(s.jobs, &entry{name: name, every: every, run: job, next: s.clock.Now().Add(s.wobble(every))})
}

// wobble is a random extra wait of up to the jitter's part of every.
func (s *Scheduler) wobble(every time.Duration) time.Duration {
	n := int64(float64(every) * s.jitter)
	if n <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(n))
}

// Start runs every job in a goroutine of its own, each at its times, until
// Stop.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	for _, e := range s.jobs {
		s.running.Add(1)
		go s.loop(e)
	}
}

func (s *Scheduler) loop(e *entry) {
	defer s.running.Done()
	for {
		s.mu.Lock()
		wait := e.next.Sub(s.clock.Now())
		s.mu.Unlock()
		t := time.NewTimer(max(wait, 0))
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-t.C:
		}
		s.runIfDue(e)
	}
}

// RunDue runs, one after another, every job whose time has come by the
// clock, and returns how many ran. Tests drive the scheduler with it.
func (s *Scheduler) RunDue() int {
	n := 0
	for _, e := range s.jobs {
		if s.runIfDue(e) {
			n++
		}
	}
	return n
}

// runIfDue runs e if its time has come and it is not running already, then
// times its next run from now.
func (s *Scheduler) runIfDue(e *entry) bool {
	select {
	case <-s.stop:
		return false // stopped: no run starts
	default:
	}
	if !e.mu.TryLock() {
		return false
	}
	defer e.mu.Unlock()
	s.mu.Lock()
	due := !s.clock.Now().Before(e.next)
	s.mu.Unlock()
	if !due {
		return false
	}
	s.observe(e.name, s.runOnce(e))
	s.mu.Lock()
	e.next = s.clock.Now().Add(e.every + s.wobble(e.every))
	s.mu.Unlock()
	return true
}

// runOnce runs the job, turning a panic into a logged outcome.
func (s *Scheduler) runOnce(e *entry) (outcome string) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("scheduled job panicked", "job", e.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			outcome = OutcomePanic
		}
	}()
	if err := e.run(s.jobCtx); err != nil {
		s.log.Error("scheduled job failed", "job", e.name, "error", err, "duration", time.Since(start))
		return OutcomeError
	}
	return OutcomeOK
}

// Stop starts no more runs and waits for those in flight to finish; when
// ctx ends first (the shutdown's grace), it cancels them, waits for them to
// return and reports ctx's error. A run cut off so is safe by the job's
// contract: its conditional writes either happened whole or not at all.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.running.Wait()
		close(done)
	}()
	defer s.cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.cancel()
		<-done
		return ctx.Err()
	}
}
