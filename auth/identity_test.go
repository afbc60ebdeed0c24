package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIdentityUserKey(t *testing.T) {
	tests := []struct {
		name string
		id   int64
		want string
	}{
		{"small", 7, "7"},
		{"typical", 279058397, "279058397"},
		{"beyond 32 bits", 7342037359, "7342037359"},
		{"zero", 0, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Identity{UserID: tt.id}.UserKey())
		})
	}
}

func TestContextValues(t *testing.T) {
	alice := Identity{UserID: 42, Name: "Alice", Method: MethodTelegram}
	failure := errors.New("nope")

	tests := []struct {
		name        string
		ctx         context.Context
		wantID      Identity
		wantOK      bool
		wantFailure error
	}{
		{"empty", context.Background(), Identity{}, false, nil},
		{"identity", WithIdentity(context.Background(), alice), alice, true, nil},
		{"failure", WithFailure(context.Background(), failure), Identity{}, false, failure},
		{"unrelated value with a string key", context.WithValue(context.Background(), struct{ k string }{"identity"}, alice), Identity{}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := FromContext(tt.ctx)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantID, id)
			require.Equal(t, tt.wantFailure, FailureFrom(tt.ctx))
		})
	}
}

// Known never runs a deferred credential check; once the request has run
// it, Known answers with its outcome.
func TestKnownDoesNotRunTheDeferredCheck(t *testing.T) {
	checks := 0
	ctx := withPendingCheck(context.Background(), func() (Identity, error) {
		checks++
		return Identity{UserID: 42}, nil
	})
	_, ok := Known(ctx)
	require.False(t, ok)
	require.Zero(t, checks, "looking costs no lookup")

	id, ok := FromContext(ctx)
	require.True(t, ok)
	require.Equal(t, 1, checks)
	known, ok := Known(ctx)
	require.True(t, ok)
	require.Equal(t, id, known)

	failed := withPendingCheck(context.Background(), func() (Identity, error) { return Identity{}, errors.New("revoked") })
	require.Error(t, FailureFrom(failed))
	_, ok = Known(failed)
	require.False(t, ok, "a failed check knows no one")

	_, ok = Known(WithIdentity(context.Background(), Identity{UserID: 7}))
	require.True(t, ok)
}
