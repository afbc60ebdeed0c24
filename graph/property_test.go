package graph_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

// world is a group and its members as the property test drives them.
type world struct {
	t        *testing.T
	rng      *rand.Rand
	group    string
	users    map[string]*apitest.User
	ids      []string
	member   map[string]bool
	expenses map[string]string // id → who recorded it
	deleted  map[string]string // deleted expenses: id → who recorded it
	versions map[string]int    // every expense's version
	itemized map[string]bool   // the live expenses that are itemized
	pending  map[string][2]string
	// api and zone: the server, and the group's time zone (spending.go).
	api  *apitest.API
	zone string
}

var currencies = []string{"USD", "JPY", "TON", "KWD"}

// TestRandomSequencesKeepMoneyAddingUp runs long random sequences of
// creates (every split type, one and several payers, several currencies),
// edits, deletes, restores, settlements, status changes, settling up,
// leaving and rejoining, through the GraphQL API, and checks the invariants
// after every step, and after every edit, deletion and restoration that the
// expense's history replays to what it is.
// FRACTI_SEEDS=n runs n more random seeds.
func TestRandomSequencesKeepMoneyAddingUp(t *testing.T) {
	t.Parallel()
	seeds := []uint64{1, 2, 3}
	if n, _ := strconv.Atoi(os.Getenv("FRACTI_SEEDS")); n > 0 {
		for range n {
			seeds = append(seeds, rand.Uint64())
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			api := apitest.New(t)
			w := &world{t: t, rng: rand.New(rand.NewPCG(seed, seed)), users: map[string]*apitest.User{},
				member: map[string]bool{}, expenses: map[string]string{}, deleted: map[string]string{},
				versions: map[string]int{}, itemized: map[string]bool{}, pending: map[string][2]string{}, api: api, zone: "UTC"}
			for i := range 4 {
				id := fmt.Sprint(500 + i)
				w.users[id], w.ids, w.member[id] = api.User(id, "User "+id), append(w.ids, id), true
			}
			w.group = w.users[w.ids[0]].CreateGroup("Random")
			for _, id := range w.ids[1:] {
				w.users[id].Join(w.group)
			}
			for step := range 60 {
				op := w.step()
				reader := w.users[w.anyMember()]
				st := readGroup(t, reader, w.group)
				t.Run(fmt.Sprintf("after step %d: %s", step, op), func(t *testing.T) {
					checkInvariants(t, st)
					w.checkSpending(t)
				})
				if t.Failed() {
					return
				}
			}
			w.checkRebuildChangesNothing()
		})
	}
}

func (w *world) anyMember() string {
	for _, id := range w.ids {
		if w.member[id] {
			return id
		}
	}
	w.t.Fatal("no member left")
	return ""
}

func (w *world) members() []string {
	var out []string
	for _, id := range w.ids {
		if w.member[id] {
			out = append(out, id)
		}
	}
	return out
}

func (w *world) pick(xs []string) string { return xs[w.rng.IntN(len(xs))] }

// step does one random operation and checks its outcome; it returns its name.
func (w *world) step() string {
	switch r := w.rng.IntN(100); {
	case r < 30:
		return w.createExpense()
	case r < 42:
		return w.updateExpense()
	case r < 52:
		return w.deleteExpense()
	case r < 58:
		return w.restoreExpense()
	case r < 72:
		return w.createSettlement()
	case r < 84:
		return w.changeSettlement()
	case r < 88:
		return w.settleUp()
	case r < 93:
		return w.changeTimeZone()
	default:
		return w.leaveOrRejoin()
	}
}

// randomParts splits total minor units into n random non-negative parts (positive if positive).
func (w *world) randomParts(total int64, n int, positive bool) []int64 {
	parts := make([]int64, n)
	left := total
	if positive {
		for i := range parts {
			parts[i] = 1
		}
		left -= int64(n)
	}
	for i := range n - 1 {
		x := w.rng.Int64N(left + 1)
		parts[i] += x
		left -= x
	}
	parts[n-1] += left
	return parts
}

func format(minor int64, code string) string {
	return money.NewAmountBig(big.NewInt(minor), money.MustCurrency(code)).String()
}

// randomExpense is a random createExpense input for the group's members,
// and what it says in words.
func (w *world) randomExpense() (map[string]any, string) {
	code := w.pick(currencies)
	members := w.members()
	total := 1 + w.rng.Int64N(200_000)
	beneficiaries := slices.Clone(members)
	w.rng.Shuffle(len(beneficiaries), func(i, j int) { beneficiaries[i], beneficiaries[j] = beneficiaries[j], beneficiaries[i] })
	beneficiaries = beneficiaries[:1+w.rng.IntN(len(beneficiaries))]
	splitType := w.pick([]string{"EQUAL", "EXACT", "PERCENTAGE", "SHARES"})
	splits := make([]any, len(beneficiaries))
	exact := w.randomParts(total, len(beneficiaries), false)
	pcts := w.randomParts(10_000, len(beneficiaries), false) // hundredths of a percent
	shares := w.randomParts(int64(1+w.rng.IntN(20)), len(beneficiaries), false)
	for i, u := range beneficiaries {
		s := map[string]any{"userId": u}
		switch splitType {
		case "EXACT":
			s["amount"] = format(exact[i], code)
		case "PERCENTAGE":
			s["percentage"] = fmt.Sprintf("%d.%02d", pcts[i]/100, pcts[i]%100)
		case "SHARES":
			s["shares"] = fmt.Sprintf("%d.5", shares[i]) // x.5: never all zero
		}
		splits[i] = s
	}
	in := map[string]any{"groupId": w.group, "amount": format(total, code), "currency": code, "description": "random", "splitType": splitType, "splits": splits}
	if w.rng.IntN(4) == 0 {
		// An itemized bill instead: its total is the amount.
		delete(in, "splitType")
		delete(in, "splits")
		total, splitType = w.randomItems(in, code, members), "ITEMS"
		in["amount"] = format(total, code)
	}
	w.randomDayAndCategory(in)
	if n := 1 + w.rng.IntN(min(3, len(members))); n > 1 && total >= int64(n) {
		payers := slices.Clone(members)
		w.rng.Shuffle(len(payers), func(i, j int) { payers[i], payers[j] = payers[j], payers[i] })
		paid := w.randomParts(total, n, true)
		list := make([]any, n)
		for i := range n {
			list[i] = map[string]any{"userId": payers[i], "amount": format(paid[i], code)}
		}
		in["payers"] = list
	} else if w.rng.IntN(2) == 0 {
		in["payerId"] = w.pick(members)
	}
	return in, fmt.Sprintf("%s %s split %s", format(total, code), code, splitType)
}

// randomItems gives in 1 to 3 random lines, each split its own way among
// some of members, and up to two adjustments (a percentage tax, a fixed
// tip or discount); it returns their total in minor units.
func (w *world) randomItems(in map[string]any, code string, members []string) int64 {
	cur := money.MustCurrency(code)
	var lines []any
	subtotal := int64(0)
	for k := range 1 + w.rng.IntN(3) {
		amount := 1 + w.rng.Int64N(100_000)
		subtotal += amount
		who := slices.Clone(members)
		w.rng.Shuffle(len(who), func(i, j int) { who[i], who[j] = who[j], who[i] })
		who = who[:1+w.rng.IntN(len(who))]
		splitType := w.pick([]string{"EQUAL", "EXACT", "PERCENTAGE", "SHARES"})
		exact := w.randomParts(amount, len(who), false)
		pcts := w.randomParts(10_000, len(who), false)
		splits := make([]any, len(who))
		for i, u := range who {
			s := map[string]any{"userId": u}
			switch splitType {
			case "EXACT":
				s["amount"] = format(exact[i], code)
			case "PERCENTAGE":
				s["percentage"] = fmt.Sprintf("%d.%02d", pcts[i]/100, pcts[i]%100)
			case "SHARES":
				s["shares"] = fmt.Sprint(1 + w.rng.IntN(3))
			}
			splits[i] = s
		}
		lines = append(lines, map[string]any{"description": fmt.Sprint("line ", k), "amount": format(amount, code), "splitType": splitType, "splits": splits})
	}
	in["items"] = lines
	total := subtotal
	var adjs []any
	if w.rng.IntN(2) == 0 {
		pct := money.NewDecimal(1+w.rng.Int64N(2000), 2) // 0.01% to 20%
		adjs = append(adjs, map[string]any{"kind": "TAX", "percentage": pct.String()})
		total += money.PercentOf(money.NewAmount(subtotal, cur), pct).Minor().Int64()
	}
	if w.rng.IntN(2) == 0 {
		v := 1 + w.rng.Int64N(subtotal)
		kind := w.pick([]string{"TIP", "SERVICE", "DISCOUNT"})
		if kind == "DISCOUNT" {
			if v >= total {
				v = total - 1
			}
			if v > 0 {
				adjs = append(adjs, map[string]any{"kind": kind, "amount": format(v, code)})
				total -= v
			}
		} else {
			adjs = append(adjs, map[string]any{"kind": kind, "amount": format(v, code)})
			total += v
		}
	}
	if adjs != nil {
		in["adjustments"] = adjs
	}
	return total
}

func (w *world) createExpense() string {
	in, what := w.randomExpense()
	by := w.pick(w.members())
	var out struct{ CreateExpense struct{ ID string } }
	w.users[by].Must(&out, createExpense, "in", in)
	w.itemized[out.CreateExpense.ID] = in["items"] != nil
	w.expenses[out.CreateExpense.ID] = by
	w.versions[out.CreateExpense.ID] = 1
	w.checkDay(out.CreateExpense.ID, "", "")
	return fmt.Sprintf("%s adds %s", by, what)
}

// pickOf picks one of a map's keys.
func pickOf[V any](w *world, m map[string]V) string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return w.pick(ids)
}

// updateExpense has any member edit a live expense: everything anew, or
// only its description and date.
func (w *world) updateExpense() string {
	if len(w.expenses) == 0 {
		return w.createExpense()
	}
	id := pickOf(w, w.expenses)
	in, what := w.randomExpense()
	delete(in, "groupId")
	by := w.pick(w.members())
	if in["payers"] == nil && in["payerId"] == nil {
		in["payerId"] = by // as createExpense defaults to the viewer; an edit keeps the payers
	}
	itemized := in["items"] != nil
	if w.itemized[id] && !itemized {
		in["items"] = []any{} // splits replace the lines
	}
	if itemized && in["adjustments"] == nil {
		in["adjustments"] = []any{} // else the expense's would stay
	}
	if w.rng.IntN(3) == 0 {
		in, what = map[string]any{"description": fmt.Sprint("renamed ", w.rng.IntN(1000)), "spentAt": "2026-01-02T03:04:05.678Z"}, "new description"
		itemized = w.itemized[id]
	}
	in["expectedVersion"] = w.versions[id]
	spentAt, spentOn := w.day(id)
	res := w.users[by].Do(`mutation($id: ID!, $in: UpdateExpenseInput!) { updateExpense(id: $id, input: $in) { version } }`, "id", id, "in", in)
	if res.Code() == "CONFLICT" { // it changes the balance of someone who left
		return "edit refused: involves a former member"
	}
	require.Empty(w.t, res.Errors)
	var out struct{ UpdateExpense struct{ Version int } }
	require.NoError(w.t, json.Unmarshal(res.Data, &out))
	w.versions[id], w.itemized[id] = out.UpdateExpense.Version, itemized
	w.checkHistory(id)
	w.checkDay(id, spentAt, spentOn)
	return fmt.Sprintf("%s edits %s: %s", by, id, what)
}

func (w *world) restoreExpense() string {
	if len(w.deleted) == 0 {
		return w.deleteExpense()
	}
	id := pickOf(w, w.deleted)
	by := w.pick(w.members())
	res := w.users[by].Do(`mutation($id: ID!) { restoreExpense(id: $id) { version } }`, "id", id)
	if res.Code() == "CONFLICT" { // it involves someone who left
		return "restore refused: involves a former member"
	}
	require.Empty(w.t, res.Errors)
	w.expenses[id], w.versions[id] = w.deleted[id], w.versions[id]+1
	delete(w.deleted, id)
	w.checkHistory(id)
	return "restore " + id
}

// checkHistory replays the expense's history, oldest first: versions run
// 1, 2, 3… to the current one, each change starts from the value the one
// before left, and the result is the expense as it is.
func (w *world) checkHistory(id string) {
	var out struct {
		Expense struct {
			Amount, Currency, Description, SpentAt, SplitType string
			Category                                          *string
			Version                                           int
			Payers                                            []struct {
				Member struct{ Name string }
				Amount string
			}
			Splits []struct {
				Member             struct{ Name string }
				Amount             string
				Percentage, Shares *string
			}
			Items []struct {
				Description, Amount, SplitType string
				Shares                         []struct {
					Member             struct{ Name string }
					Amount             string
					Percentage, Shares *string
				}
			}
			Adjustments []struct {
				Kind               string
				Amount, Percentage *string
				AppliedAmount      string
			}
			History []struct {
				Version int
				Action  string
				Changes []change
			}
		}
	}
	w.users[w.anyMember()].Must(&out, `query($id: ID!) { expense(id: $id) {
		amount currency description category spentAt splitType version
		payers { member { name } amount } splits { member { name } amount percentage shares }
		items { description amount splitType shares { member { name } amount percentage shares } }
		adjustments { kind amount percentage appliedAmount }
		history { version action changes { field before after } } } }`, "id", id)
	e := out.Expense
	require.Equal(w.t, w.versions[id], e.Version)
	state := map[string]string{}
	for i := len(e.History) - 1; i >= 0; i-- {
		rev := e.History[i]
		require.Equal(w.t, len(e.History)-i, rev.Version, "versions run without gaps")
		for _, c := range rev.Changes {
			was, had := state[c.Field]
			require.Equal(w.t, c.Before != nil, had, "%s v%d %s: before", id, rev.Version, c.Field)
			if had {
				require.Equal(w.t, was, *c.Before, "%s v%d %s starts where the last change left it", id, rev.Version, c.Field)
			}
			if c.After == nil {
				delete(state, c.Field)
			} else {
				state[c.Field] = *c.After
			}
		}
	}
	want := map[string]string{"amount": e.Amount, "currency": e.Currency, "description": e.Description, "spentAt": e.SpentAt, "splitType": e.SplitType}
	if e.Category != nil {
		want["category"] = *e.Category
	}
	var payers, splits []string
	for _, p := range e.Payers {
		payers = append(payers, p.Member.Name+": "+p.Amount)
	}
	for _, sp := range e.Splits {
		s := sp.Member.Name + ": " + sp.Amount
		switch {
		case sp.Percentage != nil:
			s += " (" + *sp.Percentage + "%)"
		case sp.Shares != nil:
			s += " (" + *sp.Shares + " shares)"
		}
		splits = append(splits, s)
	}
	want["payers"], want["splits"] = strings.Join(payers, "; "), strings.Join(splits, "; ")
	var lines, adjs []string
	for _, it := range e.Items {
		var shares []string
		for _, sh := range it.Shares {
			s := sh.Member.Name + " " + sh.Amount
			switch {
			case sh.Percentage != nil:
				s += " (" + *sh.Percentage + "%)"
			case sh.Shares != nil:
				s += " (" + *sh.Shares + " shares)"
			}
			shares = append(shares, s)
		}
		lines = append(lines, it.Description+" "+it.Amount+" ("+it.SplitType+"): "+strings.Join(shares, ", "))
	}
	for _, a := range e.Adjustments {
		given := ""
		if a.Percentage != nil {
			given = *a.Percentage + "%"
		} else if a.Amount != nil {
			given = *a.Amount
		}
		adjs = append(adjs, a.Kind+" "+given+" = "+a.AppliedAmount)
	}
	if lines != nil {
		want["items"] = strings.Join(lines, " | ")
	}
	if adjs != nil {
		want["adjustments"] = strings.Join(adjs, "; ")
	}
	require.Equal(w.t, want, state, "the history of %s replays to the expense", id)
}

func (w *world) deleteExpense() string {
	if len(w.expenses) == 0 {
		return w.createExpense()
	}
	id := pickOf(w, w.expenses)
	by := w.expenses[id]
	if !w.member[by] {
		return "skip: the recorder left"
	}
	res := w.users[by].Do(`mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id)
	if res.Code() == "CONFLICT" { // it involves someone who left
		return "delete refused: involves a former member"
	}
	require.Empty(w.t, res.Errors)
	w.deleted[id], w.versions[id] = by, w.versions[id]+1
	delete(w.expenses, id)
	w.checkHistory(id)
	return "delete " + id
}

func (w *world) createSettlement() string {
	members := w.members()
	if len(members) < 2 {
		return w.leaveOrRejoin()
	}
	from := w.pick(members)
	to := w.pick(slices.DeleteFunc(slices.Clone(members), func(u string) bool { return u == from }))
	code := w.pick(currencies)
	// The payer records it PENDING or SENT; the recipient records one received as COMPLETED.
	status := w.pick([]string{"PENDING", "SENT", "COMPLETED"})
	amount := format(1+w.rng.Int64N(50_000), code)
	in := map[string]any{"groupId": w.group, "toUserId": to, "amount": amount, "currency": code, "status": status}
	recorder := from
	if status == "COMPLETED" {
		in, recorder = map[string]any{"groupId": w.group, "fromUserId": from, "amount": amount, "currency": code, "status": status}, to
	}
	var out struct{ CreateSettlement struct{ ID string } }
	w.users[recorder].Must(&out, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`, "in", in)
	if status != "COMPLETED" {
		w.pending[out.CreateSettlement.ID] = [2]string{from, to}
	}
	return fmt.Sprintf("%s pays %s %s %s (%s)", from, to, amount, code, status)
}

func (w *world) changeSettlement() string {
	if len(w.pending) == 0 {
		return w.createSettlement()
	}
	ids := make([]string, 0, len(w.pending))
	for id := range w.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	id := w.pick(ids)
	payer := w.rng.IntN(2) == 0
	party := w.pending[id][1]
	status := w.pick([]string{"COMPLETED", "FAILED"}) // the recipient's moves
	if payer {
		party, status = w.pending[id][0], w.pick([]string{"SENT", "FAILED", "COMPLETED"})
	}
	if !w.member[party] {
		return "skip: a party left"
	}
	res := w.users[party].Do(updateSettlement, "id", id, "in", map[string]any{"status": status})
	switch {
	case payer && status == "COMPLETED":
		require.Equal(w.t, "FORBIDDEN", res.Code(), "the payer cannot confirm their own payment")
		return "payer's completion refused"
	case payer && status == "SENT" && res.Code() == "CONFLICT":
		return "already sent"
	case res.Code() == "CONFLICT": // the other party left
		return "settlement refused: a party left"
	}
	require.Empty(w.t, res.Errors)
	if status == "SENT" {
		return "settlement sent"
	}
	delete(w.pending, id)
	// A second change is always refused.
	w.users[party].Fails("CONFLICT", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	return "settlement " + status
}

// settleUp pays every simplified debt, after which every net is zero.
func (w *world) settleUp() string {
	st := readGroup(w.t, w.users[w.anyMember()], w.group)
	for _, d := range st.Simplified { // each recipient records the payment received
		w.users[d.To.UserID].Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
			"in", map[string]any{"groupId": w.group, "fromUserId": d.From.UserID, "amount": d.Amount, "currency": d.Currency, "status": "COMPLETED"})
	}
	after := readGroup(w.t, w.users[w.anyMember()], w.group)
	for _, b := range after.Balances {
		require.True(w.t, amountOf(w.t, b.Net, b.Currency).IsZero(), "after paying every debt, %s %s is %s", b.Currency, b.Member.UserID, b.Net)
	}
	return fmt.Sprintf("settle up with %d payments", len(st.Simplified))
}

func (w *world) leaveOrRejoin() string {
	for _, id := range w.ids {
		if !w.member[id] && w.rng.IntN(2) == 0 {
			w.users[id].Join(w.group)
			w.member[id] = true
			return id + " rejoins"
		}
	}
	members := w.members()
	if len(members) <= 2 {
		return "skip: keep two members"
	}
	who := w.pick(members)
	st := readGroup(w.t, w.users[who], w.group)
	zero := true
	for _, b := range st.Balances {
		if b.Member.UserID == who && !amountOf(w.t, b.Net, b.Currency).IsZero() {
			zero = false
		}
	}
	res := w.users[who].Do(`mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", w.group)
	if who == w.ids[0] {
		require.Equal(w.t, "CONFLICT", res.Code(), "the group's only owner may not leave")
		return who + " owns the group and stays"
	}
	if !zero {
		require.Equal(w.t, "CONFLICT", res.Code(), "leaving with a balance is refused")
		return who + " may not leave"
	}
	require.Empty(w.t, res.Errors)
	w.member[who] = false
	return who + " leaves"
}
