package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/fracti/api/store"
)

// migrateCommand: `migrate [--dry-run] [--segments N] [--restart]` brings
// items written by earlier versions up to the current format with a
// parallel scan of the whole table (see store.Migrate). It prints each
// segment's progress after every page and a summary; stopped, it continues
// where it stopped on the next run, and run again it changes nothing.
func migrateCommand(ctx context.Context, cfg config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "count what would change; write nothing")
	segments := fs.Int("segments", 4, "parallel scan segments")
	restart := fs.Bool("restart", false, "ignore saved progress and scan the whole table again")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *segments < 1 || *segments > 1000 {
		return fmt.Errorf("--segments must be between 1 and 1000")
	}
	s, err := openStore(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	res, err := s.Migrate(ctx, store.MigrateOptions{
		Segments: *segments, DryRun: *dryRun, Restart: *restart,
		Progress: func(p store.MigrateProgress) {
			mu.Lock()
			defer mu.Unlock()
			state := "scanning"
			if p.Done {
				state = "done"
			}
			fmt.Fprintf(out, "segment %d/%d: %d items scanned, %d changed (%s)\n", p.Segment+1, p.Segments, p.Scanned, p.Changed, state)
		},
	})
	verb := "changed"
	if *dryRun {
		verb = "would change"
	}
	fmt.Fprintf(out, "%d items scanned, %d %s", res.Scanned, res.Changed, verb)
	if res.AlreadyDone > 0 {
		fmt.Fprintf(out, "; %d of %d segments were already done (--restart scans them again)", res.AlreadyDone, *segments)
	}
	fmt.Fprintln(out)
	if err != nil {
		return fmt.Errorf("migrate (run it again to continue): %w", err)
	}
	return nil
}
