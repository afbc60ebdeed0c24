package graph

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The lifetimes createAccessToken accepts, in seconds.
const (
	defaultTokenLife = 90 * 24 * time.Hour
	minTokenLife     = time.Minute
	maxTokenLife     = 366 * 24 * time.Hour
	maxTokenName     = 64
)

// newAccessToken checks createAccessToken's input against the caller's own
// credentials (a token cannot grant more scopes than it has, nor outlive
// itself) and returns the token to store, its hash not yet set.
func newAccessToken(id auth.Identity, in model.CreateAccessTokenInput, now time.Time) (store.Token, error) {
	name, err := text("input.name", in.Name, 1, maxTokenName)
	if err != nil {
		return store.Token{}, err
	}
	if len(in.Scopes) == 0 {
		return store.Token{}, badInput("input.scopes", "must name at least one scope")
	}
	var scopes []string
	for _, sc := range auth.AllScopes { // canonical order, duplicates dropped
		if !slices.Contains(in.Scopes, sc) {
			continue
		}
		if !id.HasScope(sc) {
			return store.Token{}, badInput("input.scopes",
				"your credentials lack the %s scope, so a token you create cannot have it", sc)
		}
		scopes = append(scopes, string(sc))
	}
	life := defaultTokenLife
	if in.ExpiresIn != nil {
		life = time.Duration(*in.ExpiresIn) * time.Second
		if life < minTokenLife || life > maxTokenLife {
			return store.Token{}, badInput("input.expiresIn", "must be %d to %d seconds, got %d",
				int(minTokenLife.Seconds()), int(maxTokenLife.Seconds()), *in.ExpiresIn)
		}
	}
	expires := now.Add(life)
	if !id.ExpiresAt.IsZero() && expires.After(id.ExpiresAt) {
		return store.Token{}, badInput("input.expiresIn",
			"a token cannot outlive the access token that creates it, which expires at %s",
			id.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return store.Token{UserID: id.UserKey(), Name: id.Name, Username: id.Username, Label: name,
		Scopes: scopes, ExpiresAt: expires}, nil
}

// missingScope refuses a root field the caller's credentials have no scope for.
func missingScope(id auth.Identity, need auth.Scope) *gqlerror.Error {
	have := make([]string, len(id.Scopes))
	for i, sc := range id.Scopes {
		have[i] = string(sc)
	}
	e := forbidden("this access token has the " + strings.Join(have, " and ") + " scope only; mutations need " + string(need))
	e.Extensions["requiredScope"] = string(need)
	return e
}

// revokeError is what revoking a token the caller cannot revoke answers:
// NOT_FOUND alike for an unknown id and another user's.
func revokeError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFound("access token")
	}
	return err
}
