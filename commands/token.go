package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/freetext"
	"github.com/fracti/api/store"
	"github.com/fracti/api/wiring"
)

var tokenCommand = command{
	name:    "token",
	sub:     []string{"create"},
	args:    "--user <telegramId> --name <display name> [--username <name>] [--label <what it is for>] [--scopes READ,WRITE] [--expires-in <duration>]",
	summary: "Create a personal access token for a user and print it on stdout. Only its SHA-256 hash is stored, so this is the one time it can be seen.",
	run:     runTokenCreate,
}

// runTokenCreate runs `token create`.
func runTokenCreate(ctx context.Context, c command, e env, args []string) error {
	_, args, err := c.subcommand(args)
	if err != nil {
		return err
	}
	fs := c.flags(e.errOut)
	userID := fs.String("user", "", "Telegram user id of the token's owner (required)")
	name := fs.String("name", "", "the user's display name (required)")
	username := fs.String("username", "", "the user's Telegram @username, without @")
	label := fs.String("label", "", "what the token is for, e.g. \"CI bot\"")
	scopeList := fs.String("scopes", "READ,WRITE", "what the token may do: READ (queries), WRITE (mutations), or both")
	expiresIn := fs.Duration("expires-in", 0, "how long the token works, e.g. 2160h; 0 means it never expires")
	if err := fs.Parse(args); err != nil {
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
	s, err := wiring.OpenStore(ctx, e.cfg.Store, quiet())
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
	fmt.Fprintf(e.errOut, "Created an access token for user %s. It is shown only now; send it as:\n  Authorization: Bearer <token>\n", *userID)
	fmt.Fprintln(e.out, token)
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
