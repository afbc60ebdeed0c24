package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/exchange"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// An import writes a whole file's expenses and settlements into a group in
// batches, each one TransactWriteItems of at most 100 items, behind an
// import record (GROUP#<groupId> / IMPORT#<fileHash>) that every batch
// advances in the same transaction: a batch lands exactly once, and the
// same import run again after a failure continues at the record's next
// batch. Every id the import writes is derived from (group, file hash, the
// Plan's key), so a retried batch writes the same items and their
// attribute_not_exists conditions let nothing be created twice.
//
// Members see an import whole or not at all. The batches before the last
// write only the file's own items (placeholders, expenses with their
// participant records and first revisions, settlements, comments) and the
// spending of their days. The last batch writes the rest of the items and
// everything that makes them count, in one transaction: the books (each
// currency's book rewritten as it stands plus the whole file's effect), the
// ledger (the new placeholders, the currencies, the version, the one
// GROUP_IMPORTED event on the activity chain) and the record completed.
//
// Until then nothing of it can be seen:
//   - A new group is reachable only through its METADATA and its members'
//     memberships (GSI1), and the last batch writes those with its ledger
//     and its first two events (GROUP_CREATED, GROUP_IMPORTED).
//   - In an existing group every item the import writes carries its hash
//     (attrImport), its spending goes to its own part of each day's summary
//     (spendImportSK), and every read leaves out the items of an import
//     whose record is not complete (import_gate.go).

// ImportMatch says how a name in a file became a member.
type ImportMatch string

// The ways a name is matched.
const (
	ImportExistingMember ImportMatch = "EXISTING_MEMBER"
	ImportNewPlaceholder ImportMatch = "NEW_PLACEHOLDER"
)

// ImportInput is one import of a file into a group.
type ImportInput struct {
	// GroupID is the group to import into; "" creates a group, titled Title
	// in Currency.
	GroupID  string
	Title    string
	Currency money.Currency
	// Importer is the member who imports (the new group's first member).
	Importer NewMember
	// FileHash names the import: the hex SHA-256 of the format and the file.
	FileHash string
	Plan     *exchange.Plan
	// Members maps names in the file to members the importer chose.
	Members map[string]string
	// DryRun computes the report and writes nothing.
	DryRun bool
}

// ImportedMember is how one name in the file was matched.
type ImportedMember struct {
	Name     string
	MemberID string
	Match    ImportMatch
}

// ImportResult is what an import did, or in a dry run would do.
type ImportResult struct {
	GroupID     string
	Expenses    int
	Settlements int
	Comments    int
	Members     []ImportedMember
	// Books are the group's balances after the import, one per currency.
	Books    []*ledger.Book
	Problems []exchange.Problem
	// AlreadyImported: this file was imported into the group before, and
	// nothing was written now.
	AlreadyImported bool
}

// ImportGroupID is the id of the group an importer's import of a file
// creates: derived from both, so that running the same import again
// resumes or finds that one group.
func ImportGroupID(importerID, fileHash string) string {
	return derivedID("group", importerID, fileHash)
}

// importState is where an import record says the import is.
const (
	importRunning  = "running"
	importComplete = "complete"
)

// importScheme is how this server writes an import: a record of an
// earlier way (its batches moved the books one by one) cannot be resumed.
const importScheme = 2

// importRecord is the GROUP#<groupId> / IMPORT#<fileHash> item.
type importRecord struct {
	itemKey
	State       string            `dynamodbav:"state"`
	Next        int               `dynamodbav:"next"`
	Batches     int               `dynamodbav:"batches"`
	Expenses    int               `dynamodbav:"expenses"`
	Settlements int               `dynamodbav:"settlements"`
	Comments    int               `dynamodbav:"comments"`
	By          string            `dynamodbav:"by"`
	StartedAt   string            `dynamodbav:"startedAt"`
	CompletedAt string            `dynamodbav:"completedAt,omitempty"`
	Members     map[string]string `dynamodbav:"members"`
	Title       string            `dynamodbav:"title,omitempty"`
	Currency    string            `dynamodbav:"currency,omitempty"`
	Scheme      int               `dynamodbav:"scheme,omitempty"`
}

// Attributes of the import record that expressions name.
const (
	attrImportNext  = "next"
	attrImportState = "state"
)

// derivedID is a UUID-shaped id derived from its parts, the same every time.
func derivedID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h := hex.EncodeToString(sum[:16])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// importPlaceholderID is the id of the placeholder an import creates for a name.
func importPlaceholderID(groupID, fileHash, name string) string {
	return prefixedID(PlaceholderPrefix, derivedID("member", groupID, fileHash, name))
}

// importRun is one import being planned and written.
type importRun struct {
	s        *Store
	in       ImportInput
	groupID  string
	group    *Group // nil for a new group
	newGroup Group  // the group a new-group import creates
	rec      importRecord
	members  map[string]*Member // current members by id
	names    map[string]string  // file name -> member id
	result   ImportResult
	started  time.Time
	zone     string
}

// mark is the hash an existing group's imported items carry until the
// import completes (import_gate.go); "" for a new group, which nobody
// reaches before then anyway.
func (r *importRun) mark() string {
	if r.in.GroupID == "" {
		return ""
	}
	return r.in.FileHash
}

// ImportGroup imports a Plan into a group (see the comment at the top of
// the file). A file error, a name mapped to someone who is not a member, or
// two members a name could equally mean, is an *exchange.Problem with
// nothing written. The caller checks that the importer may see the group.
func (s *Store) ImportGroup(ctx context.Context, in ImportInput) (ImportResult, error) {
	r := &importRun{s: s, in: in, groupID: in.GroupID, started: s.stamp()}
	if r.groupID == "" {
		r.groupID = ImportGroupID(in.Importer.UserID, in.FileHash)
	}
	r.result.GroupID = r.groupID
	rec, found, err := s.readImport(ctx, r.groupID, in.FileHash)
	if err != nil {
		return ImportResult{}, err
	}
	if err := r.load(ctx, found); err != nil {
		return ImportResult{}, err
	}
	for name, id := range in.Members {
		if !r.isMember(id) {
			return ImportResult{}, &exchange.Problem{Field: "members", Message: fmt.Sprintf("%q is mapped to %s, who is not a member of the group", name, id), Severity: exchange.Error}
		}
	}
	if found {
		r.rec = rec
		if r.started, err = parseTime(rec.StartedAt); err != nil {
			return ImportResult{}, fmt.Errorf("import record startedAt: %w", err)
		}
		if rec.State == importComplete {
			return r.completed(ctx)
		}
		if rec.Scheme != importScheme {
			return ImportResult{}, conflictf("import %s was started by an earlier version of the server, which wrote it differently; it cannot be resumed", in.FileHash)
		}
	}
	if err := r.mapNames(found); err != nil {
		return ImportResult{}, err
	}
	if in.GroupID == "" {
		r.newGroup = r.groupToCreate()
	}
	batches, err := r.build()
	if err != nil {
		return ImportResult{}, err
	}
	if err := r.report(ctx, batches); err != nil {
		return ImportResult{}, err
	}
	if in.DryRun {
		return r.result, nil
	}
	if !found {
		r.rec = importRecord{
			itemKey: itemKey{PK: groupPK(r.groupID), SK: importSK(in.FileHash)},
			State:   importRunning, Batches: len(batches), By: in.Importer.UserID, StartedAt: formatTime(r.started),
			Expenses: r.result.Expenses, Settlements: r.result.Settlements, Comments: r.result.Comments,
			Members: r.names, Title: r.newGroup.Title, Scheme: importScheme,
		}
		if in.GroupID == "" {
			r.rec.Currency = r.newGroup.Currency.Code()
		}
	}
	if r.rec.Batches != len(batches) {
		return ImportResult{}, conflictf("import %s was started from a different reading of the file (%d batches, now %d)", in.FileHash, r.rec.Batches, len(batches))
	}
	for k := r.rec.Next; k < len(batches); k++ {
		if err := r.write(ctx, batches, k); err != nil {
			return ImportResult{}, err
		}
	}
	return r.result, nil
}

// readImport reads the import record, strongly consistent.
func (s *Store) readImport(ctx context.Context, groupID, fileHash string) (importRecord, bool, error) {
	item, found, err := s.getItem(ctx, groupPK(groupID), importSK(fileHash), true)
	if err != nil || !found {
		return importRecord{}, false, err
	}
	var rec importRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return importRecord{}, false, fmt.Errorf("decode import record: %w", err)
	}
	return rec, true, nil
}

// load reads the group and its current members (for a new group being
// resumed, the placeholders its first batch wrote).
func (r *importRun) load(ctx context.Context, found bool) error {
	r.members = map[string]*Member{}
	if r.in.GroupID != "" {
		groups, err := r.s.GetGroups(ctx, []string{r.groupID})
		if err != nil {
			return err
		}
		if groups[0] == nil {
			return notFoundf("group %s", r.groupID)
		}
		r.group, r.zone = groups[0], groups[0].TimeZone
	}
	if r.in.GroupID == "" && !found {
		return nil
	}
	return eachPage(ctx, func(a PageArgs) (Page[Member], error) { return r.s.ListMembers(ctx, r.groupID, a) }, func(m *Member) {
		if m.Active() {
			r.members[m.UserID] = m
		}
	})
}

// mapNames matches every name in the file to a member: the importer's
// choice first; then, when resuming, what the record says; then the one
// current member whose name is the same trimmed and ignoring case; else a
// new placeholder.
func (r *importRun) mapNames(found bool) error {
	r.names = map[string]string{}
	if found {
		r.names = r.rec.Members
	}
	for _, p := range r.in.Plan.People {
		if _, ok := r.names[p.Name]; ok && found {
			continue
		}
		if id, ok := r.in.Members[p.Name]; ok {
			r.names[p.Name] = id
			continue
		}
		var same []string
		for id, m := range r.existing() {
			if strings.EqualFold(strings.TrimSpace(m.Name), strings.TrimSpace(p.Name)) {
				same = append(same, id)
			}
		}
		switch len(same) {
		case 0:
			r.names[p.Name] = importPlaceholderID(r.groupID, r.in.FileHash, p.Name)
		case 1:
			r.names[p.Name] = same[0]
		default:
			slices.Sort(same)
			return &exchange.Problem{Field: "members", Message: fmt.Sprintf("%q could be any of the members %s: map it in members", p.Name, strings.Join(same, ", ")), Severity: exchange.Error}
		}
	}
	for _, p := range r.in.Plan.People {
		id := r.names[p.Name]
		match := ImportExistingMember
		if id == importPlaceholderID(r.groupID, r.in.FileHash, p.Name) {
			match = ImportNewPlaceholder
		}
		r.result.Members = append(r.result.Members, ImportedMember{Name: p.Name, MemberID: id, Match: match})
	}
	return nil
}

// existing is the group's members as they were before the import: for a
// new group, the importer alone.
func (r *importRun) existing() map[string]*Member {
	if r.in.GroupID == "" {
		return map[string]*Member{r.in.Importer.UserID: {GroupID: r.groupID, UserID: r.in.Importer.UserID, Name: r.in.Importer.Name}}
	}
	return r.members
}

func (r *importRun) isMember(id string) bool {
	_, ok := r.existing()[id]
	return ok
}

// groupToCreate is the group a new-group import creates.
func (r *importRun) groupToCreate() Group {
	no := false
	g := Group{
		ID: r.groupID, Title: r.in.Title, Currency: r.in.Currency, CreatedAt: r.started,
		MemberCount: 1, SettlementConfirmation: ConfirmByRecipient, Version: 1, JoinByID: &no, RolesKept: true,
		DaysKept: true,
	}
	if r.rec.Title != "" {
		g.Title = r.rec.Title
	}
	if r.rec.Currency != "" {
		if c, err := money.LookupCurrency(r.rec.Currency); err == nil {
			g.Currency = c
		}
	}
	for _, m := range r.result.Members {
		if m.Match == ImportNewPlaceholder {
			g.MemberCount++
		}
	}
	return g
}

// importBatch is one transaction's worth of an import.
type importBatch struct {
	puts     []any
	deltas   map[money.Currency]ledger.Delta
	spending map[spendKey]figures
	involved []string
	// expenses, settlements and comments count what the batch writes.
	expenses, settlements, comments int
}

// size is the batch's transaction items: its own and the import record.
// Its deltas are not among them: the last batch writes the whole file's.
func (b *importBatch) size() int { return len(b.puts) + len(b.spending) + 1 }

// MaxImportPlaceholders is the most new people one import adds: they join
// in its first batch, beside its own items.
const MaxImportPlaceholders = maxTransactItems - 6

// MaxImportParts is the most people one imported row may involve: the
// expense, its first revision, its day item and a participant record each
// fit one batch.
const MaxImportParts = MaxExpenseParticipants - 1

// MaxImportShares is the most payers and shares (a person's part in an
// expense or settlement) one import writes: a 5,000-expense group of 20
// people. It bounds the items an import builds in memory before writing,
// about one per share.
const MaxImportShares = 100_000

// finishItems is what the last batch writes beside its own items and the
// record, one book per currency aside: the ledger, two events (a new
// group's GROUP_CREATED and the GROUP_IMPORTED) and the METADATA with, for
// a new group, the importer's membership.
const finishItems = 4

// build turns the Plan into batches: the new placeholders first, then the
// expenses and settlements in the file's order.
func (r *importRun) build() ([]*importBatch, error) {
	batches := []*importBatch{newImportBatch()}
	cur := batches[0]
	for _, m := range r.result.Members {
		if m.Match != ImportNewPlaceholder {
			continue
		}
		cur.puts = append(cur.puts, memberRecord{
			itemKey: itemKey{PK: groupPK(r.groupID), SK: memberSK(m.MemberID)},
			ID:      m.MemberID, Name: m.Name, JoinedAt: formatTime(r.started),
			Placeholder: true, AddedBy: r.in.Importer.UserID, FormatVersion: formatCurrent,
		})
		cur.involved = append(cur.involved, m.MemberID)
	}
	if len(cur.puts) > MaxImportPlaceholders {
		return nil, &exchange.Problem{Field: "members", Message: fmt.Sprintf("the file names %d new people; one import adds at most %d", len(cur.puts), MaxImportPlaceholders), Severity: exchange.Error}
	}
	add := func(line int, unit *importBatch) error {
		if cur.size()+unitGrowth(cur, unit) > maxTransactItems {
			cur = newImportBatch()
			batches = append(batches, cur)
			if cur.size()+unitGrowth(cur, unit) > maxTransactItems {
				return &exchange.Problem{Line: line, Message: "this row involves too many people for one transaction", Severity: exchange.Error}
			}
		}
		return cur.merge(unit)
	}
	shares := 0
	for i := range r.in.Plan.Expenses {
		pe := &r.in.Plan.Expenses[i]
		if shares += len(pe.Payers) + len(pe.Splits); shares > MaxImportShares {
			return nil, &exchange.Problem{Line: pe.Line, Message: fmt.Sprintf("the file's expenses have more than the %d payers and shares one import writes", MaxImportShares), Severity: exchange.Error}
		}
	}
	keys := map[string]bool{}
	unique := func(line int, key string) error {
		if keys[key] {
			return &exchange.Problem{Line: line, Field: "key", Message: fmt.Sprintf("%q is the key of an earlier row too", key), Severity: exchange.Error}
		}
		keys[key] = true
		return nil
	}
	for i := range r.in.Plan.Expenses {
		if err := unique(r.in.Plan.Expenses[i].Line, "e:"+r.in.Plan.Expenses[i].Key); err != nil {
			return nil, err
		}
		unit, err := r.expenseUnit(&r.in.Plan.Expenses[i])
		if err != nil {
			return nil, err
		}
		if err := add(r.in.Plan.Expenses[i].Line, unit); err != nil {
			return nil, err
		}
	}
	for i := range r.in.Plan.Settlements {
		if err := unique(r.in.Plan.Settlements[i].Line, "s:"+r.in.Plan.Settlements[i].Key); err != nil {
			return nil, err
		}
		unit, err := r.settlementUnit(&r.in.Plan.Settlements[i])
		if err != nil {
			return nil, err
		}
		if err := add(r.in.Plan.Settlements[i].Line, unit); err != nil {
			return nil, err
		}
	}
	expenses := map[string]bool{}
	for _, e := range r.in.Plan.Expenses {
		expenses[e.Key] = true
	}
	for i := range r.in.Plan.Comments {
		pc := &r.in.Plan.Comments[i]
		if err := unique(pc.Line, "c:"+pc.Key); err != nil {
			return nil, err
		}
		unit, err := r.commentUnit(pc, expenses)
		if err != nil {
			return nil, err
		}
		if err := add(pc.Line, unit); err != nil {
			return nil, err
		}
	}
	// The last batch also finishes the import: when that does not fit
	// beside its own items, an empty batch does it. So does one in an
	// existing group whenever the last is more than half full: the
	// finishing transaction must win its place in the group's chain
	// against the members' own writes, and a short one wins it sooner.
	total, err := totalEffect(batches)
	if err != nil {
		return nil, err
	}
	if cur.size()+len(total.deltas)+finishItems > maxTransactItems || (r.in.GroupID != "" && cur.size() > maxTransactItems/2) {
		batches = append(batches, newImportBatch())
	}
	named := 0
	for _, u := range total.involved {
		if r.isMember(u) {
			named++
		}
	}
	if named > MaxImportNamedMembers {
		return nil, &exchange.Problem{Field: "members", Message: fmt.Sprintf("the file's expenses and settlements name %d members of the group; one import may name at most %d", named, MaxImportNamedMembers), Severity: exchange.Error}
	}
	return batches, nil
}

// MaxImportNamedMembers is the most current members one import's
// expenses and settlements may name: its last batch requires each to be
// a member still, in one condition, which DynamoDB bounds to 4 KB.
const MaxImportNamedMembers = 120

// totalEffect is the whole file's effect on the books (one delta per
// currency) and the people it involves.
func totalEffect(batches []*importBatch) (*importBatch, error) {
	total := newImportBatch()
	for _, b := range batches {
		if err := total.merge(&importBatch{deltas: b.deltas, involved: b.involved}); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func newImportBatch() *importBatch {
	return &importBatch{deltas: map[money.Currency]ledger.Delta{}, spending: map[spendKey]figures{}}
}

// unitGrowth is how many items merging unit adds to b.
func unitGrowth(b, unit *importBatch) int {
	n := len(unit.puts)
	for k := range unit.spending {
		if _, ok := b.spending[k]; !ok {
			n++
		}
	}
	return n
}

// merge adds a unit (one expense or settlement) to the batch.
func (b *importBatch) merge(unit *importBatch) error {
	b.puts = append(b.puts, unit.puts...)
	for c, d := range unit.deltas {
		if old, ok := b.deltas[c]; ok {
			sum, err := old.Plus(d)
			if err != nil {
				return err
			}
			d = sum
		}
		b.deltas[c] = d
	}
	for k, f := range unit.spending {
		if b.spending[k] == nil {
			b.spending[k] = figures{}
		}
		b.spending[k].merge(f, 1)
	}
	for _, u := range unit.involved {
		if !slices.Contains(b.involved, u) {
			b.involved = append(b.involved, u)
		}
	}
	b.expenses += unit.expenses
	b.settlements += unit.settlements
	b.comments += unit.comments
	return nil
}

// at is a time of the file, or the import's start when the file has none.
func (r *importRun) at(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t.UTC().Truncate(time.Millisecond)
		}
	}
	return r.started
}

// expenseUnit is one expense of the Plan as the items CreateExpense writes.
func (r *importRun) expenseUnit(pe *exchange.Expense) (*importBatch, error) {
	bad := func(field, format string, args ...any) error {
		return &exchange.Problem{Line: pe.Line, Field: field, Message: fmt.Sprintf(format, args...), Severity: exchange.Error}
	}
	e := Expense{
		ID: derivedID("expense", r.groupID, r.in.FileHash, pe.Key), GroupID: r.groupID,
		Amount: pe.Amount, Description: pe.Description, Category: pe.Category,
		SplitType: SplitType(pe.SplitType), CreatedBy: r.in.Importer.UserID, Version: 1, TimeZone: r.zone,
	}
	e.CreatedAt = r.at(pe.CreatedAt, pe.SpentAt)
	e.SpentAt = r.at(pe.SpentAt, pe.CreatedAt)
	for _, p := range pe.Payers {
		id, name, err := r.person(p.Name)
		if err != nil {
			return nil, bad("payers", "%v", err)
		}
		e.Payers = append(e.Payers, Payment{UserID: id, UserName: name, Amount: p.Amount})
	}
	for _, p := range pe.Splits {
		id, name, err := r.person(p.Name)
		if err != nil {
			return nil, bad("splits", "%v", err)
		}
		e.Splits = append(e.Splits, Split{UserID: id, UserName: name, Amount: p.Amount, Percentage: p.Percentage, Shares: p.Shares})
	}
	if len(e.Payers) == 0 {
		return nil, bad("payers", "the expense has no payer")
	}
	if err := importItems(&e, pe); err != nil {
		return nil, bad("items", "%v", err)
	}
	if pe.Original != nil {
		e.Conversion = &Conversion{Original: pe.Original.Amount, RecordedRate: RecordedRate{Rate: pe.Original.Rate, Source: pe.Original.RateSource, Date: pe.Original.RateDate}}
	}
	e.own()
	involved := e.InvolvedUsers()
	if len(involved) > MaxImportParts {
		return nil, bad("splits", "%d people share the expense; at most %d may", len(involved), MaxImportParts)
	}
	spentOn, err := DayIn(e.SpentAt, e.TimeZone)
	if err != nil {
		return nil, err
	}
	e.SpentOn = spentOn
	delta, err := e.delta()
	if err != nil {
		return nil, bad("amount", "%v", err)
	}
	title := r.in.Title
	if r.group != nil {
		title = r.group.Title
	} else if r.newGroup.Title != "" {
		title = r.newGroup.Title
	}
	u := newImportBatch()
	u.puts = append(u.puts, e.record(), createdRevisionRecord(&e), e.dayRecord())
	for _, p := range e.participantRecords(title) {
		u.puts = append(u.puts, p)
	}
	u.deltas[e.Amount.Currency()] = delta
	k, f := e.spending()
	u.spending[k] = f
	u.involved, u.expenses = involved, 1
	return u, nil
}

// settlementUnit is one settlement of the Plan as the item CreateSettlement writes.
func (r *importRun) settlementUnit(ps *exchange.Settlement) (*importBatch, error) {
	bad := func(field, format string, args ...any) error {
		return &exchange.Problem{Line: ps.Line, Field: field, Message: fmt.Sprintf(format, args...), Severity: exchange.Error}
	}
	from, fromName, err := r.person(ps.From)
	if err != nil {
		return nil, bad("from", "%v", err)
	}
	to, toName, err := r.person(ps.To)
	if err != nil {
		return nil, bad("to", "%v", err)
	}
	if from == to {
		return nil, bad("to", "a payment from %s to themselves", ps.From)
	}
	if ps.Amount.Sign() <= 0 {
		return nil, bad("amount", "a payment must be positive, not %s", ps.Amount)
	}
	st := Settlement{
		ID: derivedID("settlement", r.groupID, r.in.FileHash, ps.Key), GroupID: r.groupID,
		FromUserID: from, FromUserName: fromName, ToUserID: to, ToUserName: toName,
		Amount: ps.Amount, TxHash: ps.TxHash, Status: SettlementStatus(ps.Status),
		CreatedAt: r.at(ps.CreatedAt), CreatedBy: r.in.Importer.UserID,
	}
	if st.Status == "" {
		st.Status = SettlementCompleted
	}
	if !slices.Contains([]SettlementStatus{SettlementPending, SettlementSent, SettlementCompleted, SettlementFailed}, st.Status) {
		return nil, bad("status", "%q is not a settlement status", ps.Status)
	}
	if ps.Settles != nil {
		st.Settles = &SettledConversion{Amount: ps.Settles.Amount, RecordedRate: RecordedRate{Rate: ps.Settles.Rate, Source: ps.Settles.RateSource, Date: ps.Settles.RateDate}}
	}
	for _, p := range ps.Parts {
		st.Parts = append(st.Parts, SettledConversion{Amount: p.Amount, RecordedRate: RecordedRate{Rate: p.Rate, Source: p.RateSource, Date: p.RateDate}})
	}
	u := newImportBatch()
	if st.Status == SettlementCompleted {
		st.CompletedAt, st.ConfirmedBy = &st.CreatedAt, st.CreatedBy
		for _, d := range st.deltas() {
			u.deltas[d.Currency] = d
		}
		u.involved = []string{from, to}
	}
	u.puts, u.settlements = []any{st.record()}, 1
	return u, nil
}

// commentUnit is one comment of the Plan, on an expense of the Plan, by
// the member its author became; a deleted one stays a tombstone.
func (r *importRun) commentUnit(pc *exchange.Comment, expenses map[string]bool) (*importBatch, error) {
	bad := func(field, format string, args ...any) error {
		return &exchange.Problem{Line: pc.Line, Field: field, Message: fmt.Sprintf(format, args...), Severity: exchange.Error}
	}
	if !expenses[pc.ExpenseKey] {
		return nil, bad("expense", "%q is not an expense of the file", pc.ExpenseKey)
	}
	author, name, err := r.person(pc.Author)
	if err != nil {
		return nil, bad("author", "%v", err)
	}
	c := Comment{
		ID:      prefixedID(CommentPrefix, derivedID("comment", r.groupID, r.in.FileHash, pc.Key)),
		GroupID: r.groupID, ExpenseID: derivedID("expense", r.groupID, r.in.FileHash, pc.ExpenseKey),
		AuthorID: author, AuthorName: name, Body: pc.Body, CreatedAt: r.at(pc.CreatedAt),
	}
	if pc.Deleted {
		c.Body, c.DeletedAt, c.DeletedBy = "", &c.CreatedAt, author
	}
	u := newImportBatch()
	u.puts, u.comments = []any{c.record()}, 1
	return u, nil
}

// person is the member a name of the file became, and the name it shows.
func (r *importRun) person(name string) (string, string, error) {
	id, ok := r.names[name]
	if !ok {
		return "", "", fmt.Errorf("%q is not among the file's people", name)
	}
	if m := r.members[id]; m != nil && m.Name != "" {
		return id, m.Name, nil
	}
	if id == r.in.Importer.UserID && r.in.Importer.Name != "" {
		return id, r.in.Importer.Name, nil
	}
	return id, name, nil
}

// report fills in the result: counts, the balances after the import (the
// group's current books plus the import's), and whether the import's own
// effect equals what the file says the balances are.
func (r *importRun) report(ctx context.Context, batches []*importBatch) error {
	books := map[money.Currency]*ledger.Book{}
	imported := map[money.Currency]*ledger.Book{}
	currencies := map[string]bool{}
	if r.in.GroupID != "" {
		gbs, err := r.s.GetBalances(ctx, []string{r.groupID})
		if err != nil {
			return err
		}
		if gbs[0] != nil {
			for _, b := range gbs[0].Books {
				if err := b.LoadPairs(); err != nil {
					return err
				}
				books[b.Currency] = b
				currencies[b.Currency.Code()] = true
			}
		}
	}
	// The books move only with the last batch: until then, resumed or
	// not, the whole file is still to add.
	for _, b := range batches {
		r.result.Expenses += b.expenses
		r.result.Settlements += b.settlements
		r.result.Comments += b.comments
		for c, d := range b.deltas {
			apply := func(m map[money.Currency]*ledger.Book) {
				if m[c] == nil {
					m[c] = ledger.NewBook(c)
				}
				m[c].Apply(d)
			}
			apply(books)
			apply(imported)
			currencies[c.Code()] = true
		}
	}
	if len(currencies) > r.s.maxCurrencies {
		return fmt.Errorf("%w: the group would hold balances in %d currencies, the most one group may is %d", ErrTooManyCurrencies, len(currencies), r.s.maxCurrencies)
	}
	for _, b := range books {
		r.result.Books = append(r.result.Books, b)
	}
	slices.SortFunc(r.result.Books, func(x, y *ledger.Book) int { return strings.Compare(x.Currency.Code(), y.Currency.Code()) })
	r.result.Problems = append(r.result.Problems, r.in.Plan.Problems...)
	for _, want := range r.in.Plan.Balances {
		cur := want.Amount.Currency()
		got := money.Zero(cur)
		if b := imported[cur]; b != nil {
			if n, ok := b.Nets()[r.names[want.Name]]; ok {
				got = n
			}
		}
		if got.Cmp(want.Amount) != 0 {
			r.result.Problems = append(r.result.Problems, exchange.Problem{Field: "balances", Severity: exchange.Warning,
				Message: fmt.Sprintf("%s's balance in %s comes to %s; the file says %s", want.Name, cur.Code(), got, want.Amount)})
		}
	}
	return nil
}

// completed is the report of an import done before: nothing is written.
func (r *importRun) completed(ctx context.Context) (ImportResult, error) {
	r.result.AlreadyImported = true
	r.result.Expenses, r.result.Settlements, r.result.Comments = r.rec.Expenses, r.rec.Settlements, r.rec.Comments
	for _, p := range r.in.Plan.People {
		id := r.rec.Members[p.Name]
		match := ImportExistingMember
		if id == importPlaceholderID(r.groupID, r.in.FileHash, p.Name) {
			match = ImportNewPlaceholder
		}
		r.result.Members = append(r.result.Members, ImportedMember{Name: p.Name, MemberID: id, Match: match})
	}
	gbs, err := r.s.GetBalances(ctx, []string{r.groupID})
	if err != nil {
		return ImportResult{}, err
	}
	if gbs[0] != nil {
		r.result.Books = gbs[0].Books
	}
	return r.result, nil
}

// write writes batch k; the last one finishes the import.
func (r *importRun) write(ctx context.Context, batches []*importBatch, k int) error {
	items, err := r.ownItems(batches, k)
	if err != nil {
		return err
	}
	switch {
	case k < len(batches)-1:
		err = r.s.transactWrite(ctx, items)
	case r.in.GroupID == "":
		err = r.finishNewGroup(ctx, batches, items)
	default:
		err = r.finishInGroup(ctx, batches, items)
	}
	if err != nil {
		if IsCondCheckFailed(err) {
			return conflictf("the import of this file is under way in another request, or a member it involves left the group or was claimed meanwhile; run it again")
		}
		return fmt.Errorf("import batch %d of %d: %w", k+1, len(batches), err)
	}
	return nil
}

// ownItems are batch k's own transaction items: its spending, its records
// (an existing group's marked with the import, import_gate.go) and the
// import record moved on to the next batch, completed by the last.
func (r *importRun) ownItems(batches []*importBatch, k int) ([]types.TransactWriteItem, error) {
	b := batches[k]
	mark := r.mark()
	items := r.s.importSpendingUpdates(r.groupID, mark, b.spending)
	for _, rec := range b.puts {
		put, err := r.s.putNew(rec, "imported item")
		if err != nil {
			return nil, err
		}
		if mark != "" {
			put.Put.Item[attrImport] = str(mark)
		}
		items = append(items, put)
	}
	recItem, err := r.recordItem(k, k == len(batches)-1)
	if err != nil {
		return nil, err
	}
	return append(items, recItem), nil
}

// importedEvent is the one GROUP_IMPORTED event of the import.
func (r *importRun) importedEvent() Event {
	return Event{
		GroupID: r.groupID, Type: EventGroupImported, ActorID: r.in.Importer.UserID, At: r.s.stamp(),
		Subject: Subject{Kind: SubjectGroup, ID: r.groupID},
		Changes: []Change{
			{Field: "import", After: text(r.in.FileHash)},
			{Field: "expenses", After: text(strconv.Itoa(r.result.Expenses))},
			{Field: "settlements", After: text(strconv.Itoa(r.result.Settlements))},
			{Field: "comments", After: text(strconv.Itoa(r.result.Comments))},
		},
	}
}

// maxExpressionLength is DynamoDB's limit on the length of an expression.
const maxExpressionLength = 4096

// finishInGroup writes an existing group's last batch: its own items, the
// whole file's effect on each book, the new placeholders, currencies and
// version on the ledger, the memberCount, the GROUP_IMPORTED event, and
// the record completed.
//
// A book takes the effect by ADD, as from any write, unless the file moves
// so many balances (a big group's pairs) that the ADD's expression would
// pass DynamoDB's 4 KB: then the book is read and rewritten whole, read
// again whenever another write takes the chain's next place first, whose
// condition proves that no write came between.
func (r *importRun) finishInGroup(ctx context.Context, batches []*importBatch, own []types.TransactWriteItem) (err error) {
	total, err := totalEffect(batches)
	if err != nil {
		return err
	}
	deltas := sortedDeltas(total.deltas)
	ids := r.newPlaceholderIDs()
	ev := r.importedEvent()
	defer func() {
		if err == nil {
			r.s.imports.remember(importRef{pk: groupPK(r.groupID), hash: r.in.FileHash})
		}
	}()
	return r.s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		items := slices.Clone(own)
		var books *GroupBalances
		for _, d := range deltas {
			if add := r.s.balancesUpdate(r.groupID, d); len(aws.ToString(add.Update.UpdateExpression)) <= maxExpressionLength {
				items = append(items, add)
				continue
			}
			if books == nil {
				if books, err = r.booksNow(ctx); err != nil {
					return nil, err
				}
			}
			b := books.Book(d.Currency)
			b.Apply(d)
			items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &r.s.table, Item: bookItem(r.groupID, b)}})
		}
		if len(deltas) > 0 {
			l.addCurrencies(deltas)
			l.bumpVersion()
		}
		if len(ids) > 0 {
			// One ADD of them all: an update names each attribute once.
			l.add = append(l.add, attrMemberIDs+" "+l.value(&types.AttributeValueMemberSS{Value: ids}))
			items = append(items, r.memberCountAdd(len(ids)))
		}
		need := []string{r.in.Importer.UserID}
		for _, u := range total.involved {
			if !slices.Contains(need, u) && !slices.Contains(ids, u) {
				need = append(need, u)
			}
		}
		l.requireMembers(need)
		return items, nil
	})
}

// booksNow reads the group's books strongly consistent, exactly as stored.
// A group whose books the migration has not moved yet is refused: a book
// is rewritten whole, and one kept in two places cannot be.
func (r *importRun) booksNow(ctx context.Context) (*GroupBalances, error) {
	item, ok, err := r.s.getItem(ctx, groupPK(r.groupID), skLedger, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf("group %s", r.groupID)
	}
	l, err := decodeLedger(item)
	if err != nil {
		return nil, err
	}
	if l.oldBooks {
		return nil, conflictf("group %s keeps its balances where they were before the last migration; run `migrate` first", r.groupID)
	}
	gbs, err := r.s.readBooks(ctx, []*Ledger{l}, true)
	if err != nil {
		return nil, err
	}
	return gbs[0], nil
}

// finishNewGroup writes a new group's last batch: its own items, the
// group's ledger with the first two events of its chain (GROUP_CREATED,
// then GROUP_IMPORTED), its books, its METADATA and the importer's
// membership, which make it reachable, and the record completed.
func (r *importRun) finishNewGroup(ctx context.Context, batches []*importBatch, own []types.TransactWriteItem) error {
	total, err := totalEffect(batches)
	if err != nil {
		return err
	}
	created := Event{
		GroupID: r.groupID, Type: EventGroupCreated, ActorID: r.in.Importer.UserID, At: r.started,
		Subject: Subject{Kind: SubjectGroup, ID: r.groupID}, Changes: GroupChanges(nil, &r.newGroup),
	}
	imported := r.importedEvent()
	created.seal(chainHead{})
	imported.seal(chainHead{Seq: created.Seq, Hash: created.Hash})
	members := []string{r.in.Importer.UserID}
	for _, m := range r.result.Members {
		if m.Match == ImportNewPlaceholder {
			members = append(members, m.MemberID)
		}
	}
	deltas := sortedDeltas(total.deltas)
	codes := make([]string, len(deltas))
	for i, d := range deltas {
		codes[i] = d.Currency.Code()
	}
	ledgerRec := ledgerRecord{
		itemKey:   itemKey{PK: groupPK(r.groupID), SK: skLedger},
		MemberIDs: members, Currencies: codes, Version: 1, Events: imported.Seq, Head: imported.Hash, BooksBeside: true,
	}
	membership, err := newMemberRecord(r.groupID, r.in.Importer, r.started)
	if err != nil {
		return err
	}
	membership.Role = storedRole(RoleOwner) // the importer owns the group they brought
	items := slices.Clone(own)
	for _, rec := range []any{ledgerRec, created.record(), imported.record(), r.newGroup.record(), membership} {
		put, err := r.s.putNew(rec, "imported group")
		if err != nil {
			return err
		}
		items = append(items, put)
	}
	for _, d := range deltas {
		b := ledger.NewBook(d.Currency)
		b.Apply(d)
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: &r.s.table, Item: bookItem(r.groupID, b), ConditionExpression: aws.String(condItemAbsent),
		}})
	}
	if err := r.s.transactWrite(ctx, items); err != nil {
		return err
	}
	r.s.tellCommitted(created)
	r.s.tellCommitted(imported)
	return nil
}

// newPlaceholderIDs are the placeholders the import adds.
func (r *importRun) newPlaceholderIDs() []string {
	var ids []string
	for _, m := range r.result.Members {
		if m.Match == ImportNewPlaceholder && r.members[m.MemberID] == nil {
			ids = append(ids, m.MemberID)
		}
	}
	return ids
}

// memberCountAdd adds the new placeholders to an existing group's memberCount.
func (r *importRun) memberCountAdd(n int) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &r.s.table, Key: tableKey(groupPK(r.groupID), skMetadata),
		UpdateExpression:          aws.String("ADD " + attrMemberCount + " :n"),
		ConditionExpression:       aws.String(condItemExists),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": number(int64(n))},
	}}
}

// recordItem writes the import record of batch k: created by the first
// batch, moved on by each, completed by the last, on condition that it is
// at batch k.
func (r *importRun) recordItem(k int, last bool) (types.TransactWriteItem, error) {
	if k == 0 {
		rec := r.rec
		rec.Next = 1
		if last {
			rec.State, rec.CompletedAt = importComplete, formatTime(r.s.stamp())
		}
		return r.s.putNew(rec, "import record")
	}
	set := "#n = :next"
	values := map[string]types.AttributeValue{":next": number(int64(k + 1)), ":at": number(int64(k))}
	names := map[string]string{"#n": attrImportNext}
	if last {
		set += ", #s = :done, completedAt = :now"
		values[":done"], values[":now"] = str(importComplete), str(formatTime(r.s.stamp()))
		names["#s"] = attrImportState
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &r.s.table, Key: tableKey(groupPK(r.groupID), importSK(r.in.FileHash)),
		UpdateExpression:          aws.String("SET " + set),
		ConditionExpression:       aws.String("#n = :at"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}, nil
}

// addCurrencies records the currencies a write keeps books in. The import
// checked beforehand that the group may hold them all.
func (l *ledgerEdit) addCurrencies(ds []ledger.Delta) {
	codes := make([]string, len(ds))
	for i, d := range ds {
		codes[i] = d.Currency.Code()
	}
	l.add = append(l.add, attrCurrencies+" "+l.value(&types.AttributeValueMemberSS{Value: codes}))
}

// sortedDeltas lists a batch's deltas by currency code.
func sortedDeltas(m map[money.Currency]ledger.Delta) []ledger.Delta {
	out := make([]ledger.Delta, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y ledger.Delta) int { return strings.Compare(x.Currency.Code(), y.Currency.Code()) })
	return out
}
