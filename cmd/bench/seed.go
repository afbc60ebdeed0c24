package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// The viewer: the user every screen is seen by.
const (
	viewerID   = "1000001"
	viewerName = "Vera Viewer"
)

// Sizes of the seeded data.
const (
	bigGroupMembers  = 50  // the viewer and 49 others
	bigGroupExpenses = 300 // spread over the big group's members
	bigGroupSettles  = 12
	smallGroups      = 29 // so that the viewer is in 30 groups
	smallExpenses    = 3  // per small group, paid by others
	seedWorkers      = 8
)

// seeded is what the screens need to know about the seeded data.
type seeded struct {
	bigGroup    string
	groups      []string // every group of the viewer's, the big one first
	expenseIDs  []string // expenses of the big group, in creation order
	expenses    int
	settlements int
	writes      int
}

// person is a seeded user.
type person struct{ id, name, username string }

// seedGroup is one group's plan: who is in it, and the writes to make.
type seedGroup struct {
	id       string
	title    string
	currency money.Currency
	members  []person // the viewer first: the creator
}

// seed writes the benchmark's data through the store, as the API would:
// writes to one group take turns on its activity chain, so the work runs on
// seedWorkers goroutines that pull writes of all groups from one queue, and
// the big group's long chain overlaps the small groups' writes.
func seed(ctx context.Context, s *store.Store) (*seeded, error) {
	rng := rand.New(rand.NewPCG(1, 2)) // the same data every run
	usd, eur := money.MustCurrency("USD"), money.MustCurrency("EUR")
	viewer := person{viewerID, viewerName, "vera"}

	groups := []*seedGroup{{title: "Lisbon trip", currency: usd, members: []person{viewer}}}
	for i := 1; i < bigGroupMembers; i++ {
		groups[0].members = append(groups[0].members, person{fmt.Sprint(2000000 + i), fmt.Sprintf("Member %02d", i), fmt.Sprintf("member%02d", i)})
	}
	for g := 1; g <= smallGroups; g++ {
		cur := usd
		if g%7 == 0 {
			cur = eur
		}
		sg := &seedGroup{title: fmt.Sprintf("Flat %02d", g), currency: cur, members: []person{viewer}}
		for k := 0; k < 2+g%3; k++ { // 3 to 5 members with the viewer
			id := 3000000 + g*10 + k
			sg.members = append(sg.members, person{fmt.Sprint(id), fmt.Sprintf("Flatmate %d", id), fmt.Sprintf("flat%d", id)})
		}
		groups = append(groups, sg)
	}

	p := newProgress()
	defer p.done()
	p.total.Add(int64(len(groups)))

	// Phase 1: the groups, each created by the viewer.
	err := parallel(len(groups), func(i int) error {
		g := groups[i]
		created, _, err := s.CreateGroup(ctx, store.NewGroup{Title: g.title, Currency: g.currency, Creator: newMember(g.members[0])})
		g.id = created.ID
		p.add(1)
		return err
	})
	if err != nil {
		return nil, err
	}

	// Phase 2: everyone else joins.
	var joins []func() error
	for _, g := range groups {
		for _, m := range g.members[1:] {
			joins = append(joins, func() error {
				_, _, err := s.JoinGroup(ctx, g.id, newMember(m))
				return err
			})
		}
	}
	shuffle(rng, joins)
	p.total.Add(int64(len(joins)))
	if err := parallel(len(joins), func(i int) error { defer p.add(1); return joins[i]() }); err != nil {
		return nil, err
	}

	// Phase 3: expenses and settlements.
	out := &seeded{bigGroup: groups[0].id}
	for _, g := range groups {
		out.groups = append(out.groups, g.id)
	}
	var mu sync.Mutex
	bigIDs := make([]string, bigGroupExpenses)
	var writes []func() error
	big := groups[0]
	for i := 0; i < bigGroupExpenses; i++ {
		e := bigExpense(rng, big, i, usd, eur)
		writes = append(writes, func() error {
			created, err := s.CreateExpense(ctx, big.title, e, "")
			mu.Lock()
			bigIDs[i] = created.ID
			mu.Unlock()
			return err
		})
	}
	for i := 0; i < bigGroupSettles; i++ {
		from, to := big.members[rng.IntN(len(big.members))], big.members[rng.IntN(len(big.members))]
		if i%4 == 0 {
			from = big.members[0] // the viewer pays now and then: the home screen lists it
		}
		for to.id == from.id {
			to = big.members[rng.IntN(len(big.members))]
		}
		st := settlement(big.id, from, to, money.NewAmount(int64(1000+rng.IntN(5000)), usd))
		writes = append(writes, func() error { _, err := s.CreateSettlement(ctx, st, ""); return err })
	}
	for gi, g := range groups[1:] {
		for i := 0; i < smallExpenses; i++ {
			// Someone other than the viewer pays, for everyone: the viewer owes a share.
			payer := g.members[1+(i%(len(g.members)-1))]
			e := equalExpense(g, payer, g.members, money.NewAmount(int64(1200+rng.IntN(9000)), g.currency),
				fmt.Sprintf("%s %d", descriptions[rng.IntN(len(descriptions))], i+1))
			writes = append(writes, func() error { _, err := s.CreateExpense(ctx, g.title, e, ""); return err })
		}
		if gi%3 == 0 {
			st := settlement(g.id, g.members[0], g.members[1], money.NewAmount(int64(500+rng.IntN(1000)), g.currency))
			writes = append(writes, func() error { _, err := s.CreateSettlement(ctx, st, ""); return err })
			out.settlements++
		}
	}
	out.expenses = bigGroupExpenses + smallGroups*smallExpenses
	out.settlements += bigGroupSettles
	shuffle(rng, writes)
	p.total.Add(int64(len(writes)))
	if err := parallel(len(writes), func(i int) error { defer p.add(1); return writes[i]() }); err != nil {
		return nil, err
	}
	out.expenseIDs = bigIDs
	out.writes = int(p.count.Load())
	return out, nil
}

// descriptions make the expenses look like expenses.
var descriptions = []string{"Dinner", "Groceries", "Taxi", "Museum tickets", "Coffee", "Hotel", "Train", "Wine", "Breakfast", "Fuel", "Beach chairs", "Pharmacy"}

// bigExpense is the big group's i-th expense: 3 to 5 beneficiaries, a payer
// drawn from all members (the viewer every 7th), two payers every 10th, the
// viewer among the beneficiaries of every third, a few in EUR.
func bigExpense(rng *rand.Rand, g *seedGroup, i int, usd, eur money.Currency) store.Expense {
	cur := usd
	if i%25 == 12 {
		cur = eur
	}
	amount := money.NewAmount(int64(500+rng.IntN(20000)), cur)
	k := 3 + rng.IntN(3)
	idx := rng.Perm(len(g.members))[:k]
	if i%3 == 0 && !containsInt(idx, 0) {
		idx[0] = 0
	}
	beneficiaries := make([]person, k)
	for j, x := range idx {
		beneficiaries[j] = g.members[x]
	}
	payer := g.members[rng.IntN(len(g.members))]
	if i%7 == 0 {
		payer = g.members[0]
	}
	desc := fmt.Sprintf("%s #%d", descriptions[rng.IntN(len(descriptions))], i+1)
	e := equalExpense(g, payer, beneficiaries, amount, desc)
	if i%10 == 5 {
		second := g.members[rng.IntN(len(g.members))]
		for second.id == payer.id {
			second = g.members[rng.IntN(len(g.members))]
		}
		// 60/40, so that the first is the main payer.
		first := money.NewAmount(amount.Minor().Int64()*6/10, cur)
		e.Payers = []store.Payment{
			{UserID: payer.id, UserName: payer.name, Amount: first},
			{UserID: second.id, UserName: second.name, Amount: amount.Sub(first)},
		}
	}
	return e
}

// equalExpense is an expense payer paid, split equally among beneficiaries.
func equalExpense(g *seedGroup, payer person, beneficiaries []person, amount money.Amount, desc string) store.Expense {
	parts, err := money.SplitEqual(amount, len(beneficiaries))
	if err != nil {
		panic(err) // the amounts above are always splittable
	}
	splits := make([]store.Split, len(beneficiaries))
	for j, b := range beneficiaries {
		splits[j] = store.Split{UserID: b.id, UserName: b.name, Amount: parts[j]}
	}
	return store.Expense{
		GroupID: g.id, PayerID: payer.id, PayerName: payer.name, Amount: amount, Description: desc,
		SplitType: store.SplitEqual, Splits: splits, CreatedBy: payer.id,
	}
}

// settlement is a completed payment from one member to another.
func settlement(groupID string, from, to person, amount money.Amount) store.Settlement {
	return store.Settlement{
		GroupID: groupID, FromUserID: from.id, FromUserName: from.name, ToUserID: to.id, ToUserName: to.name,
		Amount: amount, Status: store.SettlementCompleted,
	}
}

// newMember is how a seeded person joins a group.
func newMember(p person) store.NewMember {
	return store.NewMember{UserID: p.id, Name: p.name, Username: p.username}
}

// parallel runs fn(0..n-1) on seedWorkers goroutines and returns the first error.
func parallel(n int, fn func(i int) error) error {
	work := make(chan int)
	errs := make(chan error, seedWorkers)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range seedWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if failed.Load() {
					continue // drain: one failure stops the run
				}
				if err := fn(i); err != nil {
					failed.Store(true)
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs // nil when the channel is empty
}

// shuffle mixes the writes so that the big group's chain and the small
// groups' writes overlap instead of taking turns in blocks.
func shuffle[T any](rng *rand.Rand, xs []T) {
	rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// containsInt reports whether xs holds x.
func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// progress shows on stderr how many writes are done.
type progress struct {
	count, total atomic.Int64
	stop         chan struct{}
	wg           sync.WaitGroup
}

// newProgress starts printing progress every second; each phase adds its
// writes to the total as it is planned.
func newProgress() *progress {
	p := &progress{stop: make(chan struct{})}
	// On a terminal the line rewrites itself; into a file or pipe it
	// would pile up on one line, so there each update gets its own.
	lineStart, lineEnd := "\r", ""
	if fi, err := os.Stderr.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		lineStart, lineEnd = "", "\n"
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprintf(os.Stderr, "%sseeding: %d writes done            \n", lineStart, p.count.Load())
				return
			case <-t.C:
				fmt.Fprintf(os.Stderr, "%sseeding: %d/%d writes%s", lineStart, p.count.Load(), p.total.Load(), lineEnd)
			}
		}
	}()
	return p
}

// add counts n writes done.
func (p *progress) add(n int) { p.count.Add(int64(n)) }

// done stops the progress line.
func (p *progress) done() {
	close(p.stop)
	p.wg.Wait()
}
