package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

// roundTripShape is what must survive an export and an import, by member
// name: balances, debts and every expense with its payers and shares.
type roundTripShape struct {
	Balances []string
	Debts    []string
	Expenses []string
}

// shapeOf reads a group's balances, debts and expenses, keyed by names.
// The debts are the settle-up plan (debts' default). Pairwise debts
// (simplify: false) are not compared: a shared expense with several payers
// is split into pairs with ties broken by member id, and the members of an
// imported group have new ids.
func shapeOf(t *testing.T, u *apitest.User, groupID string) roundTripShape {
	t.Helper()
	var out struct {
		Group struct {
			Balances []struct {
				Member   struct{ Name string }
				Currency string
				Net      string
			}
			Debts []struct {
				From, To         struct{ Name string }
				Amount, Currency string
			}
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { balances { member { name } currency net }
		debts { from { name } to { name } amount currency } } }`, "g", groupID)
	var s roundTripShape
	for _, b := range out.Group.Balances {
		if d, _ := money.ParseDecimal(b.Net); d.Sign() != 0 {
			s.Balances = append(s.Balances, b.Member.Name+" "+b.Currency+" "+b.Net)
		}
	}
	for _, d := range out.Group.Debts {
		s.Debts = append(s.Debts, d.From.Name+" → "+d.To.Name+" "+d.Currency+" "+d.Amount)
	}
	after := ""
	for {
		var page struct {
			Group struct {
				Expenses struct {
					Nodes []struct {
						Description, Amount, Currency, SplitType, SpentAt string
						Payers                                            []struct {
							Member struct{ Name string }
							Amount string
						}
						Splits []struct {
							Member struct{ Name string }
							Amount string
						}
					}
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
				}
			}
		}
		u.Must(&page, `query($g: ID!, $after: String) { group(id: $g) { expenses(first: 100, after: $after) {
			nodes { description amount currency splitType spentAt payers { member { name } amount } splits { member { name } amount } }
			pageInfo { hasNextPage endCursor } } } }`, "g", groupID, "after", after)
		for _, e := range page.Group.Expenses.Nodes {
			line := fmt.Sprintf("%s %s %s %s %s paid:", e.Description, e.Amount, e.Currency, e.SplitType, e.SpentAt)
			for _, p := range e.Payers {
				line += " " + p.Member.Name + "=" + p.Amount
			}
			line += " shares:"
			for _, sp := range e.Splits {
				line += " " + sp.Member.Name + "=" + sp.Amount
			}
			s.Expenses = append(s.Expenses, line)
		}
		if !page.Group.Expenses.PageInfo.HasNextPage {
			break
		}
		after = page.Group.Expenses.PageInfo.EndCursor
	}
	slices.Sort(s.Balances)
	slices.Sort(s.Debts)
	slices.Sort(s.Expenses)
	return s
}

// A group of 300 expenses in three currencies, with several payers, every
// split type, a placeholder, settlements and comments, exported to JSON and
// imported into a new group, has the same balances, debts and expenses; its
// CSV export reads with a CSV library, and each currency's member columns
// add up to zero.
func TestExportThenImportGivesTheSameGroup(t *testing.T) {
	api := apitest.New(t)
	ann, ben, cal := api.User("301", "Ann"), api.User("302", "Ben"), api.User("303", "Cal")
	g := ann.CreateGroup("Round trip")
	ben.Join(g)
	cal.Join(g)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	ann.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Dora") { userId } }`, "g", g)
	people := []string{"301", "302", "303", ph.AddPlaceholderMember.UserID}
	users := map[string]*apitest.User{"301": ann, "302": ben, "303": cal}

	rng := rand.New(rand.NewPCG(26, 300))
	currencies := []struct{ code, unit string }{{"USD", ".00"}, {"EUR", ".00"}, {"JPY", ""}}
	const expenses = 300
	var commented []string
	for i := range expenses {
		cur := currencies[i%3]
		whole := 10 + rng.IntN(490)
		amount := fmt.Sprint(whole) + cur.unit
		in := map[string]any{"groupId": g, "currency": cur.code, "description": fmt.Sprintf("Expense %03d", i),
			"amount": amount, "spentAt": fmt.Sprintf("2025-%02d-%02dT12:00:00Z", 1+i%12, 1+i%28)}
		involved := people[:2+rng.IntN(3)]
		author := users[people[rng.IntN(3)]]
		switch i % 4 {
		case 0:
			in["splitType"] = "EQUAL"
			in["splits"] = splitsOf(involved, "", func(int) string { return "" })
		case 1:
			in["splitType"] = "SHARES"
			in["splits"] = splitsOf(involved, "shares", func(int) string { return fmt.Sprint(1 + rng.IntN(3)) })
		case 2:
			in["splitType"] = "PERCENTAGE"
			in["splits"] = splitsOf(involved, "percentage", func(k int) string {
				if k == 0 {
					return fmt.Sprint(100 - 10*(len(involved)-1))
				}
				return "10"
			})
		case 3:
			in["splitType"] = "EXACT"
			rest := whole
			in["splits"] = splitsOf(involved, "amount", func(k int) string {
				part := rest
				if k < len(involved)-1 {
					part = rest / 2
				}
				rest -= part
				return fmt.Sprint(part) + cur.unit
			})
		}
		if i%5 == 0 { // two payers
			first := whole / 3
			in["payers"] = []map[string]any{
				{"userId": involved[0], "amount": fmt.Sprint(first) + cur.unit},
				{"userId": involved[1], "amount": fmt.Sprint(whole-first) + cur.unit},
			}
		} else {
			in["payerId"] = author.ID
		}
		var out struct{ CreateExpense struct{ ID string } }
		author.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", in)
		if i%25 == 0 {
			commented = append(commented, out.CreateExpense.ID)
		}
	}
	for k, id := range commented {
		var c struct{ AddComment struct{ ID string } }
		ben.Must(&c, `mutation($e: ID!, $b: String!) { addComment(expenseId: $e, body: $b) { id } }`, "e", id, "b", fmt.Sprint("Comment ", k))
		if k%4 == 0 {
			ben.Must(nil, `mutation($id: ID!) { deleteComment(id: $id) }`, "id", c.AddComment.ID)
		}
	}
	ann.Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
		"in", map[string]any{"groupId": g, "fromUserId": "302", "amount": "25.00", "currency": "USD", "status": "COMPLETED"})
	cal.Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
		"in", map[string]any{"groupId": g, "toUserId": "301", "amount": "1000", "currency": "JPY", "status": "SENT"})
	before := shapeOf(t, ann, g)
	require.Len(t, before.Expenses, expenses)

	// The CSV: each currency's member columns add up to zero over the
	// expense and payment rows, and to the Total balance rows.
	resp := ann.Get("/export/groups/" + g + ".csv")
	require.Equal(t, http.StatusOK, resp.Code, resp.Body.String())
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(resp.Body.Bytes(), []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"Date", "Description", "Category", "Cost", "Currency"}, rows[0][:5])
	sums, totals := map[string][]money.Amount{}, map[string][]money.Amount{}
	for _, row := range rows[1:] {
		if len(row) < 5 || strings.TrimSpace(row[4]) == "" {
			continue // a block separator
		}
		c := money.MustCurrency(row[4])
		into := sums
		if row[1] == "Total balance" {
			into = totals
		}
		if into[row[4]] == nil {
			into[row[4]] = make([]money.Amount, len(row)-5)
			for k := range into[row[4]] {
				into[row[4]][k] = money.Zero(c)
			}
		}
		for k, cell := range row[5:] {
			a, err := money.ParseAmount(cell, c)
			require.NoError(t, err, "row %v", row)
			into[row[4]][k] = into[row[4]][k].Add(a)
		}
	}
	require.Len(t, sums, 3, "three currencies")
	for cur, cols := range sums {
		require.True(t, money.Sum(money.MustCurrency(cur), cols...).IsZero(), "%s columns add up to zero", cur)
		require.Equal(t, fmt.Sprint(totals[cur]), fmt.Sprint(cols), "%s: the Total balance row is the columns' sum", cur)
	}

	// The JSON, imported by a member into a new group.
	resp = ann.Get("/export/groups/" + g + ".json")
	require.Equal(t, http.StatusOK, resp.Code, resp.Body.String())
	var imported struct {
		ImportGroup struct {
			Group                           struct{ ID string }
			Expenses, Settlements, Comments int
			Problems                        []struct{ Message, Severity string }
		}
	}
	ann.Must(&imported, `mutation($file: Upload!) { importGroup(input: {format: FRACTI_JSON, file: $file, dryRun: false}) {
		group { id } expenses settlements comments problems { message severity } } }`,
		"file", apitest.File{Name: "round-trip.json", Data: resp.Body.Bytes()})
	report := imported.ImportGroup
	require.Empty(t, report.Problems)
	require.Equal(t, expenses, report.Expenses)
	require.Equal(t, 2, report.Settlements)
	require.Equal(t, len(commented), report.Comments)
	after := shapeOf(t, ann, report.Group.ID)
	require.Equal(t, before.Balances, after.Balances, "the same balances")
	require.Equal(t, before.Debts, after.Debts, "the same debts")
	require.Equal(t, before.Expenses, after.Expenses, "the same expenses")
}

// splitsOf is one split per user, with the field set to value(k) unless it is "".
func splitsOf(users []string, field string, value func(k int) string) []map[string]any {
	out := make([]map[string]any, len(users))
	for k, u := range users {
		out[k] = map[string]any{"userId": u}
		if field != "" {
			out[k][field] = value(k)
		}
	}
	return out
}
