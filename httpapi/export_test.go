package httpapi_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/exchange/fractijson"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// exportFixture is a group with everything an export carries: members
// with the same name, one with a name that looks like a formula, a
// placeholder and a member who left; expenses in USD, EUR and JPY with
// several payers and every split type, one converted from USD; completed
// and pending settlements; descriptions that look like formulas.
type exportFixture struct {
	api              *apitest.API
	alex, alex2, dan *apitest.User
	groupID          string
	placeholder      string
}

func newExportFixture(t *testing.T) exportFixture {
	t.Helper()
	api := apitest.New(t)
	alex, alex2, carol, dan := api.User("101", "Alex"), api.User("102", "Alex"), api.User("103", "Carol"), api.User("104", "=cmd|calc")
	g := alex.CreateGroup("Trip: Rome / 2026")
	alex2.Join(g)
	carol.Join(g)
	dan.Join(g)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	alex.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Grandma") { userId } }`, "g", g)
	p := ph.AddPlaceholderMember.UserID

	expense := func(u *apitest.User, in map[string]any) string {
		t.Helper()
		in["groupId"] = g
		var out struct{ CreateExpense struct{ ID string } }
		u.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", in)
		return out.CreateExpense.ID
	}
	comment := func(u *apitest.User, expenseID, body string) string {
		t.Helper()
		var out struct{ AddComment struct{ ID string } }
		u.Must(&out, `mutation($e: ID!, $b: String!) { addComment(expenseId: $e, body: $b) { id } }`, "e", expenseID, "b", body)
		return out.AddComment.ID
	}
	split := func(kv ...string) []map[string]any {
		var out []map[string]any
		for i := 0; i < len(kv); i += 3 {
			s := map[string]any{"userId": kv[i]}
			if kv[i+1] != "" {
				s[kv[i+1]] = kv[i+2]
			}
			out = append(out, s)
		}
		return out
	}
	settle := func(u *apitest.User, in map[string]any) {
		t.Helper()
		in["groupId"] = g
		u.Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`, "in", in)
	}

	// Carol takes part, settles up and leaves.
	expense(alex, map[string]any{"amount": "30.00", "description": "Taxi", "splitType": "EQUAL", "splits": split("101", "", "", "103", "", "")})
	settle(alex, map[string]any{"fromUserId": "103", "amount": "15.00", "status": "COMPLETED"})
	carol.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g)

	hotel := expense(alex, map[string]any{"amount": "100.00", "description": "Hotel", "category": "lodging", "splitType": "EQUAL",
		"payers": []map[string]any{{"userId": "101", "amount": "60.00"}, {"userId": "102", "amount": "40.00"}},
		"splits": split("101", "", "", "102", "", "", p, "", "")})
	expense(dan, map[string]any{"amount": "90.00", "currency": "EUR", "description": `Dinner, "Roma"`, "splitType": "EXACT",
		"splits": split("101", "amount", "50.00", "102", "amount", "25.00", "104", "amount", "15.00")})
	expense(alex2, map[string]any{"amount": "1000", "currency": "JPY", "description": "Sushi", "splitType": "PERCENTAGE",
		"splits": split("101", "percentage", "50", "102", "percentage", "25", p, "percentage", "25")})
	expense(alex, map[string]any{"amount": "10.00", "description": `=HYPERLINK("http://evil.example","x")`, "category": "+fun",
		"splitType": "SHARES", "splits": split("101", "shares", "1", "102", "shares", "2", "104", "shares", "2")})
	expense(alex2, map[string]any{"amount": "54.00", "currency": "USD", "convertTo": "EUR", "rate": "0.9", "description": "@SUM(A1)",
		"splitType": "EQUAL", "splits": split("101", "", "", "102", "", "")})
	expense(dan, map[string]any{"amount": "501", "currency": "JPY", "description": "-2 beers", "splitType": "EQUAL",
		"payers": []map[string]any{{"userId": "101", "amount": "1"}, {"userId": "104", "amount": "500"}},
		"splits": split("101", "", "", "104", "", "")})
	expense(alex, map[string]any{"amount": "7.00", "description": "+1 tip", "splitType": "EQUAL", "splits": split(p, "", "")})

	settle(alex, map[string]any{"fromUserId": "102", "amount": "10.00", "status": "COMPLETED"})
	settle(dan, map[string]any{"toUserId": "101", "amount": "5.00", "currency": "EUR"}) // pending: moves nothing
	settle(alex, map[string]any{"fromUserId": "104", "amount": "300", "currency": "JPY", "status": "COMPLETED"})

	// Comments: one that stands, a tombstone, and one on an expense since
	// deleted (which the file does not hold, so neither its comment).
	comment(alex, hotel, "=1+1 looks right")
	alex2.Must(nil, `mutation($id: ID!) { deleteComment(id: $id) }`, "id", comment(alex2, hotel, "Thanks"))
	scrapped := expense(alex, map[string]any{"amount": "3.00", "description": "Scrapped", "splitType": "EQUAL", "splits": split("101", "", "", "104", "", "")})
	comment(dan, scrapped, "on a deleted expense")
	alex.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", scrapped)
	return exportFixture{api: api, alex: alex, alex2: alex2, dan: dan, groupID: g, placeholder: p}
}

// apiBalances is the group's balances from the API: currency -> member -> net.
func (f exportFixture) apiBalances(t *testing.T) map[string]map[string]string {
	t.Helper()
	var out struct {
		Group struct {
			Balances []struct {
				Member   struct{ UserID string }
				Currency string
				Net      string
			}
		}
	}
	f.alex.Must(&out, `query($g: ID!) { group(id: $g) { balances { member { userId } currency net } } }`, "g", f.groupID)
	got := map[string]map[string]string{}
	for _, b := range out.Group.Balances {
		if got[b.Currency] == nil {
			got[b.Currency] = map[string]string{}
		}
		got[b.Currency][b.Member.UserID] = b.Net
	}
	return got
}

func TestExportJSON(t *testing.T) {
	f := newExportFixture(t)
	var urls struct {
		Group struct{ ExportUrls struct{ JSON, Csv string } }
	}
	f.alex.Must(&urls, `query($g: ID!) { group(id: $g) { exportUrls { json csv } } }`, "g", f.groupID)
	require.Equal(t, "/export/groups/"+f.groupID+".json", urls.Group.ExportUrls.JSON)
	require.Equal(t, "/export/groups/"+f.groupID+".csv", urls.Group.ExportUrls.Csv)

	res := f.alex.Get(urls.Group.ExportUrls.JSON)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.Equal(t, "application/json; charset=utf-8", res.Header().Get("Content-Type"))
	require.Equal(t, "no-store", res.Header().Get("Cache-Control"))
	day := time.Now().UTC().Format(store.DayLayout)
	require.Equal(t, `attachment; filename="Trip_ Rome _ 2026-`+day+`.json"; filename*=UTF-8''Trip_%20Rome%20_%202026-`+day+`.json`,
		res.Header().Get("Content-Disposition"))

	// The fields come in Document's order.
	dec := json.NewDecoder(bytes.NewReader(res.Body.Bytes()))
	var keys []string
	_, err := dec.Token()
	require.NoError(t, err)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	require.Equal(t, []string{"format", "formatVersion", "exportedAt", "group", "members", "expenses", "settlements", "comments", "balances"}, keys)

	var doc fractijson.Document
	d := json.NewDecoder(bytes.NewReader(res.Body.Bytes()))
	d.DisallowUnknownFields()
	require.NoError(t, d.Decode(&doc))
	require.Equal(t, fractijson.Format, doc.Format)
	require.Equal(t, fractijson.Version, doc.FormatVersion)
	require.Equal(t, f.groupID, doc.Group.ID)
	require.Equal(t, "Trip: Rome / 2026", doc.Group.Title)
	require.Equal(t, "USD", doc.Group.Currency)

	// What the store holds, read back item by item.
	ctx := context.Background()
	s := f.api.Store
	members, err := s.ListMemberships(ctx, f.groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	require.Len(t, doc.Members, len(members.Items))
	require.Len(t, doc.Members, 5)
	for i, m := range members.Items {
		got := doc.Members[i]
		require.Equal(t, m.UserID, got.ID)
		require.Equal(t, m.Name, got.Name)
		require.Equal(t, m.Placeholder, got.Placeholder)
		require.True(t, m.JoinedAt.Equal(got.JoinedAt))
		require.Equal(t, m.LeftAt != nil, got.LeftAt != nil, m.UserID)
	}
	require.True(t, slices.ContainsFunc(doc.Members, func(m fractijson.Member) bool { return m.Placeholder && m.ID == f.placeholder }))

	expenses, err := s.ListExpensesOldestFirst(ctx, f.groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	require.Len(t, doc.Expenses, 8)
	require.Len(t, doc.Expenses, len(expenses.Items))
	splitTypes := map[string]bool{}
	for i, e := range expenses.Items {
		got := doc.Expenses[i]
		require.Equal(t, e.ID, got.ID)
		require.Equal(t, e.Description, got.Description)
		require.Equal(t, e.Amount.String(), got.Amount)
		require.Equal(t, e.Currency().Code(), got.Currency)
		require.Equal(t, strings.ToUpper(string(e.SplitType)), got.SplitType)
		require.True(t, e.SpentAt.Equal(got.SpentAt))
		require.True(t, e.CreatedAt.Equal(got.CreatedAt))
		splitTypes[got.SplitType] = true
		require.Len(t, got.Payers, len(e.Payers))
		for j, p := range e.Payers {
			require.Equal(t, fractijson.Payer{MemberID: p.UserID, Amount: p.Amount.String()}, got.Payers[j])
		}
		require.Len(t, got.Splits, len(e.Splits))
		for j, sp := range e.Splits {
			require.Equal(t, sp.UserID, got.Splits[j].MemberID)
			require.Equal(t, sp.Amount.String(), got.Splits[j].Amount)
			if sp.Percentage != nil {
				require.Equal(t, sp.Percentage.String(), got.Splits[j].Percentage)
			}
			if sp.Shares != nil {
				require.Equal(t, sp.Shares.String(), got.Splits[j].Shares)
			}
		}
		require.Equal(t, e.Conversion != nil, got.Conversion != nil)
	}
	require.Len(t, splitTypes, 4, "every split type")
	converted := doc.Expenses[5]
	require.Equal(t, "48.60", converted.Amount)
	require.Equal(t, "EUR", converted.Currency)
	require.Equal(t, &fractijson.Conversion{OriginalAmount: "54.00", OriginalCurrency: "USD", Rate: "0.9", RateSource: "manual", RateDate: day}, converted.Conversion)
	require.Equal(t, "1000", doc.Expenses[3].Amount, "JPY has no decimals")

	settlements, err := s.ListSettlementsOldestFirst(ctx, f.groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	require.Len(t, doc.Settlements, 4)
	for i, st := range settlements.Items {
		got := doc.Settlements[i]
		require.Equal(t, st.ID, got.ID)
		require.Equal(t, st.FromUserID, got.From)
		require.Equal(t, st.ToUserID, got.To)
		require.Equal(t, st.Amount.String(), got.Amount)
		require.Equal(t, strings.ToUpper(string(st.Status)), got.Status)
	}
	require.Equal(t, "PENDING", doc.Settlements[2].Status)
	require.Equal(t, "5.00", doc.Settlements[2].Amount)
	comments, err := s.ListGroupComments(ctx, f.groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	require.Len(t, comments.Items, 3)
	require.Len(t, doc.Comments, 2, "the comment on a deleted expense stays out")
	var kept []store.Comment
	for _, c := range comments.Items {
		if slices.ContainsFunc(doc.Expenses, func(e fractijson.Expense) bool { return e.ID == c.ExpenseID }) {
			kept = append(kept, c)
		}
	}
	require.Len(t, kept, 2)
	for i, c := range kept {
		got := doc.Comments[i]
		require.Equal(t, c.ID, got.ID)
		require.Equal(t, c.ExpenseID, got.ExpenseID)
		require.Equal(t, c.AuthorID, got.AuthorID)
		require.True(t, c.CreatedAt.Equal(got.CreatedAt))
		require.Equal(t, c.DeletedAt != nil, got.DeletedAt != nil)
		if c.DeletedAt == nil {
			require.Equal(t, c.Body, got.Body)
		} else {
			require.Empty(t, got.Body, "a tombstone keeps no body")
		}
	}
	require.ElementsMatch(t, []string{"=1+1 looks right", ""}, []string{doc.Comments[0].Body, doc.Comments[1].Body},
		"JSON keeps text as it is: the formula rule is the CSV's")

	// Balances: every non-zero balance the API shows, and nothing else.
	want := map[string]map[string]string{}
	for cur, nets := range f.apiBalances(t) {
		for id, n := range nets {
			if strings.Trim(n, "0.-") != "" {
				if want[cur] == nil {
					want[cur] = map[string]string{}
				}
				want[cur][id] = n
			}
		}
	}
	got := map[string]map[string]string{}
	for _, b := range doc.Balances {
		if got[b.Currency] == nil {
			got[b.Currency] = map[string]string{}
		}
		got[b.Currency][b.MemberID] = b.Amount
	}
	require.Equal(t, want, got)
	require.Len(t, got, 3, "USD, EUR and JPY")
}

func TestExportCSV(t *testing.T) {
	f := newExportFixture(t)
	res := f.alex.Get("/export/groups/"+f.groupID+".csv", "Origin", "https://app.example")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.Equal(t, "text/csv; charset=utf-8; header=present", res.Header().Get("Content-Type"))
	require.Equal(t, "no-store", res.Header().Get("Cache-Control"))
	require.Equal(t, "https://app.example", res.Header().Get("Access-Control-Allow-Origin"), "CORS as /graphql")
	require.Contains(t, res.Header().Get("Content-Disposition"), ".csv\"; filename*=UTF-8''")

	body := res.Body.String()
	require.True(t, strings.HasPrefix(body, "\uFEFF"), "a byte order mark for Excel")
	body = strings.TrimPrefix(body, "\uFEFF")
	lines := strings.Split(body, "\n")
	require.Equal(t, "", lines[1], "a blank line after the header, as Splitwise writes")
	require.NotContains(t, body, "\r\n", "LF line ends, as Splitwise writes")

	r := csv.NewReader(strings.NewReader(body))
	rows, err := r.ReadAll()
	require.NoError(t, err)
	head := rows[0]
	require.Equal(t, []string{"Date", "Description", "Category", "Cost", "Currency"}, head[:5])
	require.ElementsMatch(t, []string{"Alex", "Alex (2)", "Carol", "'=cmd|calc", "Grandma"}, head[5:],
		"every member, the one who left and the placeholder included; duplicates distinct; formulas neutralised")
	col := func(name string) int { return slices.Index(head, name) }

	var history, totals [][]string
	for _, row := range rows[1:] {
		if row[1] == "Total balance" {
			totals = append(totals, row)
			continue
		}
		history = append(history, row)
	}
	require.Len(t, history, 8+3, "8 expenses and the 3 completed settlements (the pending one moves nothing)")
	require.Len(t, totals, 3)
	require.Equal(t, "", lines[len(lines)-2-len(totals)], "a blank line before the totals")

	// Formula injection: text cells neutralised, number cells untouched.
	descriptions := map[string]bool{}
	for _, row := range history {
		descriptions[row[1]] = true
	}
	for _, d := range []string{`'=HYPERLINK("http://evil.example","x")`, "'@SUM(A1)", "'-2 beers", "'+1 tip", `Dinner, "Roma"`, "Alex (2) paid Alex", "'=cmd|calc paid Alex"} {
		require.True(t, descriptions[d], "description %q in %v", d, descriptions)
	}
	for _, row := range history {
		if strings.HasPrefix(row[1], "'=HYPERLINK") {
			require.Equal(t, "'+fun", row[2])
			require.Equal(t, []string{"8.00", "-4.00", "-4.00"}, []string{row[col("Alex")], row[col("Alex (2)")], row[col("'=cmd|calc")]}, "numbers keep their sign and get no quote")
		}
		if row[1] == "@SUM(A1)" || row[1] == "'@SUM(A1)" {
			require.Equal(t, []string{"48.60", "EUR"}, row[3:5], "a converted expense in its recorded currency")
		}
	}

	// Each row moves nothing in total; each currency's columns sum to its
	// Total balance row, which is the group's balances.
	cur := func(c string) money.Currency { return money.MustCurrency(c) }
	sums := map[string][]money.Amount{}
	for _, row := range history {
		c := cur(row[4])
		if sums[row[4]] == nil {
			sums[row[4]] = slices.Repeat([]money.Amount{money.Zero(c)}, len(head)-5)
		}
		rowSum := money.Zero(c)
		for i, cell := range row[5:] {
			a, err := money.ParseAmount(cell, c)
			require.NoError(t, err, "cell %q of %v", cell, row)
			require.Equal(t, a.String(), cell, "exactly the currency's decimals")
			sums[row[4]][i] = sums[row[4]][i].Add(a)
			rowSum = rowSum.Add(a)
		}
		require.True(t, rowSum.IsZero(), "row %v", row)
		if row[2] != "Payment" {
			require.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, row[0])
		}
	}
	balances := f.apiBalances(t)
	ids := map[string]string{}
	members, err := f.api.Store.ListMemberships(context.Background(), f.groupID, store.PageArgs{First: 100})
	require.NoError(t, err)
	for _, m := range members.Items {
		ids[m.UserID] = m.UserID
	}
	for _, total := range totals {
		require.Equal(t, time.Now().UTC().Format(store.DayLayout), total[0])
		require.Equal(t, []string{" ", " "}, total[2:4], "Category and Cost as Splitwise leaves them")
		c := total[4]
		for i, cell := range total[5:] {
			require.Equal(t, sums[c][i].String(), cell, "%s column %s", c, head[5+i])
		}
		sum := money.Zero(cur(c))
		for _, cell := range total[5:] {
			a, err := money.ParseAmount(cell, cur(c))
			require.NoError(t, err)
			sum = sum.Add(a)
		}
		require.True(t, sum.IsZero())
	}
	// The Total balance rows are the API's balances.
	byName := map[string]string{"Alex": "101", "Alex (2)": "102", "Carol": "103", "'=cmd|calc": "104", "Grandma": f.placeholder}
	for _, total := range totals {
		for i, cell := range total[5:] {
			want := balances[total[4]][byName[head[5+i]]]
			if want == "" {
				want = money.Zero(cur(total[4])).String()
			}
			require.Equal(t, want, cell, "%s %s", total[4], head[5+i])
		}
	}
}

func TestExportRefusals(t *testing.T) {
	f := newExportFixture(t)
	eve := f.api.User("999", "Eve")
	path := "/export/groups/" + f.groupID + ".json"
	id := []string{"X-Request-Id", "same-request"}

	notMember := eve.Get(path, id...)
	unknown := eve.Get("/export/groups/00000000-0000-4000-8000-000000000000.json", id...)
	unknownToMember := f.alex.Get("/export/groups/00000000-0000-4000-8000-000000000000.csv", id...)
	for name, res := range map[string]*http.Response{"not a member": notMember.Result(), "unknown": unknown.Result(), "unknown to a member": unknownToMember.Result()} {
		require.Equal(t, http.StatusNotFound, res.StatusCode, name)
		require.Empty(t, res.Header.Get("Content-Disposition"), name)
	}
	require.Equal(t, notMember.Body.String(), unknown.Body.String(), "the same 404 for a group one is not in and no group")
	require.Equal(t, notMember.Body.String(), unknownToMember.Body.String())
	require.Contains(t, notMember.Body.String(), `"NOT_FOUND"`)
	for _, bad := range []string{".xml", "", ".json.csv", "x.json"} {
		require.Equal(t, http.StatusNotFound, f.alex.Get("/export/groups/"+f.groupID+bad).Code, bad)
	}

	// Carol left: she sees the export no more than anyone else.
	carol := f.api.User("103", "Carol")
	require.Equal(t, http.StatusNotFound, carol.Get(path).Code)

	// Without credentials, or with bad ones: 401, with the code /graphql gives.
	for name, header := range map[string]string{"none": "", "unknown token": "Bearer fracti_" + strings.Repeat("x", 43), "bad scheme": "Basic abc"} {
		res := f.api.WithHeader(header).Get(path)
		require.Equal(t, http.StatusUnauthorized, res.Code, name)
		require.Contains(t, res.Body.String(), `"UNAUTHENTICATED"`, name)
		require.Empty(t, res.Header().Get("Content-Disposition"), name)
	}
	require.Equal(t, "UNAUTHENTICATED", f.api.WithHeader("").Do(`{ me { id } }`).Code(), "as /graphql says")
}

// shape is a CSV's layout: each line's kind, runs of rows (and of totals) as one.
func shape(t *testing.T, text string) []string {
	t.Helper()
	total := regexp.MustCompile(`^\d{4}-\d{2}-\d{2},Total balance, , ,[A-Z]{3}(,-?\d+(\.\d+)?)+$`)
	row := regexp.MustCompile(`^\d{4}-\d{2}-\d{2},.*,[A-Z]{3}(,-?\d+(\.\d+)?)+$`)
	var kinds []string
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		kind := "?"
		switch {
		case i == 0 && strings.HasPrefix(line, "Date,Description,Category,Cost,Currency,"):
			kind = "header"
		case line == "":
			kind = "blank"
		case total.MatchString(line):
			kind = "totals"
		case row.MatchString(line):
			kind = "rows"
		}
		require.NotEqual(t, "?", kind, "line %d: %q", i+1, line)
		if len(kinds) == 0 || kinds[len(kinds)-1] != kind || kind == "blank" {
			kinds = append(kinds, kind)
		}
	}
	return kinds
}

// The CSV is laid out as a real Splitwise group export is (testdata/README.md).
func TestExportCSVLayoutMatchesSplitwise(t *testing.T) {
	sample, err := os.ReadFile("../exchange/export/testdata/splitwise-group.csv")
	require.NoError(t, err)
	want := shape(t, string(sample))
	require.Equal(t, []string{"header", "blank", "rows", "blank", "totals"}, want)

	f := newExportFixture(t)
	res := f.alex.Get("/export/groups/" + f.groupID + ".csv")
	require.Equal(t, http.StatusOK, res.Code)
	require.Equal(t, want, shape(t, strings.TrimPrefix(res.Body.String(), "\uFEFF")))
	require.Contains(t, res.Body.String(), "\n"+time.Now().UTC().Format(store.DayLayout)+",Alex (2) paid Alex,Payment,10.00,USD,-10.00,10.00,")
}

// Names are made distinct as the header writes them: "=A" neutralised is
// "'=A", the name of another member, so one of them is "'=A (2)"; a payment
// names them as their columns do.
func TestExportCSVNamesDistinctAfterNeutralising(t *testing.T) {
	api := apitest.New(t)
	a, b := api.User("111", "=A"), api.User("112", "'=A")
	g := a.CreateGroup("Trip")
	b.Join(g)
	b.Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
		"in", map[string]any{"groupId": g, "fromUserId": "111", "amount": "1.00", "status": "COMPLETED"})
	res := a.Get("/export/groups/" + g + ".csv")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.Body.String(), "\uFEFF"))).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"'=A", "'=A (2)"}, rows[0][5:])
	require.Equal(t, "'=A paid '=A (2)", rows[1][1])
}
