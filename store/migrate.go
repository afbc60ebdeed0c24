package store

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"golang.org/x/sync/errgroup"
)

// The migration brings items written by earlier versions up to the current
// format (seed 000's migration, and this format's additions):
//
//   - an expense gets its missing GSI3 keys (its main payer's "paid" list:
//     USER#<payerId> / its own SK), its missing participant records, its
//     first revision, version 1 and formatVersion 2, all in one transaction
//     on condition that the expense is still in its old format;
//   - a settlement gets its missing GSI3 keys (USER#<fromUserId> / its own
//     SK) and formatVersion 2;
//   - a group, when it has no ledger (it predates kept balances), gets a
//     ledger of its current members and its balances worked out from its
//     expenses and completed settlements; then version 1 and formatVersion 2,
//     so that a group in the current format lacks nothing;
//   - a group whose books are still at BALANCES#<currency> gets them moved
//     beside its ledger (move_books.go);
//   - a group tied to a Telegram chat gets the chat's CHAT#<chatId> item;
//   - a group written before roles gets them written down (KeepRoles): its
//     creator, or if they left its longest-standing member, its owner;
//   - a group from before expense days gets a day item for every live
//     expense, then daysKept on its METADATA (migrate_days.go);
//   - a group whose activity log holds events in hash format 1 (names and
//     wallets hashed as they are) has it resealed in format 2
//     (reseal_chain.go), so that an erasure can take personal values out;
//   - a former membership gets its GSI3 keys (USER#<userId> / LEFT#<groupId>),
//     so that the user's former memberships are found by key.
//
// Every write is conditioned so that it never overwrites what the server
// wrote meanwhile (the server writes only the current format), and an item
// already in the current format is left alone: a second run changes
// nothing. A parallel Scan reads the table in segments; each segment's
// position is saved in the table after every page, so a stopped migration
// continues where it stopped.

// MigrateOptions tune Migrate.
type MigrateOptions struct {
	Segments int   // parallel Scan segments (default 4)
	PageSize int32 // items per Scan page (default 100)
	DryRun   bool  // count what would change, write nothing (not even progress)
	Restart  bool  // ignore the saved progress and scan from the start
	// Progress, when set, is called after every page with the segment's
	// counts so far; segments call it from their own goroutines.
	Progress func(MigrateProgress)
}

// MigrateProgress is how far one segment has come.
type MigrateProgress struct {
	Segment, Segments int
	Scanned, Changed  int  // items read, and items written (or, dry, to write)
	Done              bool // the segment has read the whole table's share
}

// MigrateResult sums up a run.
type MigrateResult struct {
	Scanned, Changed int
	// AlreadyDone counts the segments a previous run finished.
	AlreadyDone int
}

// migrationName names the checkpoints of this format's migration; a new
// step gets a new name, so that a table migrated before is scanned once more
// (every step skips what is already done).
const migrationName = "format-2-roles-days-erasure"

// A segment's saved position is the MIGRATION#<name> / SEGMENT#<i>/<n>
// item: lastKey, the Scan's LastEvaluatedKey as it is, and done.
const (
	attrLastKey = "lastKey"
	attrDone    = "done"
)

// Migrate runs the migration over the whole table.
func (s *Store) Migrate(ctx context.Context, opts MigrateOptions) (MigrateResult, error) {
	if opts.Segments <= 0 {
		opts.Segments = 4
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	m := &migration{s: s, opts: opts, titles: map[string]string{}}
	results := make([]MigrateResult, opts.Segments)
	g, gctx := errgroup.WithContext(ctx)
	for i := range opts.Segments {
		g.Go(func() error {
			r, err := m.segment(gctx, i)
			results[i] = r
			return err
		})
	}
	err := g.Wait()
	var sum MigrateResult
	for _, r := range results {
		sum.Scanned, sum.Changed, sum.AlreadyDone = sum.Scanned+r.Scanned, sum.Changed+r.Changed, sum.AlreadyDone+r.AlreadyDone
	}
	return sum, err
}

type migration struct {
	s    *Store
	opts MigrateOptions

	mu     sync.Mutex
	titles map[string]string // group titles, for participant records
}

func (m *migration) segment(ctx context.Context, i int) (MigrateResult, error) {
	s, n := m.s, m.opts.Segments
	key := tableKey(prefixMigration+migrationName, checkpointSK(i, n))
	var start map[string]types.AttributeValue
	if !m.opts.Restart {
		item, _, err := s.getItem(ctx, prefixMigration+migrationName, checkpointSK(i, n), true)
		if err != nil {
			return MigrateResult{}, err
		}
		if done, _ := item[attrDone].(*types.AttributeValueMemberBOOL); done != nil && done.Value {
			return MigrateResult{AlreadyDone: 1}, nil
		}
		if last, _ := item[attrLastKey].(*types.AttributeValueMemberM); last != nil {
			start = last.Value
		}
	}
	var r MigrateResult
	for {
		out, err := s.db.Scan(ctx, &dynamodb.ScanInput{
			TableName: &s.table, Segment: aws.Int32(int32(i)), TotalSegments: aws.Int32(int32(n)),
			Limit: aws.Int32(m.opts.PageSize), ExclusiveStartKey: start,
		})
		if err != nil {
			return r, fmt.Errorf("scan segment %d: %w", i, err)
		}
		for _, item := range out.Items {
			if strings.HasPrefix(keyAttr(item, attrPK), prefixMigration) {
				continue // the migration's own progress
			}
			r.Scanned++
			changed, err := m.item(ctx, item)
			if err != nil {
				return r, fmt.Errorf("migrate %s %s: %w", keyAttr(item, attrPK), keyAttr(item, attrSK), err)
			}
			r.Changed += changed
		}
		start = out.LastEvaluatedKey
		done := len(start) == 0
		if !m.opts.DryRun {
			cp := tableKey(keyAttr(key, attrPK), keyAttr(key, attrSK))
			cp[attrDone] = &types.AttributeValueMemberBOOL{Value: done}
			if !done {
				cp[attrLastKey] = &types.AttributeValueMemberM{Value: start}
			}
			if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: cp}); err != nil {
				return r, fmt.Errorf("save progress: %w", err)
			}
		}
		if m.opts.Progress != nil {
			m.opts.Progress(MigrateProgress{Segment: i, Segments: n, Scanned: r.Scanned, Changed: r.Changed, Done: done})
		}
		if done {
			return r, nil
		}
		if err := ctx.Err(); err != nil {
			return r, err
		}
	}
}

// item brings one item up to date and says how many items it wrote.
func (m *migration) item(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	pk, sk := keyAttr(item, attrPK), keyAttr(item, attrSK)
	if !strings.HasPrefix(pk, prefixGroup) {
		return 0, nil // users, tokens, checkpoints: nothing to do
	}
	format := 1
	if n, ok := item[attrFormatVersion].(*types.AttributeValueMemberN); ok {
		format, _ = strconv.Atoi(n.Value)
	}
	switch {
	case sk == skMetadata:
		return m.group(ctx, item, format)
	case isExpenseSK(sk) && format < formatCurrent:
		return m.expense(ctx, item)
	case strings.HasPrefix(sk, prefixSettle) && format < formatCurrent:
		return m.settlement(ctx, item)
	case strings.HasPrefix(sk, prefixUser) && item[attrLeftAt] != nil && item[attrGSI3PK] == nil && item[attrPlaceholder] == nil:
		return m.former(ctx, item)
	}
	return 0, nil
}

// setIfMissing sets attr to value unless the item has it already.
func setIfMissing(attr, value string) string {
	return attr + " = if_not_exists(" + attr + ", " + value + ")"
}

// The updates of the migration: each sets only what is missing, and the format.
var (
	migrateFormat = attrFormatVersion + " = :format"
	// The index keys of expenses and settlements: GSI2 (by id), GSI3 (a user's list).
	migrateIndexes = setIfMissing(attrGSI2PK, ":gsi2pk") + ", " + setIfMissing(attrGSI2SK, ":gsi2sk") + ", " +
		setIfMissing(attrGSI3PK, ":gsi3pk") + ", " + setIfMissing(attrGSI3SK, ":gsi3sk")
	migrateExpense    = "SET " + migrateIndexes + ", " + setIfMissing(attrVersion, ":one") + ", " + migrateFormat
	migrateSettlement = "SET " + migrateIndexes + ", " + migrateFormat
	migrateGroup      = "SET " + setIfMissing(attrVersion, ":one") + ", " + migrateFormat
	// condOldFormat: the item is still there and still in an earlier format.
	// The server writes only the current format, so an item it wrote since
	// the Scan read it fails this, and the migration leaves it alone.
	condOldFormat = condItemExists + " AND (" + attrNotExists(attrFormatVersion) + " OR " + attrFormatVersion + " < :format)"
)

// expenseAttempts bounds how often an expense is looked at again when one of
// its records appeared between the migration's read and its write.
const expenseAttempts = 3

// expense brings an old expense up to date in one transaction: the update of
// the expense and the records it lacks appear together, and only while the
// expense is still as the Scan read it. Had the server deleted or edited it
// meanwhile, records built from the old content would outlive it.
func (m *migration) expense(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	es, err := decodeAll([]map[string]types.AttributeValue{item}, (*expenseRecord).expense)
	if err != nil {
		return 0, err
	}
	e := es[0]
	title, err := m.groupTitle(ctx, e.GroupID)
	if err != nil {
		return 0, err
	}
	sk := keyAttr(item, attrSK)
	update := m.oldItemUpdate(item, migrateExpense, map[string]types.AttributeValue{
		":gsi2pk": str(expenseGSI2PK(e.ID)), ":gsi2sk": str(e.GroupID),
		":gsi3pk": str(userKey(e.PayerID)), ":gsi3sk": str(sk),
	})
	for attempt := 1; ; attempt++ {
		puts, err := m.missingRecords(ctx, &e, title)
		if err != nil {
			return 0, err
		}
		if m.opts.DryRun {
			return 1 + len(puts), nil
		}
		wrote, err := m.writeExpense(ctx, update, puts)
		switch {
		case err == nil:
			return wrote, nil
		case condFailedAt(err, 0):
			return wrote, nil // deleted or rewritten meanwhile: nothing left to do
		case IsCondCheckFailed(err) && attempt < expenseAttempts:
			continue // a record appeared meanwhile: look again
		default:
			return wrote, err
		}
	}
}

// missingRecords are the puts of the expense's first revision and participant
// records that are not in the table, each on condition that it still is not.
func (m *migration) missingRecords(ctx context.Context, e *Expense, title string) ([]types.TransactWriteItem, error) {
	s := m.s
	existing, err := s.collect(ctx, listQuery{
		list: "participants:" + e.ID, keyCond: tablePrefixCond,
		values: prefixValues(groupPK(e.GroupID), participantSK(e.ID, "")), forward: true, consistent: true,
	}, nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(existing))
	for _, it := range existing {
		have[keyAttr(it, attrSK)] = true
	}
	var puts []types.TransactWriteItem
	rev := createdRevisionRecord(e)
	if _, exists, err := s.getItem(ctx, rev.PK, rev.SK, true); err != nil {
		return nil, err
	} else if !exists {
		put, err := s.putNew(rev, "revision")
		if err != nil {
			return nil, err
		}
		puts = append(puts, put)
	}
	for _, p := range e.participantRecords(title) {
		if have[p.SK] {
			continue
		}
		put, err := s.putNew(p, "participant record")
		if err != nil {
			return nil, err
		}
		puts = append(puts, put)
	}
	return puts, nil
}

// writeExpense writes the expense's update and puts, the update first. When
// they are more than one transaction holds, the extra puts go first, in
// transactions that check the expense is still in its old format.
func (m *migration) writeExpense(ctx context.Context, update *types.Update, puts []types.TransactWriteItem) (int, error) {
	wrote := 0
	for len(puts)+1 > maxTransactItems {
		check := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: update.TableName, Key: update.Key, ConditionExpression: update.ConditionExpression,
			ExpressionAttributeValues: map[string]types.AttributeValue{":format": number(formatCurrent)},
		}}
		batch := puts[:maxTransactItems-1]
		if err := m.s.transactWrite(ctx, append([]types.TransactWriteItem{check}, batch...)); err != nil {
			return wrote, err
		}
		wrote, puts = wrote+len(batch), puts[len(batch):]
	}
	if err := m.s.transactWrite(ctx, append([]types.TransactWriteItem{{Update: update}}, puts...)); err != nil {
		return wrote, err
	}
	return wrote + 1 + len(puts), nil
}

func (m *migration) settlement(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	sts, err := decodeAll([]map[string]types.AttributeValue{item}, (*settlementRecord).settlement)
	if err != nil {
		return 0, err
	}
	st := sts[0]
	return m.update(ctx, m.oldItemUpdate(item, migrateSettlement, map[string]types.AttributeValue{
		":gsi2pk": str(settlementGSI2PK(st.ID)), ":gsi2sk": str(st.GroupID),
		":gsi3pk": str(userKey(st.FromUserID)), ":gsi3sk": str(keyAttr(item, attrSK)),
	}))
}

// group gives a group that predates kept balances its ledger, then its
// version and format: a group in the current format lacks nothing.
func (m *migration) group(ctx context.Context, item map[string]types.AttributeValue, format int) (int, error) {
	changed, err := m.ledger(ctx, itemGroupID(item))
	if err != nil {
		return changed, err
	}
	moved, err := m.books(ctx, itemGroupID(item))
	changed += moved
	if err != nil {
		return changed, err
	}
	claimed, err := m.chat(ctx, item)
	changed += claimed
	if err != nil {
		return changed, err
	}
	kept, err := m.roles(ctx, item)
	changed += kept
	if err != nil {
		return changed, err
	}
	days, err := m.days(ctx, item)
	changed += days
	if err != nil {
		return changed, err
	}
	resealed, err := m.reseal(ctx, itemGroupID(item))
	changed += resealed
	if err != nil || format >= formatCurrent {
		return changed, err
	}
	wrote, err := m.update(ctx, m.oldItemUpdate(item, migrateGroup, nil))
	return changed + wrote, err
}

// roles writes down the roles of a group written before them.
func (m *migration) roles(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	if _, kept := item[attrRolesKept]; kept {
		return 0, nil
	}
	if m.opts.DryRun {
		return 1, nil
	}
	wrote, err := m.s.KeepRoles(ctx, itemGroupID(item))
	if !wrote {
		return 0, err
	}
	return 1, err
}

// reseal reseals the group's activity log in hash format 2 where it is not
// yet; a dry run counts the log as one change when its first event is
// still in format 1.
func (m *migration) reseal(ctx context.Context, groupID string) (int, error) {
	if !m.opts.DryRun {
		return m.s.ResealChain(ctx, groupID)
	}
	first, ok, err := m.s.getItem(ctx, groupPK(groupID), eventSK(1), true)
	if err != nil || !ok || first["hashFormat"] != nil {
		return 0, err
	}
	return 1, nil
}

// migrateFormer lists a membership that ended before GSI3 LEFT# keys
// among the user's former memberships; not placeholders, which are no user's.
var migrateFormer = "SET " + attrGSI3PK + " = :gsi3pk, " + attrGSI3SK + " = :gsi3sk"

// former gives a former membership its GSI3 keys, on condition that it is
// still a former one without them.
func (m *migration) former(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	if m.opts.DryRun {
		return 1, nil
	}
	groupID, userID := itemGroupID(item), strings.TrimPrefix(keyAttr(item, attrSK), prefixUser)
	_, err := m.s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &m.s.table, Key: tableKey(keyAttr(item, attrPK), keyAttr(item, attrSK)),
		UpdateExpression:    aws.String(migrateFormer),
		ConditionExpression: aws.String(attrExists(attrLeftAt) + " AND " + attrNotExists(attrGSI3PK)),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":gsi3pk": str(userKey(userID)), ":gsi3sk": str(leftGSI3SK(groupID)),
		},
	})
	if IsCondCheckFailed(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// chat gives a group tied to a Telegram chat before chats had items of
// their own the CHAT#<chatId> item, so that the webhook and the notifier find
// it and no other group can take its chat: on condition that the group still
// has that chat and that no group has the item yet (if two old groups name
// one chat, the first migrated keeps it).
func (m *migration) chat(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	chatID, groupID := keyAttr(item, attrChatID), itemGroupID(item)
	if chatID == "" {
		return 0, nil
	}
	if m.opts.DryRun {
		_, exists, err := m.s.getItem(ctx, chatPK(chatID), skChat, true)
		if err != nil || exists {
			return 0, err
		}
		return 1, nil
	}
	put, err := m.s.putNew(chatRecord{itemKey: itemKey{PK: chatPK(chatID), SK: skChat}, ChatID: chatID, GroupID: groupID}, "chat")
	if err != nil {
		return 0, err
	}
	err = m.s.transactWrite(ctx, []types.TransactWriteItem{put, {ConditionCheck: &types.ConditionCheck{
		TableName: &m.s.table, Key: tableKey(groupPK(groupID), skMetadata),
		ConditionExpression:       aws.String(attrChatID + " = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": str(chatID)},
	}}})
	if IsCondCheckFailed(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// ledger gives a group that predates kept balances its ledger and balances.
func (m *migration) ledger(ctx context.Context, groupID string) (int, error) {
	s := m.s
	_, exists, err := s.getItem(ctx, groupPK(groupID), skLedger, true)
	if err != nil || exists {
		return 0, err
	}
	var members []string
	err = eachPage(ctx, func(a PageArgs) (Page[Member], error) { return s.ListMembers(ctx, groupID, a) }, func(mb *Member) {
		members = append(members, mb.UserID)
	})
	if err != nil {
		return 0, err
	}
	r, err := s.recompute(ctx, groupID)
	if err != nil {
		return 0, err
	}
	rec := ledgerRecord{itemKey: itemKey{PK: groupPK(groupID), SK: skLedger}, MemberIDs: members, BooksBeside: true}
	var books []types.TransactWriteItem
	for cur, b := range r.Books {
		rec.Currencies = append(rec.Currencies, cur.Code())
		books = append(books, s.balancesUpdate(groupID, bookDelta(b)))
	}
	if m.opts.DryRun {
		return 1 + len(books), nil
	}
	put, err := s.putNew(rec, "ledger")
	if err != nil {
		return 0, err
	}
	err = s.transactWrite(ctx, append([]types.TransactWriteItem{put}, books...))
	switch {
	case condFailedAt(err, 0):
		return 0, nil // another run made it meanwhile
	case err != nil:
		return 0, err
	}
	return 1 + len(books), nil
}

// bookDelta is the delta that builds a book from nothing.
func bookDelta(b *ledger.Book) ledger.Delta {
	d := ledger.Delta{Currency: b.Currency, Users: make(map[string]ledger.UserBalance, len(b.Users)), Pairs: b.Pairs}
	for id, u := range b.Users {
		d.Users[id] = *u
	}
	return d
}

// oldItemUpdate is the update expr of the item, with its values, on
// condition that the item is still in an earlier format.
func (m *migration) oldItemUpdate(item map[string]types.AttributeValue, expr string, values map[string]types.AttributeValue) *types.Update {
	vals := map[string]types.AttributeValue{":format": number(formatCurrent)}
	for k, v := range values {
		vals[k] = v
	}
	if strings.Contains(expr, ":one") {
		vals[":one"] = number(1)
	}
	return &types.Update{
		TableName: &m.s.table, Key: tableKey(keyAttr(item, attrPK), keyAttr(item, attrSK)),
		UpdateExpression: aws.String(expr), ConditionExpression: aws.String(condOldFormat),
		ExpressionAttributeValues: vals,
	}
}

// update applies an oldItemUpdate on its own; it counts as one write, or
// none when the item was deleted or rewritten meanwhile.
func (m *migration) update(ctx context.Context, u *types.Update) (int, error) {
	if m.opts.DryRun {
		return 1, nil
	}
	_, err := m.s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
		ConditionExpression: u.ConditionExpression, ExpressionAttributeValues: u.ExpressionAttributeValues,
	})
	if IsCondCheckFailed(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// groupTitle reads a group's title once per run.
func (m *migration) groupTitle(ctx context.Context, groupID string) (string, error) {
	m.mu.Lock()
	title, ok := m.titles[groupID]
	m.mu.Unlock()
	if ok {
		return title, nil
	}
	gs, err := m.s.GetGroups(ctx, []string{groupID})
	if err != nil {
		return "", err
	}
	if gs[0] != nil {
		title = gs[0].Title
	}
	m.mu.Lock()
	m.titles[groupID] = title
	m.mu.Unlock()
	return title, nil
}
