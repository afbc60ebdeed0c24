package graph

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph/fastjson"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/graph/scalar"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/ast"
)

// The fast path (lever 5 of issue 27): the lists that dominate the screens
// (a group's members, expenses with their payers and splits, balances and
// debts) are written straight from the loaded objects as one JSON fragment,
// which the executor places as it is (a field middleware may return a
// graphql.Marshaler). gqlgen's generic path would start a goroutine per
// element and a FieldContext, a closure and a boxed value per field.
//
// The list's own resolver runs as before (the same reads, the same access
// checks); only what follows is replaced, and only when every field under
// it is one this file writes and every member it names is loaded without
// error. Anything else (another field, an @defer, a read that fails, a
// missing member, a panic) falls back to the generic path for the whole
// field, which then answers exactly as it always did: a fast path that
// cannot fail needs no error handling of its own. The differential test
// (fastpath_test.go) holds the two paths byte for byte equal.

// fastLists are the Group fields the fast path writes.
var fastLists = map[string]bool{"members": true, "expenses": true, "balances": true, "debts": true}

// fastTypes are the object types the fast path writes.
var fastTypes = []string{"MemberConnection", "MemberEdge", "ExpenseConnection", "ExpenseEdge", "PageInfo",
	"Member", "Expense", "Payment", "Split", "Balance", "Debt"}

// fastPath is the field middleware of the fast path.
type fastPath struct {
	// satisfies is, per type written, the type and the interfaces and unions
	// it belongs to: what fragments' type conditions are matched against
	// (gqlgen's generated <type>Implementors).
	satisfies map[string][]string
	// sizes is, per list field, the length of the last value written: the
	// next one's buffer starts that large instead of growing by doubling
	// from nothing (each step a new array and a copy).
	sizes map[string]*atomic.Int64
}

// newFastPath prepares the fast path for a schema.
func newFastPath(s *ast.Schema) *fastPath {
	p := &fastPath{satisfies: map[string][]string{}, sizes: map[string]*atomic.Int64{}}
	for name := range fastLists {
		p.sizes[name] = new(atomic.Int64)
	}
	for _, name := range fastTypes {
		names := []string{name}
		for _, d := range s.GetImplements(s.Types[name]) {
			names = append(names, d.Name)
		}
		p.satisfies[name] = names
	}
	return p
}

// around writes a fast list field, or lets the field run as usual.
func (p *fastPath) around(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Object != "Group" || !fastLists[fc.Field.Name] {
		return next(ctx)
	}
	res, err := next(ctx)
	if err != nil || res == nil {
		return res, err
	}
	if m := p.render(ctx, fc.Field.Selections, res, p.sizes[fc.Field.Name]); m != nil {
		fastWritten.Add(1)
		return m, nil
	}
	fastFellBack.Add(1)
	return res, nil
}

// fastWritten and fastFellBack count the list fields the fast path wrote
// and those it left to the generic path, process-wide, for the tests that
// check which path answered.
var fastWritten, fastFellBack atomic.Int64

// unsupported aborts a fast write: the field falls back to the generic path.
type unsupported struct{}

// render writes a list field's value, or returns nil when the generic path
// must: a first pass checks every field is supported and notes the members
// to load; when there are any, a second writes with them loaded.
func (p *fastPath) render(ctx context.Context, sel ast.SelectionSet, res any, size *atomic.Int64) (m graphql.Marshaler) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	w := &writer{p: p, fields: fastjson.NewFields(graphql.GetOperationContext(ctx)), dry: true}
	w.b.B = make([]byte, 0, size.Load())
	w.value(sel, res)
	if len(w.need) > 0 {
		// The first pass wrote stubs for these members: load them and
		// write again. With none needed, what it wrote is the answer.
		w.members = make(map[store.MemberKey]*store.Member, len(w.need))
		for groupID, users := range w.needByGroup() {
			ms, err := loaders.Members(ctx, groupID, users)
			if err != nil {
				return nil
			}
			for i, m := range ms {
				if m == nil {
					return nil // the generic path reports the missing member
				}
				w.members[store.MemberKey{GroupID: groupID, UserID: users[i]}] = m
			}
		}
		w.dry = false
		w.b.B = w.b.B[:0] // the first pass sized it
		w.value(sel, res)
	}
	size.Store(int64(len(w.b.B)))
	return newFragment(ctx, w.b)
}

// writer writes one list field's value.
type writer struct {
	p      *fastPath
	fields *fastjson.Fields
	b      fastjson.Buffer
	// dry is the first pass: members not loaded yet are written as stubs
	// and noted in need.
	dry     bool
	need    map[store.MemberKey]bool
	members map[store.MemberKey]*store.Member
}

// needByGroup is need grouped by group, for the loaders' batch reads.
func (w *writer) needByGroup() map[string][]string {
	out := map[string][]string{}
	for k := range w.need {
		out[k.GroupID] = append(out[k.GroupID], k.UserID)
	}
	return out
}

// collect is the fields of sel that apply to an object of type typ.
func (w *writer) collect(sel ast.SelectionSet, typ string) []graphql.CollectedField {
	fields := w.fields.Collect(sel, typ, w.p.satisfies[typ])
	for i := range fields {
		if fields[i].IsDeferred() {
			panic(unsupported{})
		}
	}
	return fields
}

// value writes what a Group list field's resolver returned.
func (w *writer) value(sel ast.SelectionSet, res any) {
	switch v := res.(type) {
	case *model.MemberConnection:
		if v == nil || v.PageInfo == nil {
			panic(unsupported{})
		}
		w.connection(sel, "MemberConnection", "MemberEdge", len(v.Nodes), v.PageInfo,
			func(i int) store.Cursor { return v.Edges[i].Cursor },
			func(sel ast.SelectionSet, i int) { w.member(sel, &v.Nodes[i]) },
			func(sel ast.SelectionSet, i int) { w.member(sel, v.Edges[i].Node) })
	case *model.ExpenseConnection:
		if v == nil || v.PageInfo == nil {
			panic(unsupported{})
		}
		w.connection(sel, "ExpenseConnection", "ExpenseEdge", len(v.Nodes), v.PageInfo,
			func(i int) store.Cursor { return v.Edges[i].Cursor },
			func(sel ast.SelectionSet, i int) { w.expense(sel, &v.Nodes[i]) },
			func(sel ast.SelectionSet, i int) { w.expense(sel, v.Edges[i].Node) })
	case []model.Balance:
		w.list(len(v), func(i int) { w.balance(sel, &v[i]) })
	case []model.Debt:
		w.list(len(v), func(i int) { w.debt(sel, &v[i]) })
	default:
		panic(unsupported{})
	}
}

// list writes a JSON array of n elements.
func (w *writer) list(n int, elem func(i int)) {
	w.b.OpenList()
	for i := range n {
		w.b.Elem()
		elem(i)
	}
	w.b.CloseList()
}

// object writes an object of type typ as the executor does: each field
// collected from sel under its alias, in order, __typename included; value
// writes the others and reports false for a field the fast path does not
// write.
func (w *writer) object(sel ast.SelectionSet, typ string, value func(f *graphql.CollectedField) bool) {
	w.objectFields(w.collect(sel, typ), typ, value)
}

// objectFields is object with the fields already collected.
func (w *writer) objectFields(fields []graphql.CollectedField, typ string, value func(f *graphql.CollectedField) bool) {
	w.b.OpenObject()
	for i := range fields {
		f := &fields[i]
		w.b.Key(f.Alias)
		if f.Name == "__typename" {
			w.b.String(typ)
		} else if !value(f) {
			panic(unsupported{})
		}
	}
	w.b.CloseObject()
}

// connection writes a page: its edges, nodes and page info.
func (w *writer) connection(sel ast.SelectionSet, typ, edgeType string, n int, info *model.PageInfo,
	cursor func(int) store.Cursor, node, edgeNode func(ast.SelectionSet, int)) {
	w.object(sel, typ, func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "nodes":
			w.list(n, func(i int) { node(f.Selections, i) })
		case "edges":
			w.list(n, func(i int) {
				w.object(f.Selections, edgeType, func(e *graphql.CollectedField) bool {
					switch e.Name {
					case "cursor":
						w.b.String(cursor(i).String())
					case "node":
						edgeNode(e.Selections, i)
					default:
						return false
					}
					return true
				})
			})
		case "pageInfo":
			w.pageInfo(f.Selections, info)
		default:
			return false
		}
		return true
	})
}

func (w *writer) pageInfo(sel ast.SelectionSet, p *model.PageInfo) {
	w.object(sel, "PageInfo", func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "hasNextPage":
			w.b.Bool(p.HasNextPage)
		case "hasPreviousPage":
			w.b.Bool(p.HasPreviousPage)
		case "startCursor":
			w.cursor(p.StartCursor)
		case "endCursor":
			w.cursor(p.EndCursor)
		default:
			return false
		}
		return true
	})
}

func (w *writer) cursor(c *store.Cursor) {
	if c == nil {
		w.b.Null()
		return
	}
	w.b.String(c.String())
}

// member writes a membership.
func (w *writer) member(sel ast.SelectionSet, m *store.Member) {
	if m == nil {
		panic(unsupported{}) // the generic path reports the null
	}
	w.memberFields(w.collect(sel, "Member"), m)
}

func (w *writer) memberFields(fields []graphql.CollectedField, m *store.Member) {
	w.objectFields(fields, "Member", func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "id":
			w.b.Concat(m.GroupID, ":", m.UserID) // memberID
		case "userId":
			w.b.String(m.UserID)
		case "name":
			w.b.String(m.Name)
		case "username":
			w.b.OptString(m.Username)
		case "wallet":
			w.b.OptString(m.Wallet)
		case "avatarUrl":
			if store.IsStoredAvatar(m.AvatarURL) {
				return false // an uploaded picture: its URL is minted (member.resolvers.go)
			}
			w.b.OptString(m.AvatarURL)
		case "joinedAt":
			w.b.Time(m.JoinedAt, scalar.DateTimeLayout)
		case "leftAt":
			w.optTime(m.LeftAt)
		case "placeholder":
			w.b.Bool(m.Placeholder)
		default:
			return false
		}
		return true
	})
}

// memberRef writes the member an object names (a payer, a beneficiary, a
// debt's party) as the member resolver (access.go) finds it: read only when
// more than its id is asked for.
func (w *writer) memberRef(sel ast.SelectionSet, groupID, userID string) {
	fields := w.collect(sel, "Member")
	stub := store.Member{GroupID: groupID, UserID: userID}
	if !collectedBeyond(fields, memberIDFields) {
		w.memberFields(fields, &stub)
		return
	}
	key := store.MemberKey{GroupID: groupID, UserID: userID}
	if w.dry {
		if w.need == nil {
			w.need = map[store.MemberKey]bool{}
		}
		w.need[key] = true
		w.memberFields(fields, &stub)
		return
	}
	w.memberFields(fields, w.members[key])
}

// optTime writes a nullable DateTime.
func (w *writer) optTime(t *time.Time) {
	if t == nil {
		w.b.Null()
		return
	}
	w.b.Time(*t, scalar.DateTimeLayout)
}

// optDecimal writes a nullable Decimal.
func (w *writer) optDecimal(d *money.Decimal) {
	if d == nil {
		w.b.Null()
		return
	}
	w.b.String(d.String())
}

// expense writes an expense with its payers and splits.
func (w *writer) expense(sel ast.SelectionSet, e *store.Expense) {
	if e == nil {
		panic(unsupported{})
	}
	w.object(sel, "Expense", func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "id":
			w.b.String(e.ID)
		case "payer":
			w.memberRef(f.Selections, e.GroupID, e.PayerID)
		case "payers":
			w.list(len(e.Payers), func(i int) {
				p := &e.Payers[i]
				w.part(f.Selections, "Payment", p.ExpenseID, p.GroupID, p.UserID, p.Amount, nil)
			})
		case "amount":
			w.b.String(e.Amount.String())
		case "currency":
			w.b.String(e.Currency().Code())
		case "description":
			w.b.String(e.Description)
		case "category":
			w.b.OptString(e.Category)
		case "splitType":
			w.b.String(splitTypeName(e.SplitType))
		case "splits":
			w.list(len(e.Splits), func(i int) {
				s := &e.Splits[i]
				w.part(f.Selections, "Split", s.ExpenseID, s.GroupID, s.UserID, s.Amount, s)
			})
		case "createdAt":
			w.b.Time(e.CreatedAt, scalar.DateTimeLayout)
		case "spentAt":
			w.b.Time(e.SpentAt, scalar.DateTimeLayout)
		case "spentOn":
			w.b.String(e.SpentOn)
		case "version":
			w.b.Int(e.Version)
		case "deletedAt":
			w.optTime(e.DeletedAt)
		default:
			return false
		}
		return true
	})
}

// splitTypeName is the SplitType enum's GraphQL name.
func splitTypeName(t store.SplitType) string {
	switch t {
	case store.SplitEqual:
		return "EQUAL"
	case store.SplitExact:
		return "EXACT"
	case store.SplitPercentage:
		return "PERCENTAGE"
	case store.SplitShares:
		return "SHARES"
	}
	panic(unsupported{})
}

// part writes a payer (a Payment) or a beneficiary (a Split, which has a
// percentage and shares besides).
func (w *writer) part(sel ast.SelectionSet, typ, expenseID, groupID, userID string, amount money.Amount, split *store.Split) {
	w.object(sel, typ, func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "id":
			w.b.Concat(expenseID, ":", userID) // partID
		case "userId":
			w.b.String(userID)
		case "member":
			w.memberRef(f.Selections, groupID, userID)
		case "amount":
			w.b.String(amount.String())
		case "percentage":
			if split == nil {
				return false
			}
			w.optDecimal(split.Percentage)
		case "shares":
			if split == nil {
				return false
			}
			w.optDecimal(split.Shares)
		default:
			return false
		}
		return true
	})
}

func (w *writer) balance(sel ast.SelectionSet, b *model.Balance) {
	w.object(sel, "Balance", func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "id":
			w.b.String(b.ID())
		case "member":
			w.memberRef(f.Selections, b.GroupID, b.UserID)
		case "currency":
			w.b.String(b.Currency.Code())
		case "paid":
			w.b.String(b.Paid.String())
		case "owed":
			w.b.String(b.Owed.String())
		case "sent":
			w.b.String(b.Sent.String())
		case "received":
			w.b.String(b.Received.String())
		case "net":
			w.b.String(b.Net.String())
		default:
			return false
		}
		return true
	})
}

func (w *writer) debt(sel ast.SelectionSet, d *model.Debt) {
	w.object(sel, "Debt", func(f *graphql.CollectedField) bool {
		switch f.Name {
		case "id":
			w.b.String(d.ID())
		case "from":
			w.memberRef(f.Selections, d.GroupID, d.FromID)
		case "to":
			w.memberRef(f.Selections, d.GroupID, d.ToID)
		case "amount":
			w.b.String(d.Amount.String())
		case "currency":
			w.b.String(d.Currency().Code())
		default:
			return false
		}
		return true
	})
}
