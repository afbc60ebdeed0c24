package splitwise

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/exchange/exchangetest"
	"github.com/fracti/api/money"
)

func readFile(t *testing.T, name string) *exchange.Plan {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func balanceMap(bs []exchange.Balance) map[string]string {
	m := map[string]string{}
	for _, b := range bs {
		m[b.Name+" "+b.Amount.Currency().Code()] = b.Amount.String()
	}
	return m
}

// TestRealExportsApplyToTheirTotalBalance applies each file's plan (paid −
// share per person and currency, settlements moving) and compares it with
// the file's Total balance rows.
func TestRealExportsApplyToTheirTotalBalance(t *testing.T) {
	for _, tc := range []struct {
		file                          string
		people, expenses, settlements int
		warnings                      int
	}{
		{"friend_two_currencies.csv", 2, 2, 2, 0},
		{"group_multi_payer.csv", 3, 4, 1, 2},
		{"group_two_currencies_crlf.csv", 3, 4, 1, 0},
		{"settled_italian.csv", 3, 4, 2, 1},
		{"real_rows_pln.csv", 2, 8, 0, 1},
		{"real_group_inr.csv", 4, 16, 9, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := readFile(t, tc.file)
			if len(p.People) != tc.people || len(p.Expenses) != tc.expenses || len(p.Settlements) != tc.settlements || len(p.Problems) != tc.warnings {
				t.Fatalf("got %d people, %d expenses, %d settlements, problems %+v", len(p.People), len(p.Expenses), len(p.Settlements), p.Problems)
			}
			if len(p.Balances) == 0 {
				t.Fatal("no Total balance read")
			}
			want, got := balanceMap(exchange.NonZero(p.Balances)), balanceMap(p.NetBalances())
			if len(want) != len(got) {
				t.Fatalf("balances: file says %v, plan gives %v", want, got)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: file says %s, plan gives %s", k, v, got[k])
				}
			}
			for _, e := range p.Expenses {
				exchangetest.CheckExpense(t, e)
			}
		})
	}
}

func TestFileDetails(t *testing.T) {
	p := readFile(t, "group_two_currencies_crlf.csv")
	if d := p.Expenses[1].Description; d != "Dinner, beach shack" {
		t.Errorf("quoted description read as %q", d)
	}
	// Two payers (300.00 and 300.00 net) of a 900.00 cost: 300.00 of the
	// cost the nets do not explain is shared by the payers in proportion.
	two := p.Expenses[2]
	if two.Amount.String() != "900.00" || len(two.Payers) != 2 || two.Payers[0].Amount.String() != "450.00" || two.Payers[1].Amount.String() != "450.00" {
		t.Errorf("two payers: %+v", two)
	}
	if s := p.Settlements[0]; s.From != "Isha" || s.To != "Aarav" || s.Amount.String() != "500.00" || s.Line != 6 {
		t.Errorf("payment: %+v", s)
	}
	if p.Expenses[0].Line != 3 || p.Expenses[0].SpentAt.Format("2006-01-02") != "2026-03-01" {
		t.Errorf("first expense at line %d on %s", p.Expenses[0].Line, p.Expenses[0].SpentAt)
	}

	it := readFile(t, "settled_italian.csv")
	if it.People[2].Name != `Chiara "Kika" Rossi` || it.Settlements[0].From != it.People[2].Name {
		t.Errorf("Italian file: %+v %+v", it.People, it.Settlements)
	}
	if w := it.Problems[0]; w.Severity != exchange.Warning || w.Line != 9 || !strings.Contains(w.Message, "not imported") {
		t.Errorf("zero row warning: %+v", w)
	}

	// Three payers on a row of the real export: the 150.00 their nets do
	// not explain is theirs, 50.00 each, so each paid 200.00.
	in := readFile(t, "real_group_inr.csv")
	cash := in.Expenses[14]
	if cash.Description != "Cash Given to random person" || len(cash.Payers) != 3 || cash.Payers[0].Amount.String() != "200.00" ||
		cash.Splits[0].Name != "Jaykishan Dudhrejiya" || cash.Splits[0].Amount.String() != "450.00" || cash.Splits[1].Amount.String() != "50.00" {
		t.Errorf("three payers: %+v", cash)
	}
	if s := in.Settlements[0]; s.From != "rishi saini" || s.To != "Jaykishan Dudhrejiya" || s.Amount.String() != "2062.50" {
		t.Errorf("first payment: %+v", s)
	}

	mp := readFile(t, "group_multi_payer.csv")
	boat := mp.Expenses[3]
	if boat.Description != "Boat" || boat.Payers[0].Amount.String() != "40.00" || boat.Payers[1].Amount.String() != "60.00" {
		t.Errorf("boat: %+v", boat.Payers)
	}
}

// TestKeysAreStable reads the same file twice and gets the same keys, and
// two identical rows get different keys.
func TestKeysAreStable(t *testing.T) {
	in := "Date,Description,Category,Cost,Currency,A,B\n" +
		"2026-01-01,Tea,General,2.00,EUR,1.00,-1.00\n" +
		"2026-01-01,Tea,General,2.00,EUR,1.00,-1.00\n"
	p1, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := Read(strings.NewReader(in))
	if p1.Expenses[0].Key != p2.Expenses[0].Key || p1.Expenses[1].Key != p2.Expenses[1].Key {
		t.Error("keys differ between reads")
	}
	if p1.Expenses[0].Key == p1.Expenses[1].Key {
		t.Error("identical rows share a key")
	}
}

func TestAmountsAndEdgeCases(t *testing.T) {
	h := "Date,Description,Category,Cost,Currency,A,B,C\n"
	for _, tc := range []struct {
		name, in string
		check    func(t *testing.T, p *exchange.Plan)
	}{
		{"JPY written with two zero decimals", h + "2026-01-01,Sushi,Dining out,3000.00,JPY,2000.00,-1000.00,-1000.00\n",
			func(t *testing.T, p *exchange.Plan) {
				if a := p.Expenses[0].Amount; a.String() != "3000" || a.Currency().Code() != "JPY" {
					t.Errorf("amount %s %s", a, a.Currency())
				}
			}},
		{"blank cells are zero and -0.00 is zero", h + "2026-01-01,Tea,General,2.00,EUR,1.00,,-1.00\n2026-01-02,Tea,General,2.00,EUR,-0.00,0.00,0.00\n",
			func(t *testing.T, p *exchange.Plan) {
				if len(p.Expenses) != 1 || len(p.Expenses[0].Splits) != 2 || len(p.Problems) != 1 {
					t.Errorf("%+v %+v", p.Expenses, p.Problems)
				}
			}},
		{"formula neutralising undone", "Date,Description,Category,Cost,Currency,'=Al,B,C\n2026-01-01,'-Refund,'@home,2.00,EUR,1.00,-1.00,0.00\n",
			func(t *testing.T, p *exchange.Plan) {
				if p.People[0].Name != "=Al" || p.Expenses[0].Description != "-Refund" || p.Expenses[0].Category != "@home" {
					t.Errorf("%+v %+v", p.People, p.Expenses[0])
				}
			}},
		{"three payers share the rest by largest remainder", h + "2026-01-01,Villa,Lodging,100.00,EUR,10.00,10.00,-20.00\n",
			func(t *testing.T, p *exchange.Plan) {
				e := p.Expenses[0]
				if e.Payers[0].Amount.String() != "50.00" || e.Payers[1].Amount.String() != "50.00" || e.Splits[0].Amount.String() != "40.00" {
					t.Errorf("%+v %+v", e.Payers, e.Splits)
				}
			}},
		{"a cost below the nets takes the nets", h + "2026-01-01,Odd,General,5.00,EUR,10.00,-10.00,0.00\n",
			func(t *testing.T, p *exchange.Plan) {
				if p.Expenses[0].Amount.String() != "10.00" || len(p.Problems) != 1 {
					t.Errorf("%+v %+v", p.Expenses[0], p.Problems)
				}
			}},
		{"two members with the same name", "Date,Description,Category,Cost,Currency,Alex,Alex\n2026-01-01,Tea,General,2.00,EUR,1.00,-1.00\n",
			func(t *testing.T, p *exchange.Plan) {
				if p.People[1].Name != "Alex (2)" || p.Expenses[0].Splits[1].Name != "Alex (2)" || len(p.Problems) != 1 {
					t.Errorf("%+v %+v", p.People, p.Problems)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
			for _, e := range p.Expenses {
				exchangetest.CheckExpense(t, e)
			}
		})
	}
}

func TestBadFiles(t *testing.T) {
	h := "Date,Description,Category,Cost,Currency,A,B\n"
	for _, tc := range []struct {
		name, in    string
		line        int
		field, text string
	}{
		{"empty", "", 0, "", "no header"},
		{"not splitwise", "name,amount\nhello,12\n", 0, "", "not a Splitwise export"},
		{"no header in the first lines", strings.Repeat("x,y\n", 7) + h, 6, "", "first lines"},
		{"bad date", h + "01/02/2026,Tea,General,2.00,EUR,1.00,-1.00\n", 2, "Date", "not a date"},
		{"unknown currency", h + "2026-01-01,Tea,General,2.00,ZZZ,1.00,-1.00\n", 2, "Currency", "not a currency"},
		{"too many decimals", h + "2026-01-01,Tea,General,2.00,EUR,1.005,-1.005\n", 2, "A", "not an amount"},
		{"bad cost", h + "2026-01-01,Tea,General,abc,EUR,1.00,-1.00\n", 2, "Cost", "not an amount"},
		{"cells not summing to zero", h + "\n2026-01-01,Tea,General,2.00,EUR,1.00,-0.50\n", 3, "", "not zero"},
		{"too large", h + "2026-01-01,Yacht,General,10000000000000000.00,EUR,10000000000000000.00,-10000000000000000.00\n", 2, "Cost", "too large"},
		{"short row", h + "2026-01-01,Tea,General,2.00,EUR,1.00\n", 2, "", "cells"},
		{"bad quoting", h + "2026-01-01,\"Tea,General,2.00,EUR,1.00,-1.00\n", 2, "", "not valid CSV"},
		{"more members than an import reads", "Note: x\n" + h[:len(h)-1] + strings.Repeat(",a", exchange.MaxPeople) + "\n", 2, "", "more than the 10000 people"},
		{"two totals for a currency", h + ",Total balance, , ,EUR,0.00,0.00\n,Total balance, , ,EUR,0.00,0.00\n", 3, "Currency", "second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in))
			var p *exchange.Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %v is not a *exchange.Problem", err)
			}
			if p.Line != tc.line || p.Field != tc.field || p.Severity != exchange.Error || !strings.Contains(p.Message, tc.text) {
				t.Errorf("got %+v, want line %d field %q with %q", p, tc.line, tc.field, tc.text)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	in := "Date,Description,Category,Cost,Currency,A,B\n" + strings.Repeat("2026-01-01,Tea,General,2.00,EUR,1.00,-1.00\n", 3)
	if _, err := ReadWith(strings.NewReader(in), ReadOptions{MaxRows: 2}); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Errorf("3 rows over a bound of 2: %v", err)
	}
	if _, err := ReadWith(strings.NewReader(in), ReadOptions{MaxBytes: 50}); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("over the byte bound: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.csv")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Add([]byte("Date,Description,Category,Cost,Currency,A,B\n2026-01-01,Tea,General,2.00,EUR,1.00,-1.00\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadWith(strings.NewReader(string(b)), ReadOptions{MaxRows: 1000})
		exchangetest.CheckRead(t, p, err)
	})
}

// TestRebuildReproducesEveryCell: for random rows (several payers, any
// cost at or above what the nets move), the payers and shares the rule
// picks give every member's cell exactly and add up to the cost.
func TestRebuildReproducesEveryCell(t *testing.T) {
	eur := money.MustCurrency("EUR")
	r := rand.New(rand.NewPCG(26, 1))
	for range 2000 {
		n := 2 + r.IntN(6)
		nets := make([]money.Amount, n)
		names := make([]string, n)
		sum := money.Zero(eur)
		for i := range n - 1 {
			nets[i] = money.NewAmount(r.Int64N(20001)-10000, eur)
			sum = sum.Add(nets[i])
			names[i] = string(rune('A' + i))
		}
		nets[n-1], names[n-1] = sum.Neg(), "Z"
		var pos []int
		owed := money.Zero(eur)
		for i, a := range nets {
			if a.Sign() > 0 {
				pos = append(pos, i)
				owed = owed.Add(a)
			}
		}
		if len(pos) == 0 {
			continue
		}
		cost := owed.Add(money.NewAmount(r.Int64N(5000), eur))
		e, warn := rebuild(cost, nets, pos, names)
		if warn != "" || e.Amount.Cmp(cost) != 0 {
			t.Fatalf("cost %s: amount %s, %q", cost, e.Amount, warn)
		}
		exchangetest.CheckExpense(t, e)
		got := map[string]money.Amount{}
		for _, p := range e.Payers {
			got[p.Name] = p.Amount
		}
		for _, s := range e.Splits {
			if a, ok := got[s.Name]; ok {
				got[s.Name] = a.Sub(s.Amount)
			} else {
				got[s.Name] = s.Amount.Neg()
			}
		}
		for i, a := range nets {
			g, ok := got[names[i]]
			if !ok {
				g = money.Zero(eur)
			}
			if g.Cmp(a) != 0 {
				t.Fatalf("nets %v, cost %s: %s gets %s", nets, cost, names[i], g)
			}
		}
	}
}

// TestPeopleAndPartsBounds: an importer's bounds refuse a file at its
// header (too many member columns) or at its first row involving too many
// members, at that line; without them the same files are read.
func TestPeopleAndPartsBounds(t *testing.T) {
	wide := "Date,Description,Category,Cost,Currency,A,B,C,D\n" +
		"2026-01-01,Tea,General,2.00,EUR,1.00,-1.00,0.00,0.00\n" +
		"2026-01-02,Cake,General,3.00,EUR,2.00,-1.00,-1.00,0.00\n"
	for _, tc := range []struct {
		opt  ReadOptions
		line int
		text string
	}{
		{ReadOptions{MaxPeople: 3}, 1, "more than the 3 people"},
		{ReadOptions{MaxPeople: 4, MaxParts: 2}, 3, "involves 3 members; one expense may involve at most 2"},
		{ReadOptions{MaxPeople: 4, MaxParts: 3}, 0, ""},
		{ReadOptions{}, 0, ""},
	} {
		p, err := ReadWith(strings.NewReader(wide), tc.opt)
		if tc.text == "" {
			if err != nil || len(p.Expenses) != 2 {
				t.Errorf("%+v: %v", tc.opt, err)
			}
			continue
		}
		var pr *exchange.Problem
		if !errors.As(err, &pr) || pr.Line != tc.line || !strings.Contains(pr.Message, tc.text) {
			t.Errorf("%+v: got %v, want line %d with %q", tc.opt, err, tc.line, tc.text)
		}
	}
}

// TestWideFileIsRefusedBeforeItIsRead: a 10 MiB file of 10,000 member
// columns is refused at its header with an importer's people bound, having
// allocated little more than the file (unbounded it reads to hundreds of
// MiB).
func TestWideFileIsRefusedBeforeItIsRead(t *testing.T) {
	const people = 10_000
	var b strings.Builder
	b.WriteString("Date,Description,Category,Cost,Currency")
	for i := range people {
		fmt.Fprintf(&b, ",P%d", i)
	}
	b.WriteString("\n")
	row := "2026-01-01,Tea,General,1.00,EUR" + strings.Repeat(",1,-1", people/2) + "\n"
	for b.Len() < 10<<20 {
		b.WriteString(row)
	}
	file := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadWith(strings.NewReader(file), ReadOptions{MaxPeople: 95, MaxParts: 92})
	runtime.ReadMemStats(&after)
	var pr *exchange.Problem
	if !errors.As(err, &pr) || pr.Line != 1 || !strings.Contains(pr.Message, "more than the 95 people") {
		t.Fatalf("got %v, want the header refused", err)
	}
	// Bounds far below the unbounded reads (hundreds of MiB live, GiBs in
	// all), with room for the race detector's own allocations.
	if got := after.TotalAlloc - before.TotalAlloc; got > 30*uint64(len(file)) {
		t.Errorf("allocated %d MiB reading a %d MiB file", got>>20, len(file)>>20)
	}
	// With the people allowed, the first row's 10,000 members are refused.
	_, err = ReadWith(strings.NewReader(file), ReadOptions{MaxParts: 92})
	if !errors.As(err, &pr) || pr.Line != 2 || !strings.Contains(pr.Message, "at most 92") {
		t.Fatalf("got %v, want the first row refused", err)
	}

	// 95 people, 92 of them in each short row: the cells over all rows are
	// bounded (unbounded, 10 MiB of such rows read to 500 MiB live).
	b.Reset()
	b.WriteString("Date,Description,Category,Cost,Currency")
	for i := range 95 {
		fmt.Fprintf(&b, ",P%d", i)
	}
	b.WriteString("\n")
	row = "2026-01-01,T,G,46,EUR" + strings.Repeat(",1,-1", 46) + ",0,0,0\n"
	for b.Len() < 10<<20 {
		b.WriteString(row)
	}
	file = b.String()
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = ReadWith(strings.NewReader(file), ReadOptions{MaxPeople: 95, MaxParts: 92, MaxCells: 100_000})
	runtime.ReadMemStats(&after)
	if !errors.As(err, &pr) || pr.Line != 100_000/92+2 || !strings.Contains(pr.Message, "more than 100000 members in all") {
		t.Fatalf("got %v, want the row past 100,000 cells refused", err)
	}
	// Each row read allocates some 50 KB that it drops (unbounded: 2 GiB).
	if got := after.TotalAlloc - before.TotalAlloc; got > 30*uint64(len(file)) {
		t.Errorf("allocated %d MiB reading a %d MiB file", got>>20, len(file)>>20)
	}
}
