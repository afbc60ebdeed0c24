package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// Hostile input through GraphQL: text that garbles other members' screens,
// numbers that lose or overflow digits, idempotency keys that could be
// confused, and currencies without end.

func TestFreeTextIsCleanedOrRefused(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	const create = `mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { title } }`
	for name, title := range map[string]string{
		"a right-to-left override":  "\u202Egnp.exe",
		"an isolate":                "Trip\u2066",
		"NUL":                       "Trip\x00",
		"a line break":              "Trip\nto Rome",
		"a tab":                     "Trip\t",
		"an escape":                 "\x1b[31mTrip",
		"nothing visible":           "\u200B\u3164\u2800",
		"only a combining mark":     "\u0301",
		"only spaces":               "   ",
		"longer than 128 once trim": strings.Repeat("é", 129),
	} {
		t.Run(name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", create, "t", title)
			require.Equal(t, "input.title", res.Field())
		})
	}
	for title, want := range map[string]string{
		"  Trip to Rome  ":       "Trip to Rome",
		"Cafe\u0301":             "Café", // NFC: one code point
		"\u200BRoommates\uFEFF":  "Roommates",
		"עברית \u200F(2024)":     "עברית \u200F(2024)", // an implicit mark stays: RTL text needs it
		"❤\uFE0F Friends":        "❤\uFE0F Friends",
		strings.Repeat("é", 128): strings.Repeat("é", 128),
	} {
		var out struct{ CreateGroup struct{ Title string } }
		alice.Must(&out, create, "t", title)
		require.Equal(t, want, out.CreateGroup.Title)
	}

	// Descriptions and categories follow the same rules.
	_, group, a, _, _ := trio(t)
	in := map[string]any{"groupId": group, "amount": "10.00", "description": "Dinner\u202E", "splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}}}
	require.Equal(t, "input.description", a.Fails("BAD_USER_INPUT", createExpense, "in", in).Field())
	in["description"], in["category"] = "Dinner", "\x00"
	require.Equal(t, "input.category", a.Fails("BAD_USER_INPUT", createExpense, "in", in).Field())
}

func TestTelegramNamesAreSanitizedNotRefused(t *testing.T) {
	api := apitest.New(t)
	mallory := api.TelegramUser(666, "\u202Egnp.exe", "\x00", "mallory")
	ghost := api.TelegramUser(777, "\u3164", "\u200B", "")
	group := mallory.CreateGroup("Trip")
	ghost.Join(group)
	var out struct {
		Group struct {
			Members struct {
				Nodes []struct{ UserID, Name string }
			}
		}
	}
	mallory.Must(&out, `query($g: ID!) { group(id: $g) { members { nodes { userId name } } } }`, "g", group)
	names := map[string]string{}
	for _, m := range out.Group.Members.Nodes {
		names[m.UserID] = m.Name
	}
	require.Equal(t, map[string]string{"666": "gnp.exe", "777": "User 777"}, names)
}

func TestDecimalsAreStringsBoundedInDigits(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	shares := func(w any) map[string]any {
		return map[string]any{"groupId": group, "amount": "10.00", "description": "x", "splitType": "SHARES",
			"splits": []any{map[string]any{"userId": "111", "shares": w}, map[string]any{"userId": "222", "shares": "1"}}}
	}
	for name, tc := range map[string]struct {
		in    map[string]any
		field string
	}{
		"38 digits of shares":         {shares("1.00000000000000000000000000000000000001"), "input.splits[0].shares"},
		"11 decimals of shares":       {shares("1.00000000001"), "input.splits[0].shares"},
		"a trillion shares":           {shares("1000000000000"), "input.splits[0].shares"},
		"a number of shares in JSON":  {shares(2), ""},
		"a float amount in JSON":      {map[string]any{"groupId": group, "amount": 10.5, "description": "x", "splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}}}, ""},
		"an 11-decimal percentage":    {map[string]any{"groupId": group, "amount": "10.00", "description": "x", "splitType": "PERCENTAGE", "splits": []any{map[string]any{"userId": "111", "percentage": "99.99999999999"}, map[string]any{"userId": "222", "percentage": "0.00000000001"}}}, "input.splits[0].percentage"},
		"an integer literal would be": {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.in == nil {
				res := alice.Fails("BAD_USER_INPUT", `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: 10, description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`, "g", group)
				require.Contains(t, res.Errors[0].Message, `strings such as "12.50"`)
				return
			}
			res := alice.Fails("BAD_USER_INPUT", createExpense, "in", tc.in)
			if tc.field != "" {
				require.Equal(t, tc.field, res.Field(), res.Errors[0].Message)
			}
		})
	}
	// Ten decimals and twelve digits are fine, and stored exactly.
	var out struct {
		CreateExpense struct{ Splits []struct{ Shares string } }
	}
	alice.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { splits { shares } } }`, "in", shares("999999999999.0000000001"))
	require.Equal(t, "999999999999.0000000001", out.CreateExpense.Splits[0].Shares)
}

func TestIdempotencyFingerprintsAreUnambiguous(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	in := map[string]any{"groupId": group, "amount": "12.00", "description": `Dinner\x00food`, "splitType": "EQUAL",
		"splits": []any{map[string]any{"userId": "111"}}, "idempotencyKey": "same-key"}
	alice.Must(nil, createExpense, "in", in)
	// Joined with the four characters `\x00`, these two would have been the same request.
	in["description"], in["category"] = "Dinner", `food\x00`
	alice.Fails("CONFLICT", createExpense, "in", in)
	// So would the same amounts split by percentages rather than shares.
	in["idempotencyKey"], in["category"] = "other-key", nil
	in["splitType"], in["splits"] = "SHARES", []any{map[string]any{"userId": "111", "shares": "1"}, map[string]any{"userId": "222", "shares": "1"}}
	alice.Must(nil, createExpense, "in", in)
	in["splitType"], in["splits"] = "PERCENTAGE", []any{map[string]any{"userId": "111", "percentage": "50"}, map[string]any{"userId": "222", "percentage": "50"}}
	alice.Fails("CONFLICT", createExpense, "in", in)
}

func TestAGroupHoldsBoundedCurrencies(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	codes := []string{"USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "SEK", "NOK", "TON"}
	amount := map[string]string{"JPY": "10"}
	expense := func(code string) map[string]any {
		a := amount[code]
		if a == "" {
			a = "1.00"
		}
		return map[string]any{"groupId": group, "amount": a, "currency": code, "description": "x", "splitType": "EQUAL",
			"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}}
	}
	for _, code := range codes {
		alice.Must(nil, createExpense, "in", expense(code))
	}
	// An eleventh currency is refused, by expense or by a completed settlement.
	res := alice.Fails("BAD_USER_INPUT", createExpense, "in", expense("DKK"))
	require.Equal(t, "input.currency", res.Field())
	require.Contains(t, res.Errors[0].Message, "10 currencies")
	res = alice.Fails("BAD_USER_INPUT", createSettlement, "in", map[string]any{"groupId": group, "fromUserId": "222", "amount": "1.00", "currency": "DKK", "status": "COMPLETED"})
	require.Equal(t, "input.currency", res.Field())
	// A pending one may be recorded, but cannot complete while the group is full.
	id := bob.Settle(group, "111", "1.00")
	var pending struct{ CreateSettlement struct{ ID string } }
	bob.Must(&pending, createSettlement, "in", map[string]any{"groupId": group, "toUserId": "111", "amount": "1.00", "currency": "DKK"})
	alice.Fails("CONFLICT", updateSettlement, "id", pending.CreateSettlement.ID, "in", map[string]any{"status": "COMPLETED"})
	// The ten it holds keep working.
	alice.Must(nil, updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	alice.Must(nil, createExpense, "in", expense("EUR"))

	var out balancesResult
	alice.Must(&out, balancesQuery, "g", group)
	seen := map[string]bool{}
	for _, b := range out.Group.Balances {
		seen[b.Currency] = true
	}
	require.Len(t, seen, len(codes), fmt.Sprint(seen))
}
