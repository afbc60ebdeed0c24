package systemtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/fracti/api/commands"
	"github.com/fracti/api/exchange/splitwise"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// After imports of real Splitwise exports, into an existing group and into
// new ones, `verify` finds every group's kept balances, activity chain and
// spending summaries in step with its items, and each import's balances
// are its file's.
func TestVerifyAfterImports(t *testing.T) {
	_, _, s, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	files := []string{"group_multi_payer.csv", "real_group_inr.csv", "real_rows_pln.csv", "friend_two_currencies.csv", "settled_italian.csv", "group_two_currencies_crlf.csv"}
	for i, name := range files {
		data, err := os.ReadFile("../exchange/splitwise/testdata/" + name)
		require.NoError(t, err)
		plan, err := splitwise.Read(bytes.NewReader(data))
		require.NoError(t, err)
		in := store.ImportInput{Importer: store.NewMember{UserID: "1", Name: "A"}, FileHash: name, Plan: plan}
		if i == 0 {
			in.GroupID = g.ID // into the group of A and B
		} else {
			in.Title, in.Currency = "Imported", money.MustCurrency("INR")
		}
		res, err := s.ImportGroup(ctx, in)
		require.NoError(t, err, name)
		for _, p := range res.Problems {
			require.NotEqual(t, "balances", p.Field, "%s: %s", name, p.Message)
		}
	}
	var out bytes.Buffer
	require.NoError(t, commands.Run(ctx, []string{"verify"}, &out, io.Discard), out.String())
	require.Contains(t, out.String(), fmt.Sprintf("%d groups verified, 0 with drift", len(files)))
}
