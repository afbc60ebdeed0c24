package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/fracti/api/wiring"
)

// errDrift makes `verify` exit non-zero.
var errDrift = errors.New("balances drifted from the items they are kept from, or the activity chain is broken")

var verifyCommand = command{
	name: "verify",
	args: "[--group <id>]",
	summary: "Recompute every group's balances (or one group's) from its expenses and completed settlements, its activity chain's hashes and its spending summaries, and compare them with what the writes kept; with S3_BUCKET, check that every receipt's object is there and that no object is left without its receipt: " +
		"one line per group and what is wrong; exit 1 on drift.",
	run: runVerify,
}

// runVerify runs `verify`.
func runVerify(ctx context.Context, c command, e env, args []string) error {
	out := e.out
	fs := c.flags(e.errOut)
	groupID := fs.String("group", "", "verify only this group")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := wiring.OpenStore(ctx, e.cfg.Store, quiet())
	if err != nil {
		return err
	}
	files, err := wiring.Receipts(e.cfg, s, quiet())
	if err != nil {
		return err
	}
	groups, err := groupsOf(ctx, s, *groupID)
	if err != nil {
		return err
	}
	drifted := 0
	for _, g := range groups {
		problems, err := verifyGroup(ctx, s, g)
		if err != nil {
			return fmt.Errorf("group %s: %w", g, err)
		}
		// With a bucket: its receipts' objects, and nothing else under the group.
		stored, err := files.VerifyGroup(ctx, g)
		if err != nil {
			return fmt.Errorf("group %s: receipts: %w", g, err)
		}
		problems = append(problems, stored...)
		if len(problems) == 0 {
			fmt.Fprintf(out, "group %s: ok\n", g)
			continue
		}
		drifted++
		fmt.Fprintf(out, "group %s: DRIFT\n  %s\n", g, strings.Join(problems, "\n  "))
	}
	fmt.Fprintf(out, "%d groups verified, %d with drift\n", len(groups), drifted)
	if drifted > 0 {
		return errDrift
	}
	return nil
}

// verifyGroup lists what is wrong with a group's kept balances and activity chain.
func verifyGroup(ctx context.Context, s *store.Store, groupID string) ([]string, error) {
	re, err := s.RecomputeBalances(ctx, groupID)
	if err != nil {
		return nil, err
	}
	kept, err := s.StoredBalances(ctx, groupID)
	if err != nil || kept == nil {
		return nil, err
	}
	problems := re.Problems
	broken, err := s.VerifyChain(ctx, groupID)
	if err != nil {
		return nil, err
	}
	if broken != "" {
		problems = append(problems, broken)
	}
	spending, err := s.SpendingDrift(ctx, groupID)
	if err != nil {
		return nil, err
	}
	problems = append(problems, spending...)
	currencies := map[money.Currency]bool{}
	for c := range re.Books {
		currencies[c] = true
	}
	for _, b := range kept.Books {
		currencies[b.Currency] = true
	}
	for c := range currencies {
		k, r := kept.Book(c), re.Books[c]
		if r == nil {
			r = ledger.NewBook(c)
		}
		for _, d := range k.Diff(r) {
			problems = append(problems, c.Code()+": "+d)
		}
		sum := money.Zero(c)
		for _, n := range k.Nets() {
			sum = sum.Add(n)
		}
		if !sum.IsZero() {
			problems = append(problems, fmt.Sprintf("%s: kept nets add up to %s, not zero", c.Code(), sum))
		}
	}
	return problems, nil
}
