package store_test

import (
	"errors"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/payments"
	"github.com/fracti/api/store"
)

var sepa = payments.Handles{IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", AccountHolder: "Anna Müller"}

func TestSetGroupPaymentHandles(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")

	for _, tc := range []struct {
		name  string
		set   *payments.Handles
		kinds [2]string // the event's before and after; "" when no event
	}{
		{"own set", &sepa, [2]string{"default", "IBAN"}},
		{"same again: no change", &sepa, [2]string{}},
		{"another", &payments.Handles{UPI: "anna@okaxis", Other: "cash"}, [2]string{"IBAN", "UPI, OTHER"}},
		{"empty own set: none in this group", &payments.Handles{}, [2]string{"UPI, OTHER", "none"}},
		{"back to the default", nil, [2]string{"none", "default"}},
		{"the default again: no change", nil, [2]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := events(t, f, g.ID)
			m, err := f.SetGroupPaymentHandles(ctx, g.ID, "1", tc.set)
			require.NoError(t, err)
			require.Equal(t, tc.set, m.PaymentHandles)
			got, err := f.getMember(g.ID, "1")
			require.NoError(t, err)
			require.Equal(t, tc.set, got.PaymentHandles)
			after := events(t, f, g.ID)
			if tc.kinds[0] == "" {
				require.Len(t, after, len(before))
				return
			}
			require.Len(t, after, len(before)+1)
			ev := after[0]
			require.Equal(t, store.EventPaymentHandlesChanged, ev.Type)
			require.Equal(t, "1", ev.ActorID)
			require.Equal(t, []store.Change{{Field: store.FieldPaymentHandles, Before: &tc.kinds[0], After: &tc.kinds[1]}}, ev.Changes)
		})
	}

	_, err := f.SetGroupPaymentHandles(ctx, g.ID, "3", &sepa)
	require.ErrorIs(t, err, store.ErrNotFound, "not a member")
	_, err = f.LeaveGroup(ctx, g.ID, "2", "")
	require.NoError(t, err)
	_, err = f.SetGroupPaymentHandles(ctx, g.ID, "2", &sepa)
	require.ErrorIs(t, err, store.ErrNotFound, "a former member")
}

func TestDefaultPaymentHandles(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	require.NoError(t, f.PutUserProfile(ctx, store.UserProfile{UserID: "1", Name: "Anna", Username: "anna"}))

	upi := payments.Handles{UPI: "bob@ybl"}
	require.NoError(t, f.SetDefaultPaymentHandles(ctx, "1", &sepa))
	require.NoError(t, f.SetDefaultPaymentHandles(ctx, "2", &upi)) // no profile yet: one is written
	require.NoError(t, f.SetDefaultPaymentHandles(ctx, "3", &payments.Handles{}))

	// A profile written again from Telegram keeps the handles.
	require.NoError(t, f.PutUserProfile(ctx, store.UserProfile{UserID: "1", Name: "Anna M."}))
	p, err := f.GetUserProfile(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, "Anna M.", p.Name)
	require.Empty(t, p.Username, "what Telegram no longer says is gone")
	p, err = f.GetUserProfile(ctx, "2")
	require.NoError(t, err, "a profile written by the handles alone is readable")
	require.Equal(t, "2", p.UserID)
	require.False(t, p.UpdatedAt.IsZero())

	ids := []string{"1", "2", "3", "4", "1"}
	for i := 5; len(ids) < 150; i++ {
		ids = append(ids, strconv.Itoa(1000+i))
	}
	calls.Reset()
	got, err := f.GetDefaultPaymentHandles(ctx, ids)
	require.NoError(t, err)
	require.Equal(t, 2, calls.ByOperation()["BatchGetItem"], "150 users (149 different) in two batches of at most 100")
	require.Equal(t, 2, calls.Total())
	require.Equal(t, &sepa, got[0])
	require.Equal(t, &upi, got[1])
	require.Nil(t, got[2], "cleared")
	require.Nil(t, got[3], "never set")
	require.Equal(t, &sepa, got[4])

	require.NoError(t, f.SetDefaultPaymentHandles(ctx, "1", nil))
	got, err = f.GetDefaultPaymentHandles(ctx, []string{"1"})
	require.NoError(t, err)
	require.Nil(t, got[0])
	p, err = f.GetUserProfile(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, "Anna M.", p.Name, "clearing the handles keeps the profile")
}

// events are the group's activity events, newest first.
func events(t *testing.T, f fixture, groupID string) []store.Event {
	t.Helper()
	page, err := f.ListEvents(ctx, groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	return page.Items
}

// An erasure takes the handles out of every membership, current and
// former, and the default with the profile: no value is left in the table.
func TestEraseUserPaymentHandles(t *testing.T) {
	var stop atomic.Bool // fails the first transaction: the erasure stops before the groups
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && stop.CompareAndSwap(true, false) {
			return errors.New("injected: connection lost")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	current := f.group("1", "2")
	former := f.group("1", "2")
	untouched := f.group("1", "2")
	own := payments.Handles{IBAN: "GB29NWBK60161331926819", AccountHolder: "Bob Erased", Pix: "thalesog@me.com", PixType: payments.PixEmail, Other: "ask for my sort code"}
	for _, g := range []store.Group{current, former} {
		_, err := f.SetGroupPaymentHandles(ctx, g.ID, "2", &own)
		require.NoError(t, err)
	}
	_, err := f.LeaveGroup(ctx, former.ID, "2", "")
	require.NoError(t, err)
	require.NoError(t, f.SetDefaultPaymentHandles(ctx, "2", &payments.Handles{UPI: "bob.erased@okaxis", Revolut: "boberased"}))
	theirs := &payments.Handles{PayPal: "StaysHere"}
	_, err = f.SetGroupPaymentHandles(ctx, untouched.ID, "1", theirs) // someone else's stay
	require.NoError(t, err)
	values := []string{"GB29NWBK60161331926819", "Bob Erased", "thalesog@me.com", "ask for my sort code", "bob.erased@okaxis", "boberased"}
	require.NotEmpty(t, personal(t, f, values...))

	stop.Store(true)
	res, err := f.EraseUser(ctx, "2")
	require.Error(t, err)
	require.Len(t, res.Pending, 3, "no group gone through yet")
	require.Empty(t, personal(t, f, values...), "erasePaymentHandles took them out of every membership first")
	m, err := f.getMember(current.ID, "2")
	require.NoError(t, err)
	require.Equal(t, "User 2", m.Name, "the membership itself is not erased yet")

	res, err = f.EraseUser(ctx, "2") // resumed
	require.NoError(t, err)
	require.Empty(t, res.Pending)
	require.Empty(t, personal(t, f, values...))
	for _, g := range []store.Group{current, former, untouched} {
		m, err := f.getMember(g.ID, "2")
		require.NoError(t, err)
		require.Nil(t, m.PaymentHandles)
	}
	got, err := f.GetDefaultPaymentHandles(ctx, []string{"2", "1"})
	require.NoError(t, err)
	require.Nil(t, got[0])
	m, err = f.getMember(untouched.ID, "1")
	require.NoError(t, err)
	require.Equal(t, theirs, m.PaymentHandles)

	// Set again after a first pass through the memberships (an erasure
	// resumed): the membership's erasure removes them too.
	g := f.group("1", "3")
	_, err = f.SetGroupPaymentHandles(ctx, g.ID, "3", &own)
	require.NoError(t, err)
	_, err = f.EraseUser(ctx, "3")
	require.NoError(t, err)
	require.Empty(t, personal(t, f, values[:4]...))
}
