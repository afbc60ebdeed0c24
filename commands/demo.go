package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/config"
	"github.com/fracti/api/money"
	"github.com/fracti/api/playground"
	"github.com/fracti/api/store"
)

// Demo users of `make run`.
const (
	demoUser  = "100000001"
	aliceUser = "100000002"
	bobUser   = "100000003"
)

// ensureDemo makes sure the local table has a demo user with an access token
// (kept in tokenFile so it survives restarts) and a small demo group, and
// returns the token.
func ensureDemo(ctx context.Context, s *store.Store, tokenFile string) (string, error) {
	if b, err := os.ReadFile(tokenFile); err == nil {
		token := strings.TrimSpace(string(b))
		if _, err := s.LookupToken(ctx, auth.HashToken(token)); err == nil {
			return token, nil
		}
	}
	token, err := createToken(ctx, s, store.Token{UserID: demoUser, Name: "Demo User", Username: "demo", Label: "make run"})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(tokenFile), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		return "", err
	}
	groups, err := s.ListUserGroups(ctx, demoUser, store.PageArgs{First: 1})
	if err != nil || len(groups.Items) > 0 {
		return token, err
	}
	return token, seedDemoGroup(ctx, s)
}

// seedDemoGroup creates "Weekend trip" with three members, two expenses and
// a pending settlement, so the Playground has something to show.
func seedDemoGroup(ctx context.Context, s *store.Store) error {
	usd := money.MustCurrency("USD")
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Weekend trip", Currency: usd,
		Creator: store.NewMember{UserID: demoUser, Name: "Demo User", Username: "demo"}})
	if err != nil {
		return err
	}
	names := map[string]string{demoUser: "Demo User", aliceUser: "Alice Smith", bobUser: "Bob Jones"}
	for _, u := range []string{aliceUser, bobUser} {
		if _, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: u, Name: names[u]}); err != nil {
			return err
		}
	}
	users := []string{demoUser, aliceUser, bobUser}
	for _, e := range []struct{ payer, amount, what, category string }{
		{aliceUser, "300.00", "Cabin", "lodging"},
		{demoUser, "100.00", "Groceries", "food"},
	} {
		total, _ := money.ParseAmount(e.amount, usd)
		parts, err := money.SplitEqual(total, len(users))
		if err != nil {
			return err
		}
		exp := store.Expense{GroupID: g.ID, PayerID: e.payer, PayerName: names[e.payer], Amount: total,
			Description: e.what, Category: e.category, SplitType: store.SplitEqual, CreatedBy: e.payer}
		for i, u := range users {
			exp.Splits = append(exp.Splits, store.Split{UserID: u, UserName: names[u], Amount: parts[i]})
		}
		if _, err := s.CreateExpense(ctx, g.Title, exp, ""); err != nil {
			return err
		}
	}
	amount, _ := money.ParseAmount("20.00", usd)
	_, err = s.CreateSettlement(ctx, store.Settlement{GroupID: g.ID, FromUserID: bobUser, FromUserName: names[bobUser],
		ToUserID: demoUser, ToUserName: names[demoUser], Amount: amount, Status: store.SettlementPending}, "")
	return err
}

// printWelcome tells whoever ran `make run` where the server is and how to
// use it as the demo user: a Playground link that opens with the token in
// its Headers tab, and the token itself for other clients.
func printWelcome(w io.Writer, cfg config.Config, token string) {
	base := "http://localhost:" + cfg.Server.Port
	fmt.Fprintf(w, "\n  Fracti API on DynamoDB Local (table %s)\n\n", cfg.Store.Table)
	if cfg.Server.Playground {
		fmt.Fprintf(w, "  Open the Playground signed in as the demo user, and press its play button:\n\n    %s\n\n",
			playground.Link(base, map[string]string{"Authorization": "Bearer " + token}))
	}
	fmt.Fprintf(w, `  Endpoint     %s/graphql
  Receipts     %s
  Demo token   Authorization: Bearer %s

  From a shell:

    curl -s %s/graphql -H 'Authorization: Bearer %s' \
      -H 'Content-Type: application/json' -d '{"query":"{ me { id name } }"}'

`, base, storage(cfg.Objects), token, base, token)
}

// storage says where receipts and avatars go: the bucket, and the S3
// endpoint presigned URLs point at.
func storage(c config.ObjectStore) string {
	switch {
	case c.Bucket == "":
		return "off (S3_BUCKET is unset)"
	case c.Endpoint == "":
		return "bucket " + c.Bucket + " on AWS"
	}
	return "bucket " + c.Bucket + " on the S3 endpoint " + c.Endpoint
}
