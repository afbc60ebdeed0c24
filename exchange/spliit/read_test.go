package spliit

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/exchange/exchangetest"
)

func testDoc(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spliitBalances is Spliit's own getBalances over getExpenseShares
// (src/lib/balances.ts, src/lib/shares.ts), ported: reimbursements count as
// expenses, shares are apportioned over the participants sorted by id,
// the leftover units by largest remainder with ties rotated by an FNV-1a
// hash of the expense id.
func spliitBalances(g *Group) map[string]int64 {
	out := map[string]int64{}
	for _, e := range g.Expenses {
		out[e.PaidByID] += e.Amount
		pf := slices.Clone(e.PaidFor)
		slices.SortFunc(pf, func(a, b PaidFor) int { return cmp.Compare(a.ParticipantID, b.ParticipantID) })
		shares := make([]int64, len(pf))
		var total int64
		for i, p := range pf {
			shares[i] = p.Shares
			if e.SplitMode == "EVENLY" {
				shares[i] = 1
			}
			total += shares[i]
		}
		h := uint32(0x811c9dc5)
		for i := 0; i < len(e.ID); i++ {
			h ^= uint32(e.ID[i])
			h *= 0x01000193
		}
		offset := 0
		if e.ID != "" {
			offset = int(h % uint32(len(pf)))
		}
		amounts := make([]int64, len(pf))
		rems := make([]int64, len(pf))
		var distributed int64
		for i, s := range shares {
			exact := e.Amount * s
			base := exact / total
			if exact%total != 0 && exact < 0 {
				base-- // Math.floor
			}
			amounts[i], rems[i] = base, exact-base*total
			distributed += base
		}
		order := make([]int, len(pf))
		for i := range order {
			order[i] = i
		}
		rot := func(i int) int { return (i - offset + len(pf)) % len(pf) }
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(rems[b], rems[a]); c != 0 {
				return c
			}
			return cmp.Compare(rot(a), rot(b))
		})
		for i := int64(0); i < e.Amount-distributed; i++ {
			amounts[order[i]]++
		}
		for i, p := range pf {
			out[p.ParticipantID] -= amounts[i]
		}
	}
	return out
}

func TestEverySplitModeAndAReimbursement(t *testing.T) {
	doc := testDoc(t, "group.json")
	p, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Alps 2026" || p.Currency != "EUR" || len(p.People) != 3 || p.People[0].Name != "Ana" || p.People[0].Key != "pAnaAAAAAAAAAAAAAAAAA" {
		t.Fatalf("group: %q %q %+v", p.Title, p.Currency, p.People)
	}
	if len(p.Expenses) != 7 || len(p.Settlements) != 1 {
		t.Fatalf("%d expenses, %d settlements", len(p.Expenses), len(p.Settlements))
	}
	amounts := func(parts []exchange.Part) string {
		var s []string
		for _, x := range parts {
			s = append(s, x.Name+" "+x.Amount.String())
		}
		return strings.Join(s, ", ")
	}
	for i, want := range []struct {
		split  exchange.SplitType
		payers string
		splits string
	}{
		{exchange.SplitEqual, "Ana 10.00", "Ana 3.34, Ben 3.33, Chloé 3.33"}, // EVENLY ignores the 300 shares
		{exchange.SplitShares, "Ben 90.00", "Ana 60.00, Ben 30.00"},
		{exchange.SplitPercentage, "Chloé 25.00", "Ana 8.33, Ben 8.33, Chloé 8.34"},
		{exchange.SplitExact, "Ana 45.50", "Ben 15.50, Chloé 30.00"},
		{exchange.SplitEqual, "Chloé 10.86", "Ana 5.43, Ben 5.43"},
		{exchange.SplitExact, "Ana 10.00, Ben 10.00, Chloé 10.00", "Ana 30.00"}, // the income
		{exchange.SplitEqual, "Ben 12.34", "Ben 6.17, Chloé 6.17"},
	} {
		e := p.Expenses[i]
		if e.SplitType != want.split || amounts(e.Payers) != want.payers || amounts(e.Splits) != want.splits {
			t.Errorf("expense %d (%s): %s paid by %s for %s; want %s by %s for %s", i, e.Description, e.SplitType, amounts(e.Payers), amounts(e.Splits), want.split, want.payers, want.splits)
		}
	}
	if e := p.Expenses[1]; e.Splits[0].Shares.String() != "2.00" || e.Key != "e2bbbbbbbbbbbbbbbbbbb" || e.Category != "Rent" || e.Line != 29 {
		t.Errorf("shares expense: %+v", e)
	}
	if e := p.Expenses[2]; e.Splits[2].Percentage.String() != "33.34" {
		t.Errorf("percentage: %s", e.Splits[2].Percentage)
	}
	if o := p.Expenses[4].Original; o == nil || o.Amount.String() != "10.00" || o.Amount.Currency().Code() != "USD" || o.Rate.String() != "1.086" {
		t.Errorf("an exact conversion is kept: %+v", o)
	}
	if p.Expenses[6].Original != nil {
		t.Error("a rate that does not give the amount is kept")
	}
	if s := p.Settlements[0]; s.From != "Ben" || s.To != "Ana" || s.Amount.String() != "20.00" || s.Key != "e5eeeeeeeeeeeeeeeeeee" || s.Status != "completed" {
		t.Errorf("reimbursement: %+v", s)
	}
	var warned []string
	for _, w := range p.Problems {
		warned = append(warned, w.Field)
	}
	if strings.Join(warned, " ") != "expenses[5].recurrenceRule expenses[6].amount" {
		t.Errorf("warnings: %+v", p.Problems)
	}

	// Spliit's balances, by its own rules, equal ours within the leftover
	// cents the two rules may give to different people: here the even split
	// of 10.00 and the 33.33% split of 25.00.
	var g Group
	if err := json.Unmarshal([]byte(doc), &g); err != nil {
		t.Fatal(err)
	}
	theirs := spliitBalances(&g)
	ours := map[string]int64{}
	for _, b := range p.NetBalances() {
		ours[b.Name] = b.Amount.Minor().Int64()
	}
	var sum int64
	for _, person := range p.People {
		diff := ours[person.Name] - theirs[person.Key]
		sum += diff
		if diff < -2 || diff > 2 {
			t.Errorf("%s: ours %d, Spliit's %d", person.Name, ours[person.Name], theirs[person.Key])
		}
	}
	if sum != 0 {
		t.Errorf("the differences add up to %d", sum)
	}
}

func TestOldExportWithASymbol(t *testing.T) {
	doc := testDoc(t, "old_symbol.json")
	_, err := Read(strings.NewReader(doc))
	var pr *exchange.Problem
	if !errors.As(err, &pr) || pr.Field != "currency" || !strings.Contains(pr.Message, "give the import a currency") {
		t.Fatalf("an ambiguous symbol without a fallback: %v", err)
	}
	p, err := ReadWith(strings.NewReader(doc), ReadOptions{Currency: "CAD"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Currency != "CAD" || len(p.Expenses) != 2 || p.Expenses[0].Amount.String() != "24.00" {
		t.Fatalf("%+v", p)
	}
	k1, k2 := p.Expenses[0].Key, p.Expenses[1].Key
	if k1 == k2 || !strings.HasPrefix(k1, "spliit-") {
		t.Errorf("keys of identical expenses without ids: %q %q", k1, k2)
	}
	again, _ := ReadWith(strings.NewReader(doc), ReadOptions{Currency: "CAD"})
	if again.Expenses[0].Key != k1 || again.Expenses[1].Key != k2 {
		t.Error("keys change between reads")
	}
	// A symbol that names one currency needs no fallback; a JPY group's
	// hundredths must be whole yen.
	yen := strings.Replace(strings.Replace(doc, `"currency":"$"`, `"currency":"JPY"`, 1), `"amount":2400`, `"amount":2450`, 1)
	if _, err := Read(strings.NewReader(yen)); err == nil || !strings.Contains(err.Error(), "not a whole amount of JPY") {
		t.Errorf("24.50 JPY: %v", err)
	}
	// Spliit keeps forints whole: 2400 is 2400 HUF, not 24.00.
	huf := strings.Replace(doc, `"currency":"$"`, `"currency":"Ft","currencyCode":"HUF"`, 1)
	if p, err := Read(strings.NewReader(huf)); err != nil || p.Expenses[0].Amount.String() != "2400.00" {
		t.Errorf("HUF: %v %+v", err, p)
	}
	// Three characters that are not a code leave the currency to the
	// fallback, as "$" does.
	kr := strings.Replace(doc, `"currency":"$"`, `"currency":"kr."`, 1)
	if p, err := ReadWith(strings.NewReader(kr), ReadOptions{Currency: "SEK"}); err != nil || p.Currency != "SEK" {
		t.Errorf("kr. with SEK given: %v", err)
	}
	euro := strings.Replace(doc, `"currency":"$"`, `"currency":"€"`, 1)
	if p, err := Read(strings.NewReader(euro)); err != nil || p.Currency != "EUR" {
		t.Errorf("€: %v", err)
	}
}

func TestBadExports(t *testing.T) {
	doc := testDoc(t, "group.json")
	for _, tc := range []struct {
		name, old, new string
		line           int
		field, text    string
	}{
		{"unknown payer", `"paidById": "pBenBBBBBBBBBBBBBBBBB",
      "paidFor": [
        { "participantId": "pAnaAAAAAAAAAAAAAAAAA", "shares": 200 }`, `"paidById": "nobody",
      "paidFor": [
        { "participantId": "pAnaAAAAAAAAAAAAAAAAA", "shares": 200 }`, 29, "expenses[1].paidById", "not one of the group's participants"},
		{"unknown participant", `{ "participantId": "pBenBBBBBBBBBBBBBBBBB", "shares": 1550 }`, `{ "participantId": "zz", "shares": 1550 }`, 82, "expenses[3].paidFor[0].participantId", "not one of"},
		{"bad split mode", `"splitMode": "BY_AMOUNT"`, `"splitMode": "BY_ITEMS"`, 70, "expenses[3].splitMode", "not a Spliit split mode"},
		{"unknown currency code", `"currencyCode": "EUR"`, `"currencyCode": "ZZZ"`, 1, "currencyCode", "not a currency code"},
		{"a date without its time", `"expenseDate": "2026-02-02T00:00:00.000Z"`, `"expenseDate": "2026-02-02"`, 32, "expenses[1].expenseDate", "is not a time"},
		{"an amount that is not an integer", `"amount": 4550`, `"amount": 45.5`, 76, "expenses.amount", "expected int64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(doc, tc.old, tc.new, 1)
			if in == doc {
				t.Fatal("the replacement did not apply")
			}
			_, err := Read(strings.NewReader(in))
			var p *exchange.Problem
			if !errors.As(err, &p) || p.Severity != exchange.Error {
				t.Fatalf("error %v is not an Error *exchange.Problem", err)
			}
			if p.Line != tc.line || p.Field != tc.field || !strings.Contains(p.Message, tc.text) {
				t.Errorf("got %+v, want line %d field %q with %q", p, tc.line, tc.field, tc.text)
			}
		})
	}
	if _, err := ReadWith(strings.NewReader(doc), ReadOptions{MaxRows: 3}); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Errorf("8 expenses over a bound of 3: %v", err)
	}
}

// TestSharesThatWouldWrapAround: BY_AMOUNT shares of 10^17 each, 185 of
// them, add up to 2^64 + 100 — which an int64 sum took for the expense's
// 100, splitting 1.00 into shares of 10^15 EUR.
func TestSharesThatWouldWrapAround(t *testing.T) {
	var people, paidFor []string
	for i := range 185 {
		id := "p" + strconv.Itoa(i)
		shares := "100000000000000000"
		if i == 184 {
			shares = "46744073709551716"
		}
		people = append(people, `{"id":"`+id+`","name":"`+id+`"}`)
		paidFor = append(paidFor, `{"participantId":"`+id+`","shares":`+shares+`}`)
	}
	doc := `{"name":"G","currency":"€","currencyCode":"EUR","participants":[` + strings.Join(people, ",") + `],"expenses":[
{"id":"x","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":100,"paidById":"p0","splitMode":"BY_AMOUNT","paidFor":[` + strings.Join(paidFor, ",") + `]}]}`
	p, err := Read(strings.NewReader(doc))
	exchangetest.CheckRead(t, p, err)
	if pr := exchange.AsProblem(err); pr == nil || pr.Field != "expenses[0].paidFor[1].shares" || pr.Line != 2 {
		t.Errorf("got %+v", pr)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(testDoc(f, "group.json"))
	f.Add(testDoc(f, "old_symbol.json"))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadWith(strings.NewReader(s), ReadOptions{Currency: "EUR"})
		exchangetest.CheckRead(t, p, err)
	})
}

// TestRulesWhereSpliitIsLoose: rows Spliit's schema would refuse today but
// older or hand-written exports hold are still read, with a warning, and
// keep their balances.
func TestRulesWhereSpliitIsLoose(t *testing.T) {
	doc := func(expense string) string {
		return `{"name":"G","currency":"€","currencyCode":"EUR","participants":[{"id":"a","name":"A"},{"id":"b","name":"B"},{"id":"c","name":"C"}],"expenses":[` + expense + `]}`
	}
	for _, tc := range []struct {
		name, expense string
		check         func(t *testing.T, p *exchange.Plan)
	}{
		{"percentages not adding up to 100", `{"id":"x","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":1000,"paidById":"a","paidFor":[{"participantId":"a","shares":2000},{"participantId":"b","shares":2000}],"splitMode":"BY_PERCENTAGE"}`,
			func(t *testing.T, p *exchange.Plan) {
				e := p.Expenses[0]
				if e.SplitType != exchange.SplitExact || e.Splits[0].Amount.String() != "5.00" || len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Message, "40.00, not 100") {
					t.Errorf("%+v %+v", e, p.Problems)
				}
			}},
		{"amounts not adding up to the expense", `{"id":"x","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":1000,"paidById":"a","paidFor":[{"participantId":"b","shares":100},{"participantId":"c","shares":300}],"splitMode":"BY_AMOUNT"}`,
			func(t *testing.T, p *exchange.Plan) {
				e := p.Expenses[0]
				if e.Splits[0].Amount.String() != "2.50" || e.Splits[1].Amount.String() != "7.50" || len(p.Problems) != 1 {
					t.Errorf("%+v %+v", e, p.Problems)
				}
			}},
		{"a reimbursement to two people", `{"id":"r","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":1000,"paidById":"a","paidFor":[{"participantId":"a","shares":1},{"participantId":"b","shares":1},{"participantId":"c","shares":1}],"splitMode":"EVENLY","isReimbursement":true}`,
			func(t *testing.T, p *exchange.Plan) {
				if len(p.Settlements) != 2 || p.Settlements[0].To != "B" || p.Settlements[0].Amount.String() != "3.33" || p.Settlements[1].Key != "r#2" || len(p.Expenses) != 0 {
					t.Errorf("%+v", p.Settlements)
				}
			}},
		{"a negative reimbursement runs the other way", `{"id":"r","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":-500,"paidById":"a","paidFor":[{"participantId":"b","shares":1}],"splitMode":"EVENLY","isReimbursement":true}`,
			func(t *testing.T, p *exchange.Plan) {
				if len(p.Settlements) != 1 || p.Settlements[0].From != "B" || p.Settlements[0].To != "A" || p.Settlements[0].Amount.String() != "5.00" {
					t.Errorf("%+v", p.Settlements)
				}
			}},
		{"a zero amount", `{"id":"z","expenseDate":"2026-01-01T00:00:00.000Z","title":"T","amount":0,"paidById":"a","paidFor":[{"participantId":"b","shares":1}],"splitMode":"EVENLY"}`,
			func(t *testing.T, p *exchange.Plan) {
				if len(p.Expenses) != 0 || len(p.Problems) != 1 || p.Problems[0].Field != "expenses[0].amount" {
					t.Errorf("%+v %+v", p.Expenses, p.Problems)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(doc(tc.expense)))
			exchangetest.CheckRead(t, p, err)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}
