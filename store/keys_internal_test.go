package store

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

// The records embed itemKey; attributevalue flattens an embedded struct, so
// every item keeps its key attributes at the top level, the GSI keys only
// where the item has them, and reads them back.
func TestRecordsStoreTheirKeysFlat(t *testing.T) {
	usd := money.MustCurrency("USD")
	at := time.Date(2024, 1, 20, 18, 30, 0, 0, time.UTC)
	amt := func(s string) money.Amount {
		a, err := money.ParseAmount(s, usd)
		require.NoError(t, err)
		return a
	}
	member, err := newMemberRecord("g1", NewMember{UserID: "7", Name: "Ann"}, at)
	require.NoError(t, err)
	former := member
	former.GSI1PK, former.GSI1SK, former.LeftAt = "", "", formatTime(at)
	e := Expense{
		ID: "e1", GroupID: "g1", PayerID: "1", PayerName: "A", Amount: amt("9.00"), Description: "x",
		SplitType: SplitExact, CreatedAt: at,
		Payers: []Payment{{UserID: "1", Amount: amt("6.00")}, {UserID: "2", Amount: amt("3.00")}},
		Splits: []Split{{UserID: "2", Amount: amt("3.00")}, {UserID: "3", Amount: amt("6.00")}},
	}
	parts := e.participantRecords("Trip") // 2 paid exactly their share; 3 owes
	deletedExpense := e
	deletedExpense.DeletedAt = &at
	revision := createdRevision(&e)
	event := expenseEvent(EventExpenseCreated, &e, "1", at, revision.Changes)
	event.seal(chainHead{})
	var token tokenRecord
	token.PK, token.SK, token.GSI1PK, token.GSI1SK = tokenPK("h"), skToken, userKey("1"), tokenGSI1SK(formatTime(at), "h")
	token.UserID, token.Name, token.CreatedAt = "1", "A", formatTime(at)
	var idem idempotencyRecord
	idem.PK, idem.SK, idem.Kind = userKey("1"), idempotencySK("k"), "expense"
	var profile userProfileRecord
	profile.PK, profile.SK, profile.ID = userKey("1"), skProfile, "1"
	var ledger ledgerRecord
	ledger.PK, ledger.SK, ledger.MemberIDs = groupPK("g1"), skLedger, []string{"1"}

	keys := func(extra ...string) []string { return append([]string{attrPK, attrSK}, extra...) }
	gsi1 := []string{attrGSI1PK, attrGSI1SK}
	gsi2 := []string{attrGSI2PK, attrGSI2SK}
	gsi3 := []string{attrGSI3PK, attrGSI3SK}
	for _, tc := range []struct {
		name string
		rec  any
		want []string // the key attributes the item has
		back any      // a pointer to decode into
	}{
		{"group", Group{ID: "g1", Currency: usd, CreatedAt: at}.record(), keys(), &groupRecord{}},
		{"ledger", ledger, keys(), &ledgerRecord{}},
		{"member", member, keys(gsi1...), &memberRecord{}},
		{"former member", former, keys(), &memberRecord{}},
		{"expense", e.record(), keys(append(gsi2, gsi3...)...), &expenseRecord{}},
		{"other payer's participant", parts[0], keys(gsi3...), &participantRecord{}},
		{"beneficiary participant", parts[1], keys(gsi1...), &participantRecord{}},
		{"settlement", (&Settlement{ID: "s1", GroupID: "g1", FromUserID: "1", ToUserID: "2", Amount: amt("1.00"), CreatedAt: at}).record(),
			keys(append(gsi2, gsi3...)...), &settlementRecord{}},
		{"deleted expense", deletedExpense.record(), keys(gsi2...), &expenseRecord{}},
		{"revision", revision.record(), keys(), &revisionRecord{}},
		{"event", event.record(), keys(), &eventRecord{}},
		{"token", token, keys(gsi1...), &tokenRecord{}},
		{"idempotency", idem, keys(), &idempotencyRecord{}},
		{"profile", profile, keys(), &userProfileRecord{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			item, err := attributevalue.MarshalMap(tc.rec)
			require.NoError(t, err)
			var got []string
			for name := range maps.Keys(item) {
				if slices.Contains(keyAttrs, name) {
					got = append(got, name)
				}
			}
			require.ElementsMatch(t, tc.want, got)
			require.NoError(t, attributevalue.UnmarshalMap(item, tc.back))
			require.Equal(t, tc.rec, reflect.ValueOf(tc.back).Elem().Interface())
		})
	}
}

var keyAttrs = []string{attrPK, attrSK, attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrGSI3PK, attrGSI3SK}
