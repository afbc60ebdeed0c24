package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/fracti/api/payments"
	"github.com/fracti/api/store"
)

// ExportMePath is where the signed-in person's own data is served (GDPR
// article 20): GET /export/me.json.
const ExportMePath = "/export/me.json"

// exportMeHandler serves ExportMePath: everything the server holds about the
// signed-in person, across groups, streamed element by element as it is
// read (a page of the table at a time, one json.Encoder call per element),
// so that memory stays flat however long their history. Credentials, scope,
// quota and failures are answered as for a group's export (exportHandler).
type exportMeHandler struct{ exportHandler }

// The elements of the document (docs/export.md#your-own-data-exportmejson).
type (
	meProfile struct {
		Name      string    `json:"name"`
		Username  string    `json:"username,omitempty"`
		PhotoURL  string    `json:"photoUrl,omitempty"`
		UpdatedAt time.Time `json:"updatedAt"`
		// PaymentHandles are the default payment handles, absent when none.
		PaymentHandles *meHandles `json:"paymentHandles,omitempty"`
	}
	// meHandles are payment handles as stored (docs/payments.md).
	meHandles struct {
		IBAN          string `json:"iban,omitempty"`
		BIC           string `json:"bic,omitempty"`
		AccountHolder string `json:"accountHolder,omitempty"`
		UPI           string `json:"upi,omitempty"`
		Pix           string `json:"pix,omitempty"`
		PixType       string `json:"pixType,omitempty"`
		PixCity       string `json:"pixCity,omitempty"`
		Revolut       string `json:"revolut,omitempty"`
		PayPal        string `json:"paypal,omitempty"`
		Other         string `json:"other,omitempty"`
	}
	meToken struct {
		ID         string     `json:"id"`
		Label      string     `json:"label"`
		Scopes     []string   `json:"scopes"`
		CreatedAt  time.Time  `json:"createdAt"`
		ExpiresAt  *time.Time `json:"expiresAt"`
		LastUsedOn string     `json:"lastUsedOn,omitempty"`
	}
	meMembership struct {
		GroupID    string     `json:"groupId"`
		GroupTitle string     `json:"groupTitle"`
		Name       string     `json:"name"`
		Username   string     `json:"username,omitempty"`
		Wallet     string     `json:"wallet,omitempty"`
		AvatarURL  string     `json:"avatarUrl,omitempty"`
		JoinedAt   time.Time  `json:"joinedAt"`
		LeftAt     *time.Time `json:"leftAt"`
		ErasedAt   *time.Time `json:"erasedAt,omitempty"`
		Language   string     `json:"language,omitempty"`
		Muted      bool       `json:"muted"`
		Digest     string     `json:"digest"`
		// PaymentHandles are the membership's own payment handles, absent
		// when the group shows the default.
		PaymentHandles *meHandles `json:"paymentHandles,omitempty"`
	}
	mePart struct {
		UserID string `json:"userId"`
		Name   string `json:"name"`
		Amount string `json:"amount"`
	}
	meExpense struct {
		ID          string     `json:"id"`
		Description string     `json:"description"`
		Category    string     `json:"category,omitempty"`
		Amount      string     `json:"amount"`
		Currency    string     `json:"currency"`
		SpentAt     time.Time  `json:"spentAt"`
		CreatedAt   time.Time  `json:"createdAt"`
		CreatedBy   string     `json:"createdBy,omitempty"`
		Payers      []mePart   `json:"payers"`
		Splits      []mePart   `json:"splits"`
		DeletedAt   *time.Time `json:"deletedAt,omitempty"`
	}
	meSettlement struct {
		ID          string     `json:"id"`
		From        mePart     `json:"from"`
		To          mePart     `json:"to"`
		Currency    string     `json:"currency"`
		Status      string     `json:"status"`
		TxHash      string     `json:"txHash,omitempty"`
		CreatedAt   time.Time  `json:"createdAt"`
		CompletedAt *time.Time `json:"completedAt"`
	}
	meComment struct {
		ID        string     `json:"id"`
		ExpenseID string     `json:"expenseId"`
		Body      string     `json:"body"`
		CreatedAt time.Time  `json:"createdAt"`
		DeletedAt *time.Time `json:"deletedAt,omitempty"`
	}
	meEvent struct {
		Sequence int64      `json:"sequence"`
		Type     string     `json:"type"`
		ActorID  string     `json:"actorId"`
		At       time.Time  `json:"at"`
		Subject  string     `json:"subject"`
		Changes  []meChange `json:"changes"`
	}
	meChange struct {
		Field  string  `json:"field"`
		Before *string `json:"before"`
		After  *string `json:"after"`
	}
)

func (h exportMeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	defer func() { noteRequest(ctx, "export", "me") }()
	w.Header().Set("Cache-Control", "no-store")
	id, ok := h.caller(w, r)
	if !ok {
		return
	}
	me := id.UserKey()
	// The first reads are made before the answer starts, so that a failure
	// there is still a clean 503 or 500.
	memberships, err := h.store.UserMemberships(ctx, me)
	if err != nil {
		h.failed(ctx, w, err)
		return
	}
	w.Header().Set("Content-Type", exportMedia["json"])
	w.Header().Set("Content-Disposition", `attachment; filename="fracti-me.json"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	rc := http.NewResponseController(w)
	started := &startedWriter{ResponseWriter: w}
	x := meExport{s: h.store, w: started, enc: json.NewEncoder(started), me: me, flush: func() { _ = rc.Flush() }}
	if err = x.write(ctx, memberships, h.clock()); err == nil {
		return
	}
	if !started.started {
		w.Header().Del("Content-Disposition")
		h.failed(ctx, w, err)
		return
	}
	h.log.ErrorContext(ctx, "export of own data failed midway", "error", err.Error())
	panic(http.ErrAbortHandler)
}

// meExport writes one person's document.
type meExport struct {
	s     *store.Store
	w     io.Writer
	enc   *json.Encoder
	me    string
	flush func()
	err   error
}

// raw writes s as it is; encode writes one element (json.Encoder ends it
// with a newline, which JSON allows between tokens).
func (x *meExport) raw(s string) {
	if x.err == nil {
		_, x.err = io.WriteString(x.w, s)
	}
}

func (x *meExport) encode(v any) {
	if x.err == nil {
		x.err = x.enc.Encode(v)
	}
}

// list writes a JSON array of what each calls yield with, read page by page.
func (x *meExport) list(name string, each func(yield func(any)) error) {
	x.raw(`,"` + name + `":[`)
	n := 0
	err := each(func(v any) {
		if n > 0 {
			x.raw(",")
		}
		n++
		x.encode(v)
	})
	if x.err == nil {
		x.err = err
	}
	x.raw("]")
	x.flush()
}

func (x *meExport) write(ctx context.Context, memberships []store.Member, now time.Time) error {
	x.raw(`{"format":"fracti-me-1","exportedAt":`)
	x.encode(now.UTC())
	x.raw(`,"userId":`)
	x.encode(x.me)
	x.raw(`,"profile":`)
	switch p, err := x.s.GetUserProfile(ctx, x.me); {
	case err == nil:
		x.encode(meProfile{Name: p.Name, Username: p.Username, PhotoURL: p.PhotoURL, UpdatedAt: p.UpdatedAt,
			PaymentHandles: meHandlesOf(p.PaymentHandles)})
	case errors.Is(err, store.ErrNotFound):
		x.raw("null")
	default:
		return err
	}
	x.list("accessTokens", func(yield func(any)) error {
		tokens, err := x.s.ListUserTokens(ctx, x.me)
		for _, t := range tokens {
			mt := meToken{ID: t.ID, Label: t.Label, Scopes: t.Scopes, CreatedAt: t.CreatedAt, LastUsedOn: t.LastUsedAt}
			if !t.ExpiresAt.IsZero() {
				mt.ExpiresAt = &t.ExpiresAt
			}
			yield(mt)
		}
		return err
	})
	ids := make([]string, len(memberships))
	for i, m := range memberships {
		ids[i] = m.GroupID
	}
	groups, err := x.s.GetGroups(ctx, ids)
	if err != nil {
		return err
	}
	x.list("memberships", func(yield func(any)) error {
		for i, m := range memberships {
			mm := meMembership{
				GroupID: m.GroupID, Name: m.Name, Username: m.Username, Wallet: m.Wallet, AvatarURL: m.AvatarURL,
				JoinedAt: m.JoinedAt, LeftAt: m.LeftAt, ErasedAt: m.ErasedAt, Language: m.Language, Muted: m.Muted, Digest: string(m.Digest),
				PaymentHandles: meHandlesOf(m.PaymentHandles),
			}
			if groups[i] != nil {
				mm.GroupTitle = groups[i].Title
			}
			yield(mm)
		}
		return nil
	})
	x.raw(`,"groups":[`)
	for i, m := range memberships {
		if i > 0 {
			x.raw(",")
		}
		x.raw(`{"groupId":`)
		x.encode(m.GroupID)
		x.group(ctx, m.GroupID)
		x.raw("}")
	}
	x.raw("]}\n")
	return x.err
}

// group writes the expenses the person paid or shares in, the settlements
// they are party to, the comments they wrote and the events they acted in
// or are the subject of, in one group.
func (x *meExport) group(ctx context.Context, groupID string) {
	x.list("expenses", func(yield func(any)) error {
		return store.EachPage(ctx, func(a store.PageArgs) (store.Page[store.Expense], error) {
			return x.s.ListExpensesOldestFirst(ctx, groupID, a)
		}, func(e *store.Expense) {
			if slices.Contains(e.InvolvedUsers(), x.me) {
				yield(meExpenseOf(e))
			}
		})
	})
	x.list("settlements", func(yield func(any)) error {
		return store.EachPage(ctx, func(a store.PageArgs) (store.Page[store.Settlement], error) {
			return x.s.ListSettlementsOldestFirst(ctx, groupID, a)
		}, func(st *store.Settlement) {
			if st.FromUserID == x.me || st.ToUserID == x.me {
				yield(meSettlement{
					ID: st.ID, Currency: st.Amount.Currency().Code(), Status: string(st.Status), TxHash: st.TxHash,
					From:      mePart{UserID: st.FromUserID, Name: st.FromUserName, Amount: st.Amount.String()},
					To:        mePart{UserID: st.ToUserID, Name: st.ToUserName, Amount: st.Amount.String()},
					CreatedAt: st.CreatedAt, CompletedAt: st.CompletedAt,
				})
			}
		})
	})
	x.list("comments", func(yield func(any)) error {
		return store.EachPage(ctx, func(a store.PageArgs) (store.Page[store.Comment], error) {
			return x.s.ListGroupComments(ctx, groupID, a)
		}, func(c *store.Comment) {
			if c.AuthorID == x.me {
				yield(meComment{ID: c.ID, ExpenseID: c.ExpenseID, Body: c.Body, CreatedAt: c.CreatedAt, DeletedAt: c.DeletedAt})
			}
		})
	})
	x.list("events", func(yield func(any)) error {
		return store.EachPage(ctx, func(a store.PageArgs) (store.Page[store.Event], error) {
			return x.s.ListEvents(ctx, groupID, a)
		}, func(ev *store.Event) {
			if ev.ActorID == x.me || (ev.Subject.Kind == store.SubjectMember && ev.Subject.ID == x.me) {
				yield(meEvent{Sequence: ev.Seq, Type: string(ev.Type), ActorID: ev.ActorID, At: ev.At,
					Subject: string(ev.Subject.Kind) + ":" + ev.Subject.ID, Changes: meChanges(ev.Changes)})
			}
		})
	})
}

func meChanges(cs []store.Change) []meChange {
	out := make([]meChange, len(cs))
	for i, c := range cs {
		out[i] = meChange{Field: c.Field, Before: c.Before, After: c.After}
	}
	return out
}

func meExpenseOf(e *store.Expense) meExpense {
	out := meExpense{
		ID: e.ID, Description: e.Description, Category: e.Category, Amount: e.Amount.String(),
		Currency: e.Amount.Currency().Code(), SpentAt: e.SpentAt, CreatedAt: e.CreatedAt, CreatedBy: e.CreatedBy,
		DeletedAt: e.DeletedAt, Payers: []mePart{}, Splits: []mePart{},
	}
	for _, p := range e.Payers {
		out.Payers = append(out.Payers, mePart{UserID: p.UserID, Name: p.UserName, Amount: p.Amount.String()})
	}
	for _, sp := range e.Splits {
		out.Splits = append(out.Splits, mePart{UserID: sp.UserID, Name: sp.UserName, Amount: sp.Amount.String()})
	}
	return out
}

// meHandlesOf is h as the export writes it; nil for none.
func meHandlesOf(h *payments.Handles) *meHandles {
	if h == nil {
		return nil
	}
	return &meHandles{
		IBAN: h.IBAN, BIC: h.BIC, AccountHolder: h.AccountHolder, UPI: h.UPI, Pix: h.Pix, PixType: string(h.PixType),
		PixCity: h.PixCity, Revolut: h.Revolut, PayPal: h.PayPal, Other: h.Other,
	}
}
