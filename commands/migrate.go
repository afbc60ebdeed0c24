package commands

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/fracti/api/store"
	"github.com/fracti/api/wiring"
)

var migrateCommand = command{
	name: "migrate",
	args: "[--dry-run] [--segments N] [--restart]",
	summary: "Bring items written by earlier versions up to the current format, with a parallel scan of the whole table; " +
		"each segment's progress is printed as it goes. Stopped, it continues where it stopped on the next run; run again, it changes nothing.",
	run: runMigrate,
}

// runMigrate runs `migrate` (store.Migrate).
func runMigrate(ctx context.Context, c command, e env, args []string) error {
	out := e.out
	fs := c.flags(e.errOut)
	dryRun := fs.Bool("dry-run", false, "count what would change; write nothing")
	segments := fs.Int("segments", 4, "parallel scan segments")
	restart := fs.Bool("restart", false, "ignore saved progress and scan the whole table again")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *segments < 1 || *segments > 1000 {
		return fmt.Errorf("--segments must be between 1 and 1000")
	}
	s, err := wiring.OpenStore(ctx, e.cfg.Store, quiet())
	if err != nil {
		return err
	}
	// Ctrl-C stops the scan; each segment's progress up to its last full
	// page is saved, so the next run continues from there.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := newProgressPrinter(out, progressEvery)
	res, err := s.Migrate(ctx, store.MigrateOptions{
		Segments: *segments, DryRun: *dryRun, Restart: *restart, Progress: p.report,
	})
	p.flush()
	verb := "changed"
	if *dryRun {
		verb = "would change"
	}
	fmt.Fprintf(out, "%d items scanned, %d %s", res.Scanned, res.Changed, verb)
	if res.AlreadyDone > 0 {
		fmt.Fprintf(out, "; %d of %d segments were already done (--restart scans them again)", res.AlreadyDone, *segments)
	}
	if err == nil && !*dryRun {
		fmt.Fprint(out, "; the migration is complete")
	}
	fmt.Fprintln(out)
	if err != nil {
		return fmt.Errorf("migrate (run it again to continue): %w", err)
	}
	return nil
}

// progressEvery is how often a segment's progress is printed while it scans.
const progressEvery = 5 * time.Second

// progressPrinter prints each segment's progress at most every so often,
// when the segment finishes, and, at the end, where each segment stopped.
type progressPrinter struct {
	out   io.Writer
	every time.Duration

	mu      sync.Mutex
	last    map[int]store.MigrateProgress // newest report per segment
	printed map[int]time.Time             // when each segment's line was last printed
	shown   map[int]bool                  // whether the newest report was printed
}

func newProgressPrinter(out io.Writer, every time.Duration) *progressPrinter {
	return &progressPrinter{out: out, every: every,
		last: map[int]store.MigrateProgress{}, printed: map[int]time.Time{}, shown: map[int]bool{}}
}

// report is the store's Progress callback; segments call it from their own goroutines.
func (p *progressPrinter) report(r store.MigrateProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last[r.Segment], p.shown[r.Segment] = r, false
	if r.Done || time.Since(p.printed[r.Segment]) >= p.every {
		p.print(r)
	}
}

// flush prints the newest report of every segment not printed yet.
func (p *progressPrinter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, i := range slices.Sorted(maps.Keys(p.last)) {
		if !p.shown[i] {
			p.print(p.last[i])
		}
	}
}

func (p *progressPrinter) print(r store.MigrateProgress) {
	state := "scanning"
	if r.Done {
		state = "done"
	}
	fmt.Fprintf(p.out, "segment %d/%d: %d items scanned, %d changed (%s)\n", r.Segment+1, r.Segments, r.Scanned, r.Changed, state)
	p.printed[r.Segment], p.shown[r.Segment] = time.Now(), true
}
