package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Erasing a user's data (GDPR article 17; docs/privacy.md). A person may be
// in many groups, so an erasure cannot be one transaction; it is resumable
// and idempotent instead:
//
//  1. the ERASURE record is written first: the groups to go through (every
//     membership, current and former) and the names and wallets the person
//     was known by there, which the rewriting of old text needs;
//  2. the per-user items go: access tokens (so the person's credentials stop
//     working), the profile, idempotency records, usage counters, digest
//     stamps, the direct-messages flag (everything in USER#<id>), and their
//     lines in the digest queues;
//  3. per group: the membership loses every personal attribute and is
//     marked erased and former (out of the user's groups and of the ledger's
//     members), with a MEMBER_ERASED event, in one transaction; then every
//     item of the group that names the person is rewritten to name "Former
//     member" (expenses, participant records, settlements, comments,
//     recurring expenses, claimed placeholders, revisions, the activity
//     events' slots, import records). The group is then taken off the
//     record;
//  4. the record is deleted last.
//
// Each step is conditioned and idempotent, so running the erasure again
// (the user's retry, or the erasures job, ResumeErasures) finishes an
// interrupted one. Amounts are never touched: balances, books and the
// ledger's sums stay as they were.

// erasureRecord is the ERASURE#<userId> / ERASURE item, with GSI1 keys
// ERASURE / <startedAt>#<userId> so that the job finds the erasures under
// way with one Query.
type erasureRecord struct {
	itemKey
	UserID    string   `dynamodbav:"userId"`
	StartedAt string   `dynamodbav:"startedAt"`
	Groups    []string `dynamodbav:"groups,stringset,omitempty"`
	Names     []string `dynamodbav:"names,stringset,omitempty"`
	Wallets   []string `dynamodbav:"wallets,stringset,omitempty"`
	// Placeholders are the ids of the placeholders the person claimed:
	// what others wrote of them before they joined is theirs too.
	Placeholders []string `dynamodbav:"placeholders,stringset,omitempty"`
}

// Attributes of erasure that expressions name.
const (
	attrErasedAt = "erasedAt"
	attrGroups   = "groups"
	attrSlots    = "slots"
	attrChanges  = "changes"
)

// EraseResult is what an erasure did, and what is left.
type EraseResult struct {
	// Groups is how many memberships were erased, Tokens how many access
	// tokens revoked (their hashes in TokenHashes, for caches to forget),
	// Items how many other items were rewritten or deleted.
	Groups, Tokens, Items int
	TokenHashes           []string
	// Pending lists the groups still to go through when the erasure stopped
	// early (an error, or the deadline): the erasures job finishes them.
	Pending []string
}

// EraseUser erases the user's data (see above), or finishes an erasure
// that was interrupted. It returns what it did; on an error, Pending says
// what is left, and the ERASURE record stays for the job to finish.
func (s *Store) EraseUser(ctx context.Context, userID string) (EraseResult, error) {
	var res EraseResult
	rec, err := s.startErasure(ctx, userID)
	if err != nil {
		return res, err
	}
	res.Pending = slices.Clone(rec.Groups)
	if err := s.eraseUserItems(ctx, userID, &res); err != nil {
		return res, err
	}
	er := erasure{UserID: userID, Names: rec.Names, Wallets: rec.Wallets, Placeholders: rec.Placeholders}
	for _, groupID := range rec.Groups {
		erased, n, err := s.eraseFromGroup(ctx, groupID, er)
		res.Groups, res.Items = res.Groups+erased, res.Items+n
		if err != nil {
			return res, fmt.Errorf("erase from group %s: %w", groupID, err)
		}
		if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &s.table, Key: erasureKey(userID),
			UpdateExpression:          aws.String("DELETE " + attrGroups + " :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": stringSet(groupID)},
		}); err != nil {
			return res, fmt.Errorf("erasure progress: %w", err)
		}
		res.Pending = slices.DeleteFunc(res.Pending, func(g string) bool { return g == groupID })
	}
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: erasureKey(userID)}); err != nil {
		return res, fmt.Errorf("finish erasure: %w", err)
	}
	return res, nil
}

func erasureKey(userID string) map[string]types.AttributeValue {
	return tableKey(erasurePK(userID), skErasure)
}

// startErasure reads the user's erasure under way, or writes a new one:
// every group they are or were a member of, and the names and wallets they
// had there (their claimed placeholders' names too).
func (s *Store) startErasure(ctx context.Context, userID string) (erasureRecord, error) {
	item, ok, err := s.getItem(ctx, erasurePK(userID), skErasure, true)
	if err != nil {
		return erasureRecord{}, err
	}
	var rec erasureRecord
	if ok {
		err := attributevalue.UnmarshalMap(item, &rec)
		return rec, err
	}
	memberships, err := s.UserMemberships(ctx, userID)
	if err != nil {
		return erasureRecord{}, err
	}
	rec = erasureRecord{UserID: userID, StartedAt: formatTime(s.stamp())}
	rec.itemKey = itemKey{PK: erasurePK(userID), SK: skErasure, GSI1PK: erasuresGSI1PK, GSI1SK: rec.StartedAt + "#" + userID}
	add := func(list *[]string, v string) {
		if v != "" && v != ErasedName && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	if p, err := s.GetUserProfile(ctx, userID); err == nil {
		add(&rec.Names, p.Name)
	} else if !isNotFound(err) {
		return erasureRecord{}, err
	}
	for _, m := range memberships {
		rec.Groups = append(rec.Groups, m.GroupID)
		add(&rec.Names, m.Name)
		add(&rec.Wallets, m.Wallet)
		members, err := s.allMembers(ctx, m.GroupID)
		if err != nil {
			return erasureRecord{}, err
		}
		for _, ph := range members {
			if ph.Placeholder && ph.ClaimedBy == userID {
				add(&rec.Names, ph.Name)
				add(&rec.Placeholders, ph.UserID)
			}
		}
	}
	put, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return erasureRecord{}, fmt.Errorf("encode erasure: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: put, ConditionExpression: aws.String(condItemAbsent),
	})
	if IsCondCheckFailed(err) {
		return s.startErasure(ctx, userID) // another request began it meanwhile
	}
	if err != nil {
		return erasureRecord{}, fmt.Errorf("begin erasure: %w", err)
	}
	return rec, nil
}

// allMembers is every membership of the group, current and former.
func (s *Store) allMembers(ctx context.Context, groupID string) ([]Member, error) {
	var all []Member
	err := eachPage(ctx, func(a PageArgs) (Page[Member], error) { return s.ListMemberships(ctx, groupID, a) }, func(m *Member) {
		all = append(all, *m)
	})
	return all, err
}

// UserMemberships is every membership of the user, current (GSI1) and
// former (GSI3 LEFT#), erased ones included.
func (s *Store) UserMemberships(ctx context.Context, userID string) ([]Member, error) {
	current, err := s.AllUserGroups(ctx, userID)
	if err != nil {
		return nil, err
	}
	items, err := s.collect(ctx, listQuery{
		list: "user-former:" + userID, index: indexGSI3, keyCond: gsi3PrefixCond,
		values: prefixValues(userKey(userID), prefixLeft), forward: true, keys: gsi3Keys,
	}, nil, 1<<30)
	if err != nil {
		return nil, err
	}
	former, err := decodeAll(items, (*memberRecord).member)
	if err != nil {
		return nil, err
	}
	return append(current, former...), nil
}

// eraseUserItems deletes the user's own items: tokens first, so that their
// credentials stop working, then their USER#<id> partition and their
// digest lines.
func (s *Store) eraseUserItems(ctx context.Context, userID string, res *EraseResult) error {
	for {
		tokens, err := s.ListUserTokens(ctx, userID)
		if err != nil {
			return err
		}
		if len(tokens) == 0 {
			break
		}
		for _, t := range tokens {
			if _, err := s.RevokeToken(ctx, userID, t.ID); err != nil && !isNotFound(err) {
				return err
			}
			res.Tokens++
			res.TokenHashes = append(res.TokenHashes, t.Hash)
		}
	}
	var keys []map[string]types.AttributeValue
	err := s.queryPartition(ctx, userKey(userID), func(item map[string]types.AttributeValue) error {
		keys = append(keys, tableKey(keyAttr(item, attrPK), keyAttr(item, attrSK)))
		return nil
	})
	if err != nil {
		return err
	}
	for _, kind := range []Digest{DigestDaily, DigestWeekly} {
		err := s.queryPartition(ctx, digestPK(string(kind)), func(item map[string]types.AttributeValue) error {
			if strings.HasPrefix(keyAttr(item, attrSK), userID+"#") {
				keys = append(keys, tableKey(keyAttr(item, attrPK), keyAttr(item, attrSK)))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, k := range keys {
		if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: k}); err != nil {
			return fmt.Errorf("erase %s: %w", keyAttr(k, attrSK), err)
		}
		res.Items++
	}
	return s.erasePaymentHandles(ctx, userID, res)
}

// erasePaymentHandles erases the user's payment handles
// (payment_handles.go): their default went with their profile above; here
// every membership, current or former, that has a set of its own loses it,
// before the groups are gone through (whose erasure of the membership
// removes them too, should one be set meanwhile). Each is counted in
// res.Items.
func (s *Store) erasePaymentHandles(ctx context.Context, userID string, res *EraseResult) error {
	memberships, err := s.UserMemberships(ctx, userID)
	if err != nil {
		return err
	}
	for _, m := range memberships {
		if m.PaymentHandles == nil {
			continue
		}
		_, err := s.db.UpdateItem(ctx, s.erasePaymentHandlesUpdate(m.GroupID, userID))
		switch {
		case IsCondCheckFailed(err):
			continue // the group is gone
		case err != nil:
			return fmt.Errorf("erase payment handles in group %s: %w", m.GroupID, err)
		}
		res.Items++
	}
	return nil
}

// eraseFromGroup erases the person's membership of the group (erased 1,
// or 0 when it was already) and every mention of them in its items, and
// reports how many of those it rewrote.
func (s *Store) eraseFromGroup(ctx context.Context, groupID string, er erasure) (erased, items int, err error) {
	if _, err := s.ResealChain(ctx, groupID); err != nil {
		return 0, 0, err
	}
	if _, err := s.PassOwnership(ctx, groupID, er.UserID); err != nil && !isNotFound(err) {
		return 0, 0, err // a deleted group (not found) keeps no owner: the purge takes it
	}
	if erased, err = s.eraseMembership(ctx, groupID, er.UserID); err != nil {
		return 0, 0, err
	}
	items, err = s.scrubGroup(ctx, groupID, er)
	return erased, items, err
}

// The expressions of erasing a membership: every personal attribute goes,
// the membership is marked erased and former, out of the user's groups
// (GSI1) and listed among their former ones (GSI3 LEFT#).
// Names and languages are DynamoDB reserved words: every attribute the
// update removes is named by placeholder (memberEraseNames).
var (
	memberErase = "SET #name = :erased, " + attrErasedAt + " = :now, " + setIfMissing(attrLeftAt, ":now") +
		", " + attrGSI3PK + " = :gsi3pk, " + attrGSI3SK + " = :gsi3sk REMOVE " +
		"#username, #wallet, #avatar, #language, #muted, #digest, " + attrPay + ", " + attrPayV + ", " + attrGSI1PK + ", " + attrGSI1SK
	memberEraseNames = map[string]string{
		"#name": attrName, "#username": attrUsername, "#wallet": attrWallet, "#avatar": attrAvatarURL,
		"#language": attrLanguage, "#muted": attrMuted, "#digest": attrDigest,
	}
	memberNotErased = condItemExists + " AND " + attrNotExists(attrErasedAt)
)

// Attributes of the membership item an erasure removes.
const (
	attrName      = "name"
	attrUsername  = "username"
	attrAvatarURL = "avatarUrl"
)

// eraseMembership erases the membership in one transaction with the
// MEMBER_ERASED event: a current member also leaves (memberCount, the
// ledger's members), whatever their balance; the amounts stay. It writes
// nothing (0) when the membership is erased already or absent.
func (s *Store) eraseMembership(ctx context.Context, groupID, userID string) (int, error) {
	for range leaveAttempts {
		m, err := s.getMember(ctx, groupID, userID, true)
		if isNotFound(err) || (err == nil && m.ErasedAt != nil) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		now := formatTime(s.stamp())
		pk := groupPK(groupID)
		cond := memberNotErased + " AND " + attrExists(attrLeftAt)
		if m.Active() {
			cond = memberNotErased + " AND " + memberNotLeft
		}
		items := []types.TransactWriteItem{{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, memberSK(userID)),
			UpdateExpression:         aws.String(memberErase),
			ConditionExpression:      aws.String(cond),
			ExpressionAttributeNames: memberEraseNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":erased": str(ErasedName), ":now": str(now),
				":gsi3pk": str(userKey(userID)), ":gsi3sk": str(leftGSI3SK(groupID)),
			},
		}}}
		if m.Active() {
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: &s.table, Key: tableKey(pk, skMetadata),
				UpdateExpression:          aws.String("ADD " + attrMemberCount + " :minus"),
				ConditionExpression:       aws.String(condItemExists),
				ExpressionAttributeValues: map[string]types.AttributeValue{":minus": number(-1)},
			}})
		}
		ev := memberEvent(EventMemberErased, groupID, userID, now, nil)
		err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
			l.writesArchived() // a person's erasure reaches every group they were in,
			l.writesDeleted()  // archived or awaiting its purge
			if m.Active() {
				l.removeMember(userID)
				l.bumpVersion()
			}
			return items, nil
		})
		switch {
		case err == nil:
			return 1, nil
		case condFailedAt(err, 1):
			continue // erased, left or rejoined meanwhile: look again
		case condFailedAt(err, 0):
			return 0, nil // the group is gone
		default:
			return 0, fmt.Errorf("erase membership: %w", err)
		}
	}
	return 0, errChainBusy
}

// nameRefs are the pairs of attributes that name a member by id and by
// name in the group's items: on expenses, participant records,
// settlements and comments; and the lists of payers and splits.
var (
	nameRefs = [][2]string{
		{"payerId", "payerName"}, {"userId", "userName"}, {"fromUserId", "fromUserName"},
		{"toUserId", "toUserName"}, {"authorId", "authorName"},
	}
	nameLists = []string{"payers", "splits"}
)

// scrubGroup rewrites every item of the group that names the person, item
// by item, each on condition that it still names them where it did: a
// write meanwhile leaves the item for the next run. It reports how many
// items it rewrote.
func (s *Store) scrubGroup(ctx context.Context, groupID string, er erasure) (int, error) {
	var updates []*dynamodb.UpdateItemInput
	err := s.queryPartition(ctx, groupPK(groupID), func(item map[string]types.AttributeValue) error {
		u, err := s.scrubItem(item, er)
		if u != nil {
			updates = append(updates, u)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, u := range updates {
		_, err := s.db.UpdateItem(ctx, u)
		switch {
		case IsCondCheckFailed(err):
			continue // changed meanwhile; ErasedName is what any write puts there now
		case err != nil:
			return n, fmt.Errorf("erase from %s: %w", keyAttr(u.Key, attrSK), err)
		}
		n++
	}
	return n, nil
}

// scrubItem is the update that takes the person out of one item, nil when
// the item does not name them.
func (s *Store) scrubItem(item map[string]types.AttributeValue, er erasure) (*dynamodb.UpdateItemInput, error) {
	sk := keyAttr(item, attrSK)
	u := &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(keyAttr(item, attrPK), sk),
		ExpressionAttributeNames:  map[string]string{},
		ExpressionAttributeValues: map[string]types.AttributeValue{":u": str(er.UserID), ":erased": str(ErasedName)},
	}
	var sets, conds []string
	switch {
	case strings.HasPrefix(sk, prefixEvent):
		return s.scrubEvent(item, er)
	case strings.HasPrefix(sk, prefixRevision):
		return s.scrubRevision(item, er)
	case strings.HasPrefix(sk, prefixImport):
		return scrubImport(u, item, er), nil
	case strings.HasPrefix(sk, prefixUser):
		if keyAttr(item, attrClaimedBy) == er.UserID && keyAttr(item, attrName) != ErasedName {
			sets, conds = []string{"#name = :erased"}, []string{attrClaimedBy + " = :u"}
			u.ExpressionAttributeNames["#name"] = attrName
		}
	default:
		for _, ref := range nameRefs {
			if keyAttr(item, ref[0]) == er.UserID && keyAttr(item, ref[1]) != ErasedName {
				sets, conds = append(sets, ref[1]+" = :erased"), append(conds, ref[0]+" = :u")
			}
		}
		for _, list := range nameLists {
			l, _ := item[list].(*types.AttributeValueMemberL)
			if l == nil {
				continue
			}
			for i, el := range l.Value {
				m, _ := el.(*types.AttributeValueMemberM)
				if m == nil || keyAttr(m.Value, "userId") != er.UserID || keyAttr(m.Value, "userName") == ErasedName {
					continue
				}
				at := list + "[" + strconv.Itoa(i) + "]."
				sets, conds = append(sets, at+"userName = :erased"), append(conds, at+"userId = :u")
			}
		}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	u.UpdateExpression = aws.String("SET " + strings.Join(sets, ", "))
	u.ConditionExpression = aws.String(strings.Join(conds, " AND "))
	if len(u.ExpressionAttributeNames) == 0 {
		u.ExpressionAttributeNames = nil
	}
	return u, nil
}

// scrubEvent erases the person's values from an activity event's slots,
// keeping their digests, so that the chain still verifies (personal.go).
// The event must be in hash format 2 (the group's log is resealed first).
func (s *Store) scrubEvent(item map[string]types.AttributeValue, er erasure) (*dynamodb.UpdateItemInput, error) {
	var r eventRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return nil, fmt.Errorf("decode event %s: %w", r.SK, err)
	}
	if r.hashFormat() < hashFormat2 {
		return nil, fmt.Errorf("event %s is still in hash format 1: reseal the log first", r.SK)
	}
	about := r.SubjectKind == string(SubjectMember) && r.SubjectID == er.UserID
	if !er.eraseSlots(r.Slots, r.Changes, about) {
		return nil, nil
	}
	slots, err := attributevalue.Marshal(r.Slots)
	if err != nil {
		return nil, fmt.Errorf("encode slots: %w", err)
	}
	return &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(r.PK, r.SK),
		UpdateExpression:          aws.String("SET " + attrSlots + " = :s ADD " + attrRedactions + " :one"),
		ConditionExpression:       aws.String("#h = :h"),
		ExpressionAttributeNames:  map[string]string{"#h": attrHash},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": slots, ":h": str(r.Hash), ":one": number(1)},
	}, nil
}

// scrubRevision erases the person from an expense revision: its slots, or
// in a revision written before slots, the names in its strings.
func (s *Store) scrubRevision(item map[string]types.AttributeValue, er erasure) (*dynamodb.UpdateItemInput, error) {
	var r revisionRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return nil, fmt.Errorf("decode revision %s: %w", r.SK, err)
	}
	changed := er.redactChanges(r.Changes)
	if er.eraseSlots(r.Slots, r.Changes, false) {
		changed = true
	}
	if !changed {
		return nil, nil
	}
	changes, err := attributevalue.Marshal(r.Changes)
	if err != nil {
		return nil, fmt.Errorf("encode changes: %w", err)
	}
	values := map[string]types.AttributeValue{":c": changes}
	update := "SET " + attrChanges + " = :c"
	if len(r.Slots) > 0 {
		if values[":s"], err = attributevalue.Marshal(r.Slots); err != nil {
			return nil, fmt.Errorf("encode slots: %w", err)
		}
		update += ", " + attrSlots + " = :s"
	}
	return &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(r.PK, r.SK), UpdateExpression: aws.String(update),
		ConditionExpression: aws.String(condItemExists), ExpressionAttributeValues: values,
	}, nil
}

// scrubImport drops the person from an import record's members, which map
// the names a file used to the members they became.
func scrubImport(u *dynamodb.UpdateItemInput, item map[string]types.AttributeValue, er erasure) *dynamodb.UpdateItemInput {
	m, _ := item["members"].(*types.AttributeValueMemberM)
	if m == nil {
		return nil
	}
	var removes, conds []string
	for name, v := range m.Value {
		if id, _ := v.(*types.AttributeValueMemberS); id != nil && id.Value == er.UserID {
			ph := "#n" + strconv.Itoa(len(removes))
			u.ExpressionAttributeNames[ph] = name
			removes = append(removes, "#members."+ph)
			conds = append(conds, "#members."+ph+" = :u")
		}
	}
	if len(removes) == 0 {
		return nil
	}
	u.ExpressionAttributeNames["#members"] = "members"
	delete(u.ExpressionAttributeValues, ":erased")
	u.UpdateExpression = aws.String("REMOVE " + strings.Join(removes, ", "))
	u.ConditionExpression = aws.String(strings.Join(conds, " AND "))
	return u
}

// ErasureResumeAfter is how long after it began an erasure that has not
// finished is taken for interrupted, and finished by the erasures job: past
// any request's deadline, so that the job does not race the request.
const ErasureResumeAfter = 2 * time.Minute

// PendingErasures lists the users whose erasure began before the time and
// has not finished: the erasures job resumes them.
func (s *Store) PendingErasures(ctx context.Context, before time.Time) ([]string, error) {
	items, err := s.collect(ctx, listQuery{
		list: "erasures", index: indexGSI1, keyCond: gsi1UpToCond,
		values:  map[string]types.AttributeValue{":pk": str(erasuresGSI1PK), ":to": str(formatTime(before))},
		forward: true, keys: gsi1Keys,
	}, nil, MaxPageSize)
	if err != nil {
		return nil, err
	}
	users := make([]string, 0, len(items))
	for _, it := range items {
		users = append(users, keyAttr(it, "userId"))
	}
	return users, nil
}

// ResumeErasures finishes the erasures that began before the time and were
// interrupted; it returns how many it finished.
func (s *Store) ResumeErasures(ctx context.Context, before time.Time) (int, error) {
	users, err := s.PendingErasures(ctx, before)
	if err != nil {
		return 0, err
	}
	done := 0
	var errs []error
	for _, u := range users {
		if _, err := s.EraseUser(ctx, u); err != nil {
			errs = append(errs, fmt.Errorf("erasure of user %s: %w", u, err))
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}
