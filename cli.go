package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/freetext"
	"github.com/fracti/api/money"
	"github.com/fracti/api/playground"
	"github.com/fracti/api/store"
)

// tokenCommand: `token create --user <telegramId> --name <display name>`
// prints a new personal access token. Only its SHA-256 hash is stored, so
// this is the one time it can be seen.
func tokenCommand(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: token create --user <telegramId> --name <display name> [--username <name>] [--label <what it is for>] [--scopes READ,WRITE] [--expires-in <duration>]")
	}
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	userID := fs.String("user", "", "Telegram user id of the token's owner (required)")
	name := fs.String("name", "", "the user's display name (required)")
	username := fs.String("username", "", "the user's Telegram @username, without @")
	label := fs.String("label", "", "what the token is for, e.g. \"CI bot\"")
	scopeList := fs.String("scopes", "READ,WRITE", "what the token may do: READ (queries), WRITE (mutations), or both")
	expiresIn := fs.Duration("expires-in", 0, "how long the token works, e.g. 2160h; 0 means it never expires")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	scopes, err := parseScopes(*scopeList)
	if err != nil {
		return err
	}
	if *expiresIn < 0 {
		return errors.New("--expires-in must not be negative")
	}
	if id, err := strconv.ParseInt(*userID, 10, 64); err != nil || id <= 0 {
		return errors.New("--user must be a Telegram user id (a positive integer)")
	}
	clean, err := freetext.Clean(*name)
	switch {
	case err != nil:
		return fmt.Errorf("--name %w", err)
	case clean == "":
		return errors.New("--name is required")
	}
	*name = clean
	s, err := openStore(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	t := store.Token{UserID: *userID, Name: *name, Username: *username, Label: *label, Scopes: scopes}
	if *expiresIn > 0 {
		t.ExpiresAt = time.Now().Add(*expiresIn)
	}
	token, err := createToken(ctx, s, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "Created an access token for user %s. It is shown only now; send it as:\n  Authorization: Bearer <token>\n", *userID)
	fmt.Println(token)
	return nil
}

// parseScopes reads --scopes: READ, WRITE or both, comma-separated.
func parseScopes(list string) ([]string, error) {
	var scopes []string
	for _, sc := range strings.Split(list, ",") {
		sc = strings.ToUpper(strings.TrimSpace(sc))
		switch {
		case sc == "":
		case sc != string(auth.ScopeRead) && sc != string(auth.ScopeWrite):
			return nil, fmt.Errorf("--scopes: unknown scope %q (READ or WRITE)", sc)
		case !slices.Contains(scopes, sc):
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		return nil, errors.New("--scopes must name READ, WRITE or both")
	}
	return scopes, nil
}

func createToken(ctx context.Context, s *store.Store, t store.Token) (string, error) {
	token, err := auth.NewToken()
	if err != nil {
		return "", err
	}
	t.Hash = auth.HashToken(token)
	if _, err := s.CreateToken(ctx, t); err != nil {
		return "", err
	}
	return token, nil
}

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
func printWelcome(w io.Writer, cfg config, token string) {
	base := "http://localhost:" + cfg.Port
	fmt.Fprintf(w, "\n  Fracti API on DynamoDB Local (table %s)\n\n", cfg.Table)
	if cfg.Playground {
		fmt.Fprintf(w, "  Open the Playground signed in as the demo user, and press its play button:\n\n    %s\n\n",
			playground.Link(base, map[string]string{"Authorization": "Bearer " + token}))
	}
	fmt.Fprintf(w, `  Endpoint     %s/graphql
  Demo token   Authorization: Bearer %s

  From a shell:

    curl -s %s/graphql -H 'Authorization: Bearer %s' \
      -H 'Content-Type: application/json' -d '{"query":"{ me { id name } }"}'

`, base, token, base, token)
}
