package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/exchange/fractijson"
	"github.com/fracti/api/exchange/spliit"
	"github.com/fracti/api/exchange/splitwise"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// importCallBudget replaces the request's DynamoDB call budget for an
// import: one transaction per batch of up to 100 items, and the reads to
// plan them.
const importCallBudget = 20000

// importReaders read each format into a Plan, given the most people the
// import can write; a format without one is refused as BAD_USER_INPUT.
// A Splitwise file is refused at its header or first wide row when it
// names more people than that (a JSON reader's memory is bounded by the
// file's already): a 10 MiB file of 10,000 member columns would otherwise
// be read into hundreds of MiB first.
var importReaders = map[model.ImportFormat]func(r io.Reader, maxPeople int) (*exchange.Plan, error){
	model.ImportFormatFractiJSON: func(r io.Reader, _ int) (*exchange.Plan, error) { return fractijson.Read(r) },
	model.ImportFormatSplitwiseCSV: func(r io.Reader, maxPeople int) (*exchange.Plan, error) {
		return splitwise.ReadWith(r, splitwise.ReadOptions{MaxPeople: maxPeople, MaxParts: store.MaxImportParts, MaxCells: store.MaxImportShares})
	},
	model.ImportFormatSpliitJSON: func(r io.Reader, _ int) (*exchange.Plan, error) { return spliit.Read(r) },
}

// importMaxPeople is the most people a file imported into the group
// groupID names (nil: a new group) can map to: its members and the
// placeholders one import adds. A non-member's group is NOT_FOUND.
func importMaxPeople(ctx context.Context, groupID *string) (int, error) {
	if groupID == nil {
		return 1 + store.MaxImportPlaceholders, nil
	}
	g, err := visibleGroup(ctx, *groupID)
	if err != nil || g == nil {
		return 0, orNotFound(err, "group")
	}
	return g.MemberCount + store.MaxImportPlaceholders, nil
}

// readImport reads the uploaded file: its Plan, and the hash that names
// the import (of the format and the file's bytes).
func readImport(format model.ImportFormat, file io.Reader, maxPeople int) (*exchange.Plan, string, error) {
	read := importReaders[format]
	if read == nil {
		return nil, "", badInput("input.format", "%s files cannot be imported by this server yet", format)
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return nil, "", badInput("input.file", "the file could not be read: %v", err)
	}
	// The hash of the format and the file, without a copy of the file.
	h := sha256.New()
	h.Write([]byte(string(format) + "\x00"))
	h.Write(data)
	sum := h.Sum(nil)
	plan, err := read(bytes.NewReader(data), maxPeople)
	if err != nil {
		return nil, "", problemError(exchange.AsProblem(err))
	}
	if err := checkPlanText(plan); err != nil {
		return nil, "", err
	}
	return plan, hex.EncodeToString(sum), nil
}

// checkPlanText holds the file's text to the rules the mutations that
// write the same fields apply (no control characters, the same lengths):
// a name becomes a placeholder's (addPlaceholderMember), a description and
// category an expense's (createExpense), a body a comment's (addComment),
// a transaction hash a settlement's. Otherwise a description of 300 KB
// would fail its batch's transaction (an item's 400 KB) as an internal
// error, after the batches before it were written into an existing group.
func checkPlanText(plan *exchange.Plan) error {
	refuse := func(line int, field string, err error) error {
		var ge *gqlerror.Error
		msg := err.Error()
		if errors.As(err, &ge) {
			msg = ge.Message
		}
		return problemError(&exchange.Problem{Line: line, Field: field, Message: msg, Severity: exchange.Error})
	}
	for _, p := range plan.People {
		if _, err := text(fmt.Sprintf("name %q", p.Name), p.Name, 1, maxNameLength); err != nil {
			return refuse(0, "people.name", err)
		}
	}
	checkOriginal := func(line int, field string, o *exchange.Original) error {
		if o == nil {
			return nil
		}
		for _, v := range []string{o.RateSource, o.RateDate} {
			if _, err := text(field, v, 0, 64); err != nil {
				return refuse(line, field, err)
			}
		}
		return nil
	}
	for i := range plan.Expenses {
		e := &plan.Expenses[i]
		var err error
		if e.Description, err = text("description", e.Description, 0, maxDescriptionLength); err != nil {
			return refuse(e.Line, "expenses.description", err)
		}
		if e.Category, err = text("category", e.Category, 0, maxCategoryLength); err != nil {
			return refuse(e.Line, "expenses.category", err)
		}
		if err := checkOriginal(e.Line, "expenses.original", e.Original); err != nil {
			return err
		}
		if err := checkPlanItems(e); err != nil {
			return refuse(e.Line, "expenses.items", err)
		}
	}
	for i := range plan.Settlements {
		st := &plan.Settlements[i]
		if st.TxHash != "" && !txHashPattern.MatchString(st.TxHash) {
			return refuse(st.Line, "settlements.txHash", errors.New(txHashRule))
		}
		if err := checkOriginal(st.Line, "settlements.settles", st.Settles); err != nil {
			return err
		}
		for j := range st.Parts {
			if err := checkOriginal(st.Line, "settlements.parts", &st.Parts[j]); err != nil {
				return err
			}
		}
	}
	for i := range plan.Comments {
		c := &plan.Comments[i]
		if c.Deleted {
			continue
		}
		body, err := text("body", c.Body, 1, maxCommentLength)
		if err != nil {
			return refuse(c.Line, "comments.body", err)
		}
		c.Body = body
	}
	return nil
}

// problemError is BAD_USER_INPUT naming the file's line and field.
func problemError(p *exchange.Problem) *gqlerror.Error {
	e := codedError(CodeBadUserInput, "input.file: "+p.Error())
	e.Extensions["line"] = p.Line
	e.Extensions["field"] = "input.file"
	if p.Field != "" {
		e.Extensions["field"] = p.Field
	}
	if p.Field == "members" {
		e.Message, e.Extensions["field"] = "input.members: "+p.Message, "input.members"
	}
	return e
}

// importTarget is the group to import into, or for a new group its title
// and currency (the input's, else the file's).
func importTarget(ctx context.Context, input model.ImportGroupInput, plan *exchange.Plan) (store.ImportInput, error) {
	in := store.ImportInput{Importer: newMember(ctx)}
	if input.GroupID != nil {
		g, err := visibleGroup(ctx, *input.GroupID)
		if err != nil || g == nil {
			return in, orNotFound(err, "group")
		}
		if err := g.Writable(); err != nil {
			return in, err // refused before any batch is written, not at the last
		}
		in.GroupID = g.ID
	} else {
		title := plan.Title
		if input.Title != nil {
			title = *input.Title
		}
		if title == "" {
			return in, badInput("input.title", "the file has no title: give one")
		}
		t, err := text("input.title", title, 1, maxTitleLength)
		if err != nil {
			return in, err
		}
		code := plan.Currency
		if input.Currency != nil {
			code = *input.Currency
		}
		if code == "" {
			return in, badInput("input.currency", "the file has no currency: give one")
		}
		cur, err := money.LookupCurrency(code)
		if err != nil {
			return in, moneyError("input.currency", err)
		}
		in.Title, in.Currency = t, cur
	}
	in.Members = map[string]string{}
	for i, m := range input.Members {
		if _, dup := in.Members[m.Name]; dup {
			return in, badInput(fmt.Sprintf("input.members[%d].name", i), "%q is mapped twice", m.Name)
		}
		in.Members[m.Name] = m.UserID
	}
	return in, nil
}

// importReport turns the store's result into the report, loading the
// members it names (a dry run's new ones are made up, to be shown).
func importReport(ctx context.Context, in store.ImportInput, res store.ImportResult) (*model.ImportReport, error) {
	out := &model.ImportReport{
		Expenses: res.Expenses, Settlements: res.Settlements, Comments: res.Comments,
		DryRun: in.DryRun && !res.AlreadyImported, AlreadyImported: res.AlreadyImported,
		Members: []model.ImportedMember{}, Balances: []model.Balance{}, Problems: []model.ImportProblem{},
	}
	written := !out.DryRun
	if written {
		loaders.Wrote(ctx, res.GroupID)
		g, err := visibleGroup(ctx, res.GroupID)
		if err != nil {
			return nil, err
		}
		if g == nil {
			// The importer's earlier import of this file made a group they
			// have since left: what it holds is no longer theirs to see.
			return nil, conflict("this file was imported before into a group you are no longer in")
		}
		out.Group = g
	} else if in.GroupID != "" {
		out.Group, _ = loaders.Group(ctx, in.GroupID)
	}
	if !written && in.GroupID == "" {
		// The new group's first member, as it will be.
		loaders.PrimeMember(ctx, &store.Member{GroupID: res.GroupID, UserID: in.Importer.UserID, Name: in.Importer.Name})
	}
	for _, m := range res.Members {
		im := model.ImportedMember{Name: m.Name, Matched: model.ImportMatch(m.Match)}
		if written || m.Match == store.ImportExistingMember {
			mem, err := loaders.Member(ctx, res.GroupID, m.MemberID)
			if err != nil {
				return nil, err
			}
			im.Member = mem
		} else {
			// Not written yet: its balance is still shown under the id it will have.
			loaders.PrimeMember(ctx, &store.Member{GroupID: res.GroupID, UserID: m.MemberID, Name: m.Name, Placeholder: true, AddedBy: in.Importer.UserID})
		}
		out.Members = append(out.Members, im)
	}
	for _, b := range res.Books {
		users := make([]string, 0, len(b.Users))
		for u := range b.Users {
			users = append(users, u)
		}
		slices.Sort(users)
		for _, u := range users {
			out.Balances = append(out.Balances, balance(res.GroupID, u, b))
		}
	}
	for _, p := range res.Problems {
		mp := model.ImportProblem{Line: p.Line, Message: p.Message, Severity: model.ImportProblemSeverity(p.Severity)}
		if p.Field != "" {
			mp.Field = &p.Field
		}
		out.Problems = append(out.Problems, mp)
	}
	return out, nil
}

// importError explains a refused import.
func importError(err error) error {
	var p *exchange.Problem
	if errors.As(err, &p) {
		return problemError(p)
	}
	return err
}
