package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/fracti/api/store"
)

// rebuildSummariesCommand: `rebuild-summaries [--group <id>]` recomputes
// every group's spending summaries (or one group's) from its expense items
// and overwrites those that differ (store.RebuildSpending). Run it once after
// upgrading to a version that keeps summaries, and whenever verify reports
// spending drift; run again it changes nothing.
func rebuildSummariesCommand(ctx context.Context, cfg config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rebuild-summaries", flag.ContinueOnError)
	groupID := fs.String("group", "", "rebuild only this group's summaries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := openStore(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	return rebuildSummaries(ctx, s, *groupID, out)
}

// rebuildSummaries rebuilds groupID's summaries, or every group's when it is "".
func rebuildSummaries(ctx context.Context, s *store.Store, groupID string, out io.Writer) error {
	groups := []string{groupID}
	if groupID == "" {
		var err error
		if groups, err = s.ScanGroupIDs(ctx); err != nil {
			return err
		}
	}
	total := 0
	for _, g := range groups {
		n, err := s.RebuildSpending(ctx, g)
		total += n
		if err != nil {
			return fmt.Errorf("group %s: %w", g, err)
		}
		fmt.Fprintf(out, "group %s: %d summaries rewritten\n", g, n)
	}
	fmt.Fprintf(out, "%d groups rebuilt, %d summaries rewritten\n", len(groups), total)
	return nil
}
