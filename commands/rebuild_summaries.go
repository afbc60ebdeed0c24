package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/fracti/api/store"
	"github.com/fracti/api/wiring"
)

var rebuildSummariesCommand = command{
	name: "rebuild-summaries",
	args: "[--group <id>]",
	summary: "Recompute every group's spending summaries (or one group's) from its expense items and overwrite those that differ. " +
		"Run it once after upgrading to a version that keeps summaries, and whenever verify reports spending drift; run again it changes nothing.",
	run: runRebuildSummaries,
}

// runRebuildSummaries runs `rebuild-summaries` (store.RebuildSpending).
func runRebuildSummaries(ctx context.Context, c command, e env, args []string) error {
	fs := c.flags(e.errOut)
	groupID := fs.String("group", "", "rebuild only this group's summaries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := wiring.OpenStore(ctx, e.cfg.Store, quiet())
	if err != nil {
		return err
	}
	return rebuildSummaries(ctx, s, *groupID, e.out)
}

// rebuildSummaries rebuilds groupID's summaries, or every group's when it is "".
func rebuildSummaries(ctx context.Context, s *store.Store, groupID string, out io.Writer) error {
	groups, err := groupsOf(ctx, s, groupID)
	if err != nil {
		return err
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

// groupsOf is the group --group names, or, without one, every group of the
// table (a scan).
func groupsOf(ctx context.Context, s *store.Store, groupID string) ([]string, error) {
	if groupID != "" {
		return []string{groupID}, nil
	}
	return s.ScanGroupIDs(ctx)
}
