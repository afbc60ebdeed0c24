package exchange

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fracti/api/money"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct{ in, cur, want, err string }{
		{"12.50", "EUR", "12.50", ""},
		{"-0.00", "EUR", "0.00", ""},
		{"3000.00", "JPY", "3000", ""},
		{"3000.50", "JPY", "", "too many decimal"},
		{"1.005", "EUR", "", "too many decimal"},
		{"1.000", "EUR", "1.00", ""},
		{"0.5", "TON", "0.500000000", ""},
		{"1,5", "EUR", "", "not a decimal"},
	} {
		a, err := ParseAmount(tc.in, money.MustCurrency(tc.cur))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: %v, want an error with %q", tc.in, tc.cur, err, tc.err)
			}
			continue
		}
		if err != nil || a.String() != tc.want {
			t.Errorf("%s %s: %s, %v; want %s", tc.in, tc.cur, a, err, tc.want)
		}
	}
}

func TestUniqueNames(t *testing.T) {
	got, problems := UniqueNames([]string{" Alex", "Alex ", "Alex (2)", "Sam", "Alex"},
		func(i int) int { return i + 1 }, func(int) string { return "name" })
	want := []string{"Alex", "Alex (3)", "Alex (2)", "Sam", "Alex (4)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(problems) != 2 || problems[0].Line != 2 || problems[1].Line != 5 || problems[0].Severity != Warning {
		t.Errorf("problems: %+v", problems)
	}
}

func TestJSONLines(t *testing.T) {
	doc := "{\n  \"a\": [\n    {\"x\": 1},\n    {\n      \"y\": [\"s\",\n  {}]\n    }\n  ]\n}\n"
	j, err := IndexJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for path, line := range map[string]int{
		"": 1, "a": 2, "a[0]": 3, "a[0].x": 3, "a[1]": 4, "a[1].y": 5, "a[1].y[1]": 6, "a[1].y[0]": 5, "zz": 1,
	} {
		if got := j.Line(path); got != line {
			t.Errorf("%q: line %d, want %d", path, got, line)
		}
	}
	for _, bad := range []string{"{\n\"a\": [1,,2]}", "{\"a\": 1", "{} {}", ""} {
		if _, err := IndexJSON([]byte(bad)); err == nil {
			t.Errorf("%q was indexed", bad)
		} else if p := AsProblem(err); p.Severity != Error {
			t.Errorf("%q: %+v", bad, p)
		}
	}
	if _, err := IndexJSON([]byte("{\n\"a\": [1,,2]}")); AsProblem(err).Line != 2 {
		t.Errorf("syntax error at line %d, want 2", AsProblem(err).Line)
	}
}

func TestNetBalances(t *testing.T) {
	eur := money.MustCurrency("EUR")
	p := &Plan{
		People: []Person{{Name: "B"}, {Name: "A"}},
		Expenses: []Expense{{Amount: money.NewAmount(1000, eur),
			Payers: []Part{{Name: "A", Amount: money.NewAmount(1000, eur)}},
			Splits: []Part{{Name: "A", Amount: money.NewAmount(500, eur)}, {Name: "B", Amount: money.NewAmount(500, eur)}}}},
		Settlements: []Settlement{
			{From: "B", To: "A", Amount: money.NewAmount(200, eur), Status: "completed"},
			{From: "B", To: "A", Amount: money.NewAmount(300, eur), Status: "pending"},
			{From: "B", To: "A", Amount: money.NewAmount(1, money.MustCurrency("TON")),
				Settles: &Original{Amount: money.NewAmount(300, eur)}},
		},
	}
	var got []string
	for _, b := range p.NetBalances() {
		got = append(got, b.Name+" "+b.Amount.String())
	}
	if strings.Join(got, ", ") != "" {
		t.Errorf("a settled group: %v", got)
	}
	p.Settlements = p.Settlements[:2]
	got = nil
	for _, b := range p.NetBalances() {
		got = append(got, b.Name+" "+b.Amount.String()+" "+b.Amount.Currency().Code())
	}
	if strings.Join(got, ", ") != "B -3.00 EUR, A 3.00 EUR" {
		t.Errorf("got %v", got)
	}
}

// TestUniqueNamesOfOneRepeatedName: a file of one name repeated gets
// "a (2)" … "a (n)" in one pass. Restarting the search at 2 for every
// duplicate built n²/2 candidate names (a 64 KB Splitwise header of
// "a,a,a…" took minutes); the allocations say which it does.
func TestUniqueNamesOfOneRepeatedName(t *testing.T) {
	const n = 4000
	names := make([]string, n)
	for i := range names {
		names[i] = "a"
	}
	names[n/2] = "a (7)" // a name the file uses itself is skipped
	var got []string
	var problems []Problem
	allocs := testing.AllocsPerRun(1, func() {
		got, problems = UniqueNames(names, func(int) int { return 1 }, func(int) string { return "name" })
	})
	if got[0] != "a" || got[6] != "a (8)" || got[n/2] != "a (7)" || got[n-1] != "a ("+strconv.Itoa(n)+")" || len(problems) != n-2 {
		t.Errorf("got %q %q %q %q and %d problems", got[0], got[6], got[n/2], got[n-1], len(problems))
	}
	if allocs > 20*n {
		t.Errorf("%.0f allocations for %d names: the search restarts for each duplicate", allocs, n)
	}
}

// TestJSONLinesBounded: the index refuses nesting deeper than
// encoding/json reads, and records no path below the depth the readers
// name or under a long key. Each level's path used to copy its parent's:
// 100,000 nested arrays (200 KB) took 90 s and gigabytes.
func TestJSONLinesBounded(t *testing.T) {
	// Checked first, and fatal, so that without the bounds the test stops
	// before the deep document below.
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	j, err := IndexJSON([]byte(ok))
	if err != nil || len(j.starts) != recordDepth+1 || j.Line("[0][0][0][0][0][0]") != 1 {
		t.Fatalf("%d nested arrays: %v, %d paths recorded", maxDepth, err, len(j.starts))
	}
	long := `{"` + strings.Repeat("k", maxKeyLen+1) + `": [` + strings.TrimSuffix(strings.Repeat("[],", 10_000), ",") + "],\n\"a\": [{}]}"
	if j, err = IndexJSON([]byte(long)); err != nil || len(j.starts) != 3 || j.Line("a[0]") != 2 {
		t.Fatalf("a long key: %v, paths %d", err, len(j.starts))
	}
	deep := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	if _, err := IndexJSON([]byte(deep)); err == nil || AsProblem(err).Line != 1 || !strings.Contains(err.Error(), "deeper than 10000") {
		t.Errorf("200,000 nested arrays: %v", err)
	}
}
