package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/internal/testkit/apitest"
)

const handlesFields = `source ton bankAccount { iban bic accountHolder } upi pix { key type city } revolut paypal other`

const updateHandles = `mutation($g: ID, $h: PaymentHandlesInput) { updatePaymentHandles(groupId: $g, handles: $h) {
	` + handlesFields + ` member { id } } }`

type handlesResult struct {
	Source      string
	Ton         *string
	BankAccount *struct {
		Iban               string
		Bic, AccountHolder *string
	}
	Upi *string
	Pix *struct {
		Key, Type string
		City      *string
	}
	Revolut, Paypal, Other *string
	Member                 *struct{ ID string }
}

func memberHandles(t *testing.T, u *apitest.User, group, userID string) handlesResult {
	t.Helper()
	var out struct {
		Group struct {
			Members struct {
				Nodes []struct {
					UserID         string
					PaymentHandles handlesResult
				}
			}
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { members(first: 100) { nodes { userId paymentHandles { `+handlesFields+` } } } } }`, "g", group)
	for _, n := range out.Group.Members.Nodes {
		if n.UserID == userID {
			return n.PaymentHandles
		}
	}
	t.Fatalf("no member %s", userID)
	return handlesResult{}
}

func TestUpdatePaymentHandles(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	require.Equal(t, "NONE", memberHandles(t, bob, group, "111").Source)

	// A default, with spaces and small letters as people type them.
	var out struct{ UpdatePaymentHandles handlesResult }
	alice.Must(&out, updateHandles, "h", map[string]any{
		"iban": "de89 3704 0044 0532 0130 00", "bic": "cobadeffxxx", "accountHolder": "Alice Müller", "upi": "Alice@OKAXIS",
	})
	got := out.UpdatePaymentHandles
	require.Equal(t, "DEFAULT", got.Source)
	require.Nil(t, got.Member)
	require.Equal(t, "DE89370400440532013000", got.BankAccount.Iban)
	require.Equal(t, "COBADEFFXXX", *got.BankAccount.Bic)
	require.Equal(t, "alice@okaxis", *got.Upi)
	seen := memberHandles(t, bob, group, "111")
	require.Equal(t, "DEFAULT", seen.Source)
	require.Equal(t, "DE89370400440532013000", seen.BankAccount.Iban)
	require.Equal(t, "Alice Müller", *seen.BankAccount.AccountHolder)

	var me struct {
		Me struct{ DefaultPaymentHandles *handlesResult }
	}
	alice.Must(&me, `{ me { defaultPaymentHandles { `+handlesFields+` } } }`)
	require.Equal(t, "alice@okaxis", *me.Me.DefaultPaymentHandles.Upi)

	// The group's own set replaces the default whole; the TON wallet stays the group's.
	alice.Must(nil, `mutation($g: ID!) { updateWallet(groupId: $g, wallet: "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL") { id } }`, "g", group)
	alice.Must(&out, updateHandles, "g", group, "h", map[string]any{"pix": "529.982.247-25", "pixCity": "São Paulo", "other": "or cash"})
	got = out.UpdatePaymentHandles
	require.Equal(t, "GROUP", got.Source)
	require.Equal(t, group+":111", got.Member.ID)
	require.Nil(t, got.BankAccount)
	require.Equal(t, "52998224725", got.Pix.Key)
	require.Equal(t, "CPF", got.Pix.Type)
	require.Equal(t, "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL", *got.Ton)
	require.Equal(t, got, withMember(memberHandles(t, bob, group, "111"), got.Member))

	// An empty set: none of Alice's handles in this group (the wallet stays).
	alice.Must(&out, updateHandles, "g", group, "h", map[string]any{})
	require.Equal(t, "GROUP", out.UpdatePaymentHandles.Source)
	require.Nil(t, out.UpdatePaymentHandles.BankAccount)
	require.Nil(t, out.UpdatePaymentHandles.Pix)
	require.NotNil(t, out.UpdatePaymentHandles.Ton)

	// Null: the default shows there again.
	alice.Must(&out, updateHandles, "g", group, "h", nil)
	require.Equal(t, "DEFAULT", out.UpdatePaymentHandles.Source)
	require.Equal(t, "alice@okaxis", *memberHandles(t, bob, group, "111").Upi)

	// Clearing the default.
	alice.Must(&out, updateHandles, "h", nil)
	require.Equal(t, "NONE", out.UpdatePaymentHandles.Source)
	require.Equal(t, "NONE", memberHandles(t, bob, group, "111").Source)
	alice.Must(&me, `{ me { defaultPaymentHandles { source } } }`)
	require.Nil(t, me.Me.DefaultPaymentHandles)

	// The activity names the kinds, never the values.
	var act struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Actor   struct{ UserID string }
					Changes []struct {
						Field         string
						Before, After *string
					}
				}
			}
		}
	}
	bob.Must(&act, `query($g: ID!) { group(id: $g) { activity(first: 20) { nodes { type actor { userId } changes { field before after } } } } }`, "g", group)
	var kinds []string
	for _, ev := range act.Group.Activity.Nodes {
		if ev.Type == "PAYMENT_HANDLES_CHANGED" {
			require.Equal(t, "111", ev.Actor.UserID)
			require.Len(t, ev.Changes, 1)
			require.Equal(t, "paymentHandles", ev.Changes[0].Field)
			kinds = append(kinds, *ev.Changes[0].Before+" → "+*ev.Changes[0].After)
		}
	}
	require.Equal(t, []string{"none → default", "PIX, OTHER → none", "default → PIX, OTHER"}, kinds)
}

func withMember(h handlesResult, m *struct{ ID string }) handlesResult {
	h.Member = m
	return h
}

func TestUpdatePaymentHandlesRefusals(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	for _, tc := range []struct {
		name  string
		h     map[string]any
		field string
	}{
		{"IBAN length", map[string]any{"iban": "DE8937040044053201300"}, "handles.iban"},
		{"IBAN check digits", map[string]any{"iban": "DE89370400440532013001"}, "handles.iban"},
		{"BIC shape", map[string]any{"iban": "DE89370400440532013000", "bic": "DEUTDE"}, "handles.bic"},
		{"BIC without IBAN", map[string]any{"bic": "DEUTDEFF"}, "handles.bic"},
		{"UPI", map[string]any{"upi": "no-at-sign"}, "handles.upi"},
		{"CPF", map[string]any{"pix": "529.982.247-26"}, "handles.pix"},
		{"CNPJ", map[string]any{"pix": "11.222.333/0001-82"}, "handles.pix"},
		{"Pix phone", map[string]any{"pix": "+1 555 0100"}, "handles.pix"},
		{"Revtag", map[string]any{"revolut": "a"}, "handles.revolut"},
		{"PayPal.me", map[string]any{"paypal": "anna_m"}, "handles.paypal"},
		{"other too long", map[string]any{"other": strings.Repeat("x", 201)}, "handles.other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api.Calls.Reset()
			require.Equal(t, tc.field, alice.Fails("BAD_USER_INPUT", updateHandles, "h", tc.h).Field())
			require.Equal(t, tc.field, alice.Fails("BAD_USER_INPUT", updateHandles, "g", group, "h", tc.h).Field())
			require.Zero(t, writeCalls(api.Calls), "nothing written")
		})
	}
	outsider := api.User("999", "Mallory")
	require.Equal(t, "NOT_FOUND", outsider.Do(updateHandles, "g", group, "h", map[string]any{"upi": "m@ybl"}).Code())
}

// The members' defaults are read with one BatchGetItem, however many
// members show them.
func TestPaymentHandlesOfManyMembersInOneBatch(t *testing.T) {
	api := apitest.New(t, apitest.LoaderWait(50*time.Millisecond))
	owner := api.User("100", "Member 0")
	group := owner.CreateGroup("Big trip")
	for i := 1; i < 30; i++ {
		u := api.User(fmt.Sprint(100+i), fmt.Sprint("Member ", i))
		u.Join(group)
		u.Must(nil, updateHandles, "h", map[string]any{"upi": fmt.Sprintf("member%d@ybl", i)})
	}
	for range 2 {
		api.Calls.Reset()
		var out struct {
			Group struct {
				Members struct {
					Nodes []struct{ PaymentHandles handlesResult }
				}
			}
		}
		owner.Must(&out, `query($g: ID!) { group(id: $g) { members(first: 100) { nodes { paymentHandles { source upi } } } } }`, "g", group)
		require.Len(t, out.Group.Members.Nodes, 30)
		require.Equal(t, "NONE", out.Group.Members.Nodes[0].PaymentHandles.Source)
		for i, n := range out.Group.Members.Nodes[1:] {
			require.Equal(t, fmt.Sprintf("member%d@ybl", i+1), *n.PaymentHandles.Upi)
		}
		byOp := api.Calls.ByOperation()
		require.Equal(t, 2, byOp["BatchGetItem"], "the group with the viewer's membership, then every default at once: %v", byOp)
	}
}

const paymentOptions = `query($id: ID!) { settlement(id: $id) { status paymentOptions { kind url qrPayload text reference } } }`

type optionResult struct {
	Kind                 string
	URL, QRPayload, Text *string
	Reference            string
}

func settlementOptions(t *testing.T, u *apitest.User, id string) []optionResult {
	t.Helper()
	var out struct {
		Settlement struct{ PaymentOptions []optionResult }
	}
	u.Must(&out, paymentOptions, "id", id)
	return out.Settlement.PaymentOptions
}

func kindsOf(opts []optionResult) []string {
	var ks []string
	for _, o := range opts {
		ks = append(ks, o.Kind)
	}
	return ks
}

func TestSettlementPaymentOptions(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	alice.Must(nil, updateHandles, "h", map[string]any{
		"iban": "DE89370400440532013000", "bic": "COBADEFFXXX", "upi": "alice@okaxis", "pix": "alice@example.com.br",
		"revolut": "alicem", "paypal": "AliceM", "other": "cash at the office",
	})
	const wallet = "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL"
	alice.Must(nil, `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`, "g", group, "w", wallet)
	settle := func(amount, currency string) string {
		var out struct{ CreateSettlement struct{ ID string } }
		bob.Must(&out, createSettlement, "in", map[string]any{"groupId": group, "toUserId": "111", "amount": amount, "currency": currency})
		return out.CreateSettlement.ID
	}
	for _, tc := range []struct {
		amount, currency string
		kinds            []string
	}{
		{"12.34", "EUR", []string{"SEPA", "REVOLUT", "PAYPAL", "OTHER"}},
		{"1250.50", "INR", []string{"UPI", "OTHER"}},
		{"30.00", "BRL", []string{"PIX", "PAYPAL", "OTHER"}},
		{"0.5", "TON", []string{"TON", "OTHER"}},
		{"5.000", "KWD", []string{"OTHER"}},
	} {
		t.Run(tc.currency, func(t *testing.T) {
			id := settle(tc.amount, tc.currency)
			opts := settlementOptions(t, bob, id)
			require.Equal(t, tc.kinds, kindsOf(opts))
			require.Equal(t, opts, settlementOptions(t, alice, id), "every member sees the same")
			ref := "fracti-" + strings.ReplaceAll(id, "-", "")
			for _, o := range opts {
				require.Equal(t, ref, o.Reference)
				switch o.Kind {
				case "SEPA":
					require.Nil(t, o.URL)
					require.Equal(t, "BCD\n002\n1\nSCT\nCOBADEFFXXX\nAlice\nDE89370400440532013000\nEUR12.34\n\n\n"+ref, *o.QRPayload)
				case "UPI":
					require.Equal(t, "upi://pay?pa=alice@okaxis&pn=Alice&am=1250.50&cu=INR&tn="+ref, *o.URL)
				case "PIX":
					require.Nil(t, o.URL)
					require.Contains(t, *o.QRPayload, "0014br.gov.bcb.pix0120alice@example.com.br")
					require.Contains(t, *o.QRPayload, "540530.00")
				case "TON":
					var link struct{ Settlement struct{ PaymentLink string } }
					bob.Must(&link, `query($id: ID!) { settlement(id: $id) { paymentLink } }`, "id", id)
					require.Equal(t, link.Settlement.PaymentLink, *o.URL, "the TON payments' own link")
				case "OTHER":
					require.Equal(t, "cash at the office", *o.Text)
					require.Nil(t, o.URL)
					require.Nil(t, o.QRPayload)
				}
			}
		})
	}

	// A settlement Alice pays: Bob's handles, none.
	var out struct{ CreateSettlement struct{ ID string } }
	alice.Must(&out, createSettlement, "in", map[string]any{"groupId": group, "toUserId": "222", "amount": "1.00", "currency": "EUR"})
	require.Empty(t, settlementOptions(t, bob, out.CreateSettlement.ID))

	// Completed: nothing left to pay.
	id := settle("2.00", "EUR")
	require.NotEmpty(t, settlementOptions(t, bob, id))
	alice.Must(nil, updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Empty(t, settlementOptions(t, bob, id))

	// An outsider sees no settlement at all, so no options.
	outsider := api.User("999", "Mallory")
	var none struct{ Settlement *struct{ ID string } }
	outsider.Must(&none, paymentOptions, "id", id)
	require.Nil(t, none.Settlement)
}
