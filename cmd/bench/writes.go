package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// The writer: the user who makes every write screen's requests (another
// user than the viewer, whose groups the read screens list).
const (
	writerID   = "1000002"
	writerName = "Walter Writer"
	// writeGroupMembers is each write screen group's size, the writer included.
	writeGroupMembers = 20
	// botToken signs the init data of the users who join (joinGroup).
	botToken = "123456:bench-bot-token"
)

// writeScreens are the screens that write, in the order they are printed.
var writeScreens = []string{"create3", "create6", "create20", "update", "settle", "comment", "join"}

// errExhausted ends a raw client's run: every write the server made has been replayed.
var errExhausted = errors.New("every recorded write replayed")

// writeGroup is one group a write screen writes to, and what its next
// request needs to know.
type writeGroup struct {
	id      string
	members []person // the writer first
	// copyID is the raw side's copy of the group (renamed), taken before
	// the server wrote to it.
	copyID string
	// expenseID and version are the expense update and comment write to.
	expenseID string
	version   int
	// invite is the secret of the group's invite (join).
	invite   string
	requests []*recording // the server's requests to the group, in order
}

// writeScreen serves one write screen both ways: the server's requests,
// each to a group no other client is writing to, and the raw side's replay
// of what they wrote.
type writeScreen struct {
	name     string
	setupDB  *dynamodb.Client
	table    string
	srv      *serverSide
	raw      *rawClient
	groups   []*writeGroup
	pool     chan *writeGroup // groups free for the server's next request
	renamer  *renamer
	joiners  atomic.Int64 // the next joining user's number
	rawPool  chan *rawGroup
	rawLeft  atomic.Int64
	prepared bool
}

// rawGroup is one group copy's replay: its requests, each a list of steps.
type rawGroup struct {
	requests [][]rawStep
	next     int
}

// rawStep is one write to replay and the read it truly needs first.
type rawStep struct {
	batch []item // keys to read in one BatchGetItem
	query *dynamodb.QueryInput
	get   *dynamodb.GetItemInput
	write any
}

// newWriteScreen seeds the screen's groups (one per client, so that no two
// concurrent requests take turns on one group's activity chain) and their
// copies for the raw side.
func newWriteScreen(ctx context.Context, name string, setup *store.Store, setupDB *dynamodb.Client, table string, srv *serverSide, raw *rawClient, clients, screenNo int) (*writeScreen, error) {
	w := &writeScreen{name: name, setupDB: setupDB, table: table, srv: srv, raw: raw, pool: make(chan *writeGroup, clients), renamer: newRenamer()}
	w.groups = make([]*writeGroup, clients)
	err := parallel(clients, func(i int) error {
		g := &writeGroup{members: []person{{writerID, writerName, "walter"}}, version: 1}
		for k := 1; k < writeGroupMembers; k++ {
			id := 4000000 + screenNo*100000 + i*100 + k
			g.members = append(g.members, person{strconv.Itoa(id), fmt.Sprintf("Friend %d", id), fmt.Sprintf("friend%d", id)})
		}
		created, _, err := setup.CreateGroup(ctx, store.NewGroup{Title: fmt.Sprintf("Write %s %02d", name, i), Currency: money.MustCurrency("USD"), Creator: newMember(g.members[0])})
		if err != nil {
			return err
		}
		g.id = created.ID
		for _, m := range g.members[1:] {
			if _, _, err := setup.JoinGroup(ctx, g.id, newMember(m)); err != nil {
				return err
			}
		}
		switch name {
		case "update", "comment":
			e := equalExpense(&seedGroup{id: g.id, title: "Write"}, g.members[0], g.members[:3], money.NewAmount(3000, money.MustCurrency("USD")), "Dinner")
			created, err := setup.CreateExpense(ctx, "Write", e, "")
			if err != nil {
				return err
			}
			g.expenseID = created.ID
		case "join":
			secret, err := auth.NewInviteSecret()
			if err != nil {
				return err
			}
			if _, err := setup.CreateInvite(ctx, store.Invite{GroupID: g.id, CreatedBy: writerID}, 24*time.Hour, auth.HashInviteSecret(secret)); err != nil {
				return err
			}
			g.invite = secret
		}
		if g.copyID, err = copyPartition(ctx, setupDB, table, w.renamer, g.id); err != nil {
			return err
		}
		w.groups[i] = g
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range w.groups {
		w.pool <- g
	}
	// One request to each group first: an instance writing to a group
	// remembers the head of its activity chain, which the first write reads,
	// and the counted runs must see what a request costs from then on.
	for range w.groups {
		if err := w.serve(ctx, true); err != nil {
			return nil, fmt.Errorf("first request: %w", err)
		}
	}
	return w, nil
}

// screen is the write screen as the measurements take it.
func (w *writeScreen) screen() screen {
	return screen{
		name: w.name, serverCalls: w.srv.calls, rawCalls: w.raw.calls,
		server: w.serve, raw: w.replay, beforeRaw: w.prepare,
	}
}

// serve sends the screen's next request to a free group, recording its writes.
func (w *writeScreen) serve(ctx context.Context, check bool) error {
	g := <-w.pool
	defer func() { w.pool <- g }()
	rec := &recording{}
	ctx = withRecording(ctx, rec)
	if err := w.request(ctx, g, check); err != nil {
		return err
	}
	g.requests = append(g.requests, rec)
	return nil
}

// request is one request of the screen (two for settle: the payment
// recorded, then confirmed).
func (w *writeScreen) request(ctx context.Context, g *writeGroup, check bool) error {
	do := func(query string, vars map[string]any) error {
		return w.srv.do(ctx, requestBody(query, vars), check)
	}
	switch w.name {
	case "create3", "create6", "create20":
		n, _ := strconv.Atoi(strings.TrimPrefix(w.name, "create"))
		splits := make([]map[string]any, n)
		for i := range splits {
			splits[i] = map[string]any{"userId": g.members[i].id}
		}
		return do(`mutation($g: ID!, $s: [SplitInput!]!) { createExpense(input: {groupId: $g, amount: "60.00", description: "Dinner", splitType: EQUAL, splits: $s}) {
			id version description amount currency createdAt payer { id name } splits { member { id } amount } } }`,
			map[string]any{"g": g.id, "s": splits})
	case "update":
		amount := "45.00"
		if g.version%2 == 0 {
			amount = "30.00"
		}
		err := do(`mutation($id: ID!, $a: Decimal!, $v: Int!) { updateExpense(id: $id, input: {amount: $a, expectedVersion: $v}) {
			id version amount splits { member { id } amount } } }`, map[string]any{"id": g.expenseID, "a": amount, "v": g.version})
		if err == nil {
			g.version++
		}
		return err
	case "settle":
		out, err := w.srv.response(ctx, requestBody(`mutation($g: ID!, $from: ID!) { createSettlement(input: {groupId: $g, fromUserId: $from, amount: "5.00"}) { id status amount } }`,
			map[string]any{"g": g.id, "from": g.members[1].id}))
		if err != nil {
			return err
		}
		id, err := createdID(out, "createSettlement")
		if err != nil {
			return err
		}
		return do(`mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id status } }`, map[string]any{"id": id})
	case "comment":
		return do(`mutation($e: ID!) { addComment(expenseId: $e, body: "Paid with my card, thanks!") { id body createdAt } }`, map[string]any{"e": g.expenseID})
	case "join":
		n := w.joiners.Add(1)
		id := int64(9000000) + int64(len(w.name))*1000000 + n
		header := "tma " + signInitData(id, fmt.Sprintf("Joiner %d", n))
		body := requestBody(`mutation($i: String!) { joinGroup(invite: $i) { id name } }`, map[string]any{"i": g.invite})
		return (&serverSide{handler: w.srv.handler, auth: header, calls: w.srv.calls}).do(ctx, body, check)
	}
	return fmt.Errorf("unknown write screen %q", w.name)
}

// createdID is the id a mutation's response returned.
func createdID(body []byte, field string) (string, error) {
	marker := `"` + field + `":{"id":"`
	i := strings.Index(string(body), marker)
	if i < 0 {
		return "", fmt.Errorf("%s: no id in %s", field, truncate(body))
	}
	rest := string(body[i+len(marker):])
	return rest[:strings.IndexByte(rest, '"')], nil
}

// signInitData is a Telegram Mini App's init data for a new user, signed as Telegram does.
func signInitData(id int64, name string) string {
	u := fmt.Sprintf(`{"id":%d,"first_name":%q,"username":"joiner%d"}`, id, name, id)
	return auth.SignInitData(url.Values{
		"auth_date": {strconv.FormatInt(time.Now().Unix(), 10)},
		"query_id":  {"AAHdF6IQAAAAAN0XohDhrOrc"},
		"user":      {u},
	}, botToken)
}

// prepare turns the server's recorded writes into the raw side's replay
// (renamed to the copies), before the raw side is measured, and replays
// each group's first request as the server made it before it was measured,
// so that both sides measure the same requests (a group's first edit, say,
// also stores the expense's first revision).
func (w *writeScreen) prepare(ctx context.Context) error {
	if w.prepared {
		return nil
	}
	w.prepared = true
	w.rawPool = make(chan *rawGroup, len(w.groups))
	for _, g := range w.groups {
		rg := &rawGroup{}
		for _, rec := range g.requests {
			var steps []rawStep
			for _, wr := range rec.writes {
				if ws := writtenItems(wr); len(ws) == 1 && strings.HasPrefix(stringAttr(ws[0].key, "PK"), "TOKEN#") {
					continue // the access token's last use, noted once a day: not the screen's write
				}
				renamed, err := w.renamer.write(wr)
				if err != nil {
					return err
				}
				steps = append(steps, w.raw.readsFor(w.name, renamed))
			}
			rg.requests = append(rg.requests, steps)
		}
		if len(rg.requests) > 0 {
			if err := w.raw.replaySteps(ctx, rg.requests[0]); err != nil {
				return fmt.Errorf("first request: %w", err)
			}
			rg.next = 1
		}
		if rg.next < len(rg.requests) {
			w.rawLeft.Add(1)
			w.rawPool <- rg
		}
	}
	return nil
}

// replay makes the next recorded request of a free group copy with the bare SDK.
func (w *writeScreen) replay(ctx context.Context, _ bool) error {
	g, ok := <-w.rawPool
	if !ok {
		return errExhausted
	}
	steps := g.requests[g.next]
	g.next++
	err := w.raw.replaySteps(ctx, steps)
	if g.next < len(g.requests) {
		w.rawPool <- g
	} else if w.rawLeft.Add(-1) == 0 {
		close(w.rawPool)
	}
	return err
}

// readsFor is the read a hand-written backend needs before the write: the
// group and the members an expense or a payment names (for the names and
// the title the items carry), the expense or settlement a change is to, the
// invite a join spends.
func (r *rawClient) readsFor(screenName string, write any) rawStep {
	step := rawStep{write: write}
	tx, ok := write.(*dynamodb.TransactWriteItemsInput)
	if !ok {
		return step // the joiner's profile: written without a read
	}
	pk := ""
	for _, t := range tx.TransactItems {
		switch {
		case t.Put != nil:
			pk = stringAttr(t.Put.Item, "PK")
			sk := stringAttr(t.Put.Item, "SK")
			switch {
			case strings.HasPrefix(sk, "TX#") && strings.HasPrefix(screenName, "create"):
				step.batch = append(step.batch, key(pk, "METADATA"), key(pk, "USER#"+stringAttr(t.Put.Item, "payerId")))
			case strings.HasPrefix(sk, "PART#") && strings.HasPrefix(screenName, "create"):
				step.batch = append(step.batch, key(pk, "USER#"+stringAttr(t.Put.Item, "userId")))
			case strings.HasPrefix(sk, "TX#") && screenName == "update":
				step.query = r.limit(r.index("GSI2", "GSI2PK = :pk", ":pk", stringAttr(t.Put.Item, "GSI2PK")), 1)
			case strings.HasPrefix(sk, "SETTLE#"):
				step.batch = append(step.batch, key(pk, "METADATA"), key(pk, "USER#"+stringAttr(t.Put.Item, "fromUserId")), key(pk, "USER#"+stringAttr(t.Put.Item, "toUserId")))
			case strings.HasPrefix(sk, "COMMENT#"):
				step.query = r.limit(r.index("GSI2", "GSI2PK = :pk", ":pk", "EXPENSE#"+stringAttr(t.Put.Item, "expenseId")), 1)
			}
		case t.Update != nil:
			sk := stringAttr(t.Update.Key, "SK")
			switch {
			case strings.HasPrefix(sk, "SETTLE#") && screenName == "settle":
				step.query = r.limit(r.index("GSI2", "GSI2PK = :pk", ":pk", "SETTLEMENT#"+sk[strings.LastIndexByte(sk, '#')+1:]), 1)
			case strings.HasPrefix(sk, "INVITE!"):
				step.get = &dynamodb.GetItemInput{TableName: &r.table, Key: t.Update.Key}
			}
		}
	}
	return step
}

// replaySteps makes each step's read, then its write.
func (r *rawClient) replaySteps(ctx context.Context, steps []rawStep) error {
	for _, s := range steps {
		var read []item
		switch {
		case len(s.batch) > 0:
			items, err := r.batchGet(ctx, s.batch)
			if err != nil {
				return err
			}
			read = items
		case s.query != nil:
			items, err := r.queryAll(ctx, s.query, false)
			if err != nil {
				return err
			}
			read = items
		case s.get != nil:
			out, err := r.db.GetItem(ctx, s.get)
			if err != nil {
				return err
			}
			read = []item{out.Item}
		}
		if err := replayWrite(ctx, r.db, s.write); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if err := serve(read); err != nil {
			return err
		}
	}
	return nil
}
