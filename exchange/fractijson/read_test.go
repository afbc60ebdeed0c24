package fractijson

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/exchange/exchangetest"
)

func testDoc(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/group.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadDocument(t *testing.T) {
	p, err := Read(strings.NewReader(testDoc(t)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Lisbon trip" || p.Currency != "EUR" {
		t.Errorf("group: %q %q", p.Title, p.Currency)
	}
	wantPeople := []exchange.Person{{Name: "Alex", Key: "111"}, {Name: "Alex (2)", Key: "222"}, {Name: "Sam", Key: "p-1", Placeholder: true}, {Name: "Jo", Key: "333", Left: true}}
	for i, w := range wantPeople {
		if p.People[i] != w {
			t.Errorf("person %d: %+v, want %+v", i, p.People[i], w)
		}
	}
	if len(p.Problems) != 1 || p.Problems[0].Field != "members[1].name" || p.Problems[0].Line != 8 || !strings.Contains(p.Problems[0].Message, `"Alex (2)"`) {
		t.Errorf("the renamed duplicate should be a warning: %+v", p.Problems)
	}
	if len(p.Expenses) != 4 || len(p.Settlements) != 3 || len(p.Comments) != 2 {
		t.Fatalf("%d expenses, %d settlements, %d comments", len(p.Expenses), len(p.Settlements), len(p.Comments))
	}
	e := p.Expenses[2]
	if e.Key != "e-3" || e.Line != 21 || e.SplitType != exchange.SplitShares || e.Splits[0].Shares.String() != "2" || e.Original == nil || e.Original.Amount.String() != "9.00" || e.Original.Rate.String() != "1.11111111111" {
		t.Errorf("expense e-3: %+v", e)
	}
	if e := p.Expenses[1]; e.SplitType != exchange.SplitPercentage || e.Splits[1].Name != "Jo" || e.Splits[1].Percentage.String() != "50" || len(e.Payers) != 2 {
		t.Errorf("expense e-2: %+v", e)
	}
	if s := p.Settlements[2]; s.Status != "completed" || s.TxHash == "" || s.Settles == nil || s.Settles.Amount.Currency().Code() != "USD" || s.Amount.String() != "0.500000000" {
		t.Errorf("settlement st-3: %+v", s)
	}
	if p.Settlements[1].Status != "pending" {
		t.Errorf("st-2 status %q", p.Settlements[1].Status)
	}
	if c := p.Comments[1]; !c.Deleted || c.Body != "" || c.Author != "Alex (2)" || c.ExpenseKey != "e-1" {
		t.Errorf("tombstone: %+v", c)
	}
	// The document's balances are what its plan does.
	want, got := p.Balances, p.NetBalances()
	if len(want) != len(got) {
		t.Fatalf("balances: document %v, plan %v", want, got)
	}
	for i := range want {
		if want[i].Name != got[i].Name || want[i].Amount.Cmp(got[i].Amount) != 0 || want[i].Amount.Currency() != got[i].Amount.Currency() {
			t.Errorf("balance %d: document %s %s, plan %s %s", i, want[i].Name, want[i].Amount, got[i].Name, got[i].Amount)
		}
	}
}

func TestBadDocuments(t *testing.T) {
	doc := testDoc(t)
	for _, tc := range []struct {
		name, old, new string
		line           int
		field, text    string
	}{
		{"not fracti", `"format": "fracti.group"`, `"format": "other"`, 1, "format", "not a Fracti group export"},
		{"future version", `"formatVersion": 1`, `"formatVersion": 3`, 1, "formatVersion", "newer Fracti"},
		{"no version", `"formatVersion": 1`, `"formatVersion": 0`, 1, "formatVersion", "no formatVersion"},
		{"a payer's amount with too many decimals", `"payers": [{"memberId": "111", "amount": "60.00"}`, `"payers": [{"memberId": "111", "amount": "60.001"}`, 19, "expenses[1].payers[0].amount", "not a valid amount"},
		{"payers not adding up", `{"memberId": "222", "amount": "40.00"}]`, `{"memberId": "222", "amount": "39.00"}]`, 19, "expenses[1].payers", "add up to 99.00"},
		{"splits not adding up", `"amount": "3.33", "shares": "1"`, `"amount": "3.32", "shares": "1"`, 24, "expenses[2].splits", "add up"},
		{"unknown member", `"splits": [{"memberId": "333", "amount": "15.00"}`, `"splits": [{"memberId": "999", "amount": "15.00"}`, 30, "expenses[3].splits[0].memberId", "not one of the document's members"},
		{"unknown currency", `"currency": "USD", "splitType"`, `"currency": "ZZZ", "splitType"`, 21, "expenses[2].currency", "not a currency"},
		{"unknown split type", `"splitType": "EXACT"`, `"splitType": "ITEMS"`, 27, "expenses[3].splitType", "not a split type"},
		{"bad status", `"status": "PENDING"`, `"status": "LOST"`, 35, "settlements[1].status", "not a settlement status"},
		{"comment on nothing", `"expenseId": "e-1", "authorId": "111"`, `"expenseId": "e-9", "authorId": "111"`, 41, "comments[0].expenseId", "not one of the document's expenses"},
		{"a type mismatch", `"amount": "20.00", "currency": "EUR", "splitType"`, `"amount": 20, "currency": "EUR", "splitType"`, 27, "expenses.amount", "expected string"},
		{"a time that is not RFC 3339", `"spentAt": "2026-10-04T12:00:00.000Z"`, `"spentAt": "4 Oct 2026"`, 18, "expenses[1].spentAt", `"4 Oct 2026" is not a time`},
		{"a syntax error", `"comments": [`, `"comments": [,`, 40, "", "not valid JSON"},
		{"truncated", `"balances": [`, `"balances": [ {"memberId": "1"`, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := func(in string) string { return in }
			if tc.name == "truncated" {
				cut = func(in string) string { return in[:strings.Index(in, `"balances": [`)+40] }
			}
			p := readChanged(t, doc, tc.old, tc.new, cut)
			if tc.name == "truncated" {
				return
			}
			if p.Line != tc.line || p.Field != tc.field || !strings.Contains(p.Message, tc.text) {
				t.Errorf("got %+v, want line %d field %q with %q", p, tc.line, tc.field, tc.text)
			}
		})
	}
}

// TestReadItemized: a version 2 document's itemized expense reads with its
// lines and adjustments; every inconsistency is refused at its path.
func TestReadItemized(t *testing.T) {
	b, err := os.ReadFile("testdata/itemized.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	p, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	e := p.Expenses[0]
	if len(e.Items) != 2 || e.Items[1].Description != "Wine" || e.Items[1].SplitType != exchange.SplitExact || e.Items[0].Shares[1].Name != "Jo" || e.Items[0].Shares[1].Amount.String() != "12.00" {
		t.Errorf("items: %+v", e.Items)
	}
	if len(e.Adjustments) != 2 || e.Adjustments[0].Kind != exchange.AdjustmentTax || e.Adjustments[0].Percentage.String() != "10" || e.Adjustments[0].Amount != nil ||
		e.Adjustments[1].Kind != exchange.AdjustmentDiscount || e.Adjustments[1].Amount.String() != "1.40" || e.Adjustments[1].Applied.String() != "-1.40" {
		t.Errorf("adjustments: %+v", e.Adjustments)
	}
	if want, got := p.Balances, p.NetBalances(); len(want) != 2 || want[0].Amount.Cmp(got[0].Amount) != 0 {
		t.Errorf("balances: document %v, plan %v", want, got)
	}
	for _, tc := range []struct{ name, old, new, field, text string }{
		{"a line's shares not adding up", `{"memberId": "222", "amount": "12.00"}]`, `{"memberId": "222", "amount": "11.00"}]`, "expenses[0].items[0].shares", "add up to 23.00"},
		{"a share of someone without a split", `"shares": [{"memberId": "222", "amount": "10.00"}]`, `"shares": [{"memberId": "333", "amount": "10.00"}]`, "expenses[0].items[1].shares[0].memberId", "not one of the document's members"},
		{"a wrong applied amount", `"appliedAmount": "3.40"`, `"appliedAmount": "3.41"`, "expenses[0].adjustments[0].appliedAmount", "comes to 3.40"},
		{"splits the lines do not give", `{"memberId": "111", "amount": "12.71"}, {"memberId": "222", "amount": "23.29"}`, `{"memberId": "111", "amount": "12.70"}, {"memberId": "222", "amount": "23.30"}`, "expenses[0].splits[0].amount", "come to 12.71"},
		{"lines and amount apart", `"amount": "1.40", "appliedAmount": "-1.40"`, `"amount": "1.30", "appliedAmount": "-1.30"`, "expenses[0].items", "come to 36.10 but the amount is 36.00"},
		{"an unknown kind", `"kind": "TAX"`, `"kind": "VAT"`, "expenses[0].adjustments[0].kind", "not an adjustment kind"},
		{"amount and percentage", `"kind": "TAX", "percentage": "10"`, `"kind": "TAX", "amount": "3.40", "percentage": "10"`, "expenses[0].adjustments[0]", "either an amount or a percentage"},
		{"not EXACT", `"amount": "36.00", "currency": "EUR", "splitType": "EXACT"`, `"amount": "36.00", "currency": "EUR", "splitType": "EQUAL"`, "expenses[0].splitType", "an itemized expense is EXACT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := readChanged(t, doc, tc.old, tc.new, func(in string) string { return in })
			if p.Field != tc.field || !strings.Contains(p.Message, tc.text) {
				t.Errorf("got %+v, want field %q with %q", p, tc.field, tc.text)
			}
		})
	}
}

// readChanged reads doc with old replaced by new (and then cut) and returns
// the Error problem reading it must end with.
func readChanged(t *testing.T, doc, old, new string, cut func(string) string) *exchange.Problem {
	t.Helper()
	in := strings.Replace(doc, old, new, 1)
	if in == doc {
		t.Fatal("the replacement did not apply")
	}
	_, err := Read(strings.NewReader(cut(in)))
	var p *exchange.Problem
	if !errors.As(err, &p) || p.Severity != exchange.Error {
		t.Fatalf("error %v is not an Error *exchange.Problem", err)
	}
	return p
}

func TestBounds(t *testing.T) {
	if _, err := ReadWith(strings.NewReader(testDoc(t)), ReadOptions{MaxRows: 5}); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Errorf("9 rows over a bound of 5: %v", err)
	}
	if _, err := ReadWith(strings.NewReader(testDoc(t)), ReadOptions{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("over the byte bound: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(testDoc(f))
	if b, err := os.ReadFile("testdata/itemized.json"); err == nil {
		f.Add(string(b))
	}
	f.Add(`{"format":"fracti.group","formatVersion":1,"members":[{"id":"1","name":"A"}],"expenses":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Read(strings.NewReader(s))
		exchangetest.CheckRead(t, p, err)
	})
}
