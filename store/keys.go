package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Every key format of the single table lives in this file, and only here:
// the key attributes every record embeds (itemKey), the builders, and beside
// a builder the parser that reads its key back, where anything does.
//
//	item                 PK                  SK                               GSI1PK / GSI1SK                  GSI2PK / GSI2SK              GSI3PK / GSI3SK
//	group                GROUP#<groupId>     METADATA                         PURGE / <purgeAfter>#<groupId> (deleted only)
//	group ledger         GROUP#<groupId>     LEDGER
//	group book           GROUP#<groupId>     LEDGER#<currency>
//	membership           GROUP#<groupId>     USER#<userId>                    USER#<userId> / GROUP#<groupId>
//	expense              GROUP#<groupId>     TX#<createdAt>#<expenseId>                                        EXPENSE#<expenseId> / <groupId>  USER#<payerId> / TX#<createdAt>#<expenseId>
//	expense participant  GROUP#<groupId>     PART#<expenseId>#<userId>        USER#<userId> / OWES#<createdAt>#<expenseId>                                     USER#<userId> / TX#<createdAt>#<expenseId>
//	settlement           GROUP#<groupId>     SETTLE#<createdAt>#<settlementId>                                 SETTLEMENT#<id> / <groupId>      USER#<fromUserId> / SETTLE#<createdAt>#<settlementId>
//	deleted expense      GROUP#<groupId>     DELETED#<createdAt>#<expenseId>  PURGE#RECEIPTS / <purgeAfter>#<groupId>#<expenseId> (with receipts only)  EXPENSE#<expenseId> / <groupId>  (expires: ttl)
//	pending upload       GROUP#<groupId>     UPLOAD#<uploadId>                (expires: ttl)
//	expense day          GROUP#<groupId>     DAY#<spentOn>#<createdAt>#<expenseId>
//	expense revision     GROUP#<groupId>     REV#<expenseId>#<version>
//	activity event       GROUP#<groupId>     EVENT#<seq>
//	invite               GROUP#<groupId>     INVITE!<expiresAt>#<inviteId>                                     INVITE#<sha256> / <groupId>      (expires: ttl)
//	invite (before)      GROUP#<groupId>     INVITE#<inviteId>                                                 INVITE#<sha256> / <groupId>      (expires: ttl)
//	migration progress   MIGRATION#<name>    SEGMENT#<segment>/<segments>
//	user profile         USER#<userId>       PROFILE
//	access token         TOKEN#<sha256>      TOKEN                            USER#<userId> / TOKEN#<createdAt>#<sha256>  (expires: ttl, when it has expiresAt)
//	idempotency record   USER#<userId>       IDEMPOTENCY#<key>                (expires: ttl)
//	usage counters       USER#<userId>       USAGE#<YYYY-MM-DD>               (expires: ttl)
//	kept rate table      RATE#<YYYY-MM-DD>   PROVIDER#<provider>              (expires: ttl)
//	spending summary     GROUP#<groupId>     SPEND#<YYYY-MM-DD>#<currency>
//	import's spending    GROUP#<groupId>     SPEND#<YYYY-MM-DD>#<currency>#<fileHash>
//	import record        GROUP#<groupId>     IMPORT#<fileHash>
//	recurring expense    GROUP#<groupId>     SERIES#<seriesId>                DUE#<shard> / <nextOn>#<groupId>#<seriesId>  SERIES#<seriesId> / <groupId>
//	occurrence marker    GROUP#<groupId>     RECUR#<seriesId>#<YYYY-MM-DD>
//	occurrence (expense) the expense's keys, and                              SERIES#<seriesId> / OCCURS#<spentAt>#<expenseId>
//	notification marker  GROUP#<groupId>     NOTIFY#<seq>#<destination>       (expires: ttl)
//	notification stamp   GROUP#<groupId>     STAMP#<kind>#<period>            (expires: ttl)
//	batch window         GROUP#<groupId>     WINDOW#<destination>             (expires: ttl)
//	digest stamp         USER#<userId>       STAMP#<kind>#<period>            (expires: ttl)
//	digest line          DIGEST#<kind>       <userId>#<groupId>#<seq>         (expires: ttl)
//	dead letter          NOTIFY#DEAD         <at>#<id>
//	queued letter        NOTIFY#OUTBOX       <at>#<id>
//	chat send counter    CHATRATE#<chatId>   MINUTE#<minute>                  (expires: ttl)
//	weekly reminder list NOTIFY#WEEKLY       <groupId>
//	connected chat       CHAT#<chatId>       CHAT
//	direct messages      USER#<userId>       DIRECT
//	stream shard lease   LEASE#<streamLabel>#<consumer> SHARD#<shardId>
//	TON check pending    the settlement's keys, and                           TONCHECK / <nextCheckAt>#<settlementId>
//	TON payment record   TONTX#<hash>        TONTX
//	erasure under way    ERASURE#<userId>    ERASURE                          ERASURE / <startedAt>#<userId>
//	former membership    the membership's keys, and                                                                             USER#<userId> / LEFT#<groupId>
//
// A deleted group's METADATA is listed under PURGE in GSI1 until it is
// restored (the keys go) or purged (the item goes, last of the group's):
// the purge job finds the groups whose restore window has passed with one
// Query (GSI1SK <= "<now>~"), never a Scan, and an interrupted purge is
// found again the same way.
//
// A recurring expense (a series) is listed under DUE#<shard> in GSI1 only
// while it is active (neither paused nor finished): the scheduler finds the
// series due by today with one Query per shard (GSI1SK <= "<today>~"), never
// a Scan. An occurrence is an ordinary expense with GSI1 keys under its
// series (dropped while it is deleted), and its marker, written on condition
// that it is absent, is its identity: one expense per series and day.
//
// A connected chat's item is the other half of a group's chatId: written
// with a condition in the same transaction, it makes a chat belong to at
// most one group, and it is how the webhook finds a chat's group by key.
// The direct-messages flag is absent until the user's first /start or the
// first refusal of their private chat: absent reads as allowed.
//
// A spending summary's key leads with the day, not the currency, so that one
// Query (SK BETWEEN SPEND#<from> AND SPEND#<to>$, spendRange) reads a range
// of days in every currency at once, a currency asked for being filtered;
// currency first would take one Query per currency the group uses.
//
// A group's ledger, its books (one per currency) and its METADATA sort
// next to each other and nothing else sorts between them, so that one Query
// (SK BETWEEN "LEDGER" AND "METADATA") reads the group with its balances.
// Books were BALANCES#<currency> items before (ledgers without booksBeside);
// the migration moves them, and until it has, reads add both up.
//
// An expense day is a keys-only item per live expense, written, moved and
// deleted in the same transaction as the expense (expense_day.go): its key
// leads with the day the money was spent (SpentOn, in the group's zone),
// so that one Query (SK BETWEEN DAY#<from> AND DAY#<to>~, dayRange) reads
// exactly the expenses of a range of days, however far their spent days lie
// from their creation. A group whose METADATA has daysKept has one for every
// live expense; `migrate` writes them for groups from before.
//
// A deleted expense moves from TX# to DELETED# (out of every list) and keeps
// its GSI2 keys, so that it is still found by id until it is restored or
// purged. Versions and sequence numbers are zero-padded so that sort keys
// sort as numbers: the newest revision and event come first when read
// backwards.
//
// An invite is found by the SHA-256 hash of its secret through GSI2 (the
// secret itself is never stored) and listed by key in its group's partition:
// its sort key leads with its expiry, so that one Query from
// INVITE!<now> up to INVITE$ (liveInviteRange) starts past every expired
// invite TTL has not purged yet, however many there are. Invites were keyed
// INVITE#<inviteId> before; '!' sorts just before '#', so that range holds
// the old ones too (all of them, expired or not, until TTL purges them
// within their 30 days' life) and nothing else, and reads decode both. A
// revoked invite stays, marked revokedAt, until TTL purges it.
//
// A former member's membership stays (with leftAt, without GSI1 keys) so
// that the expenses and settlements they took part in still name them; it
// is listed under the user in GSI3 (LEFT#<groupId>), so that their former
// memberships are found without a Scan (an erasure and /export/me.json go
// through them; memberships that ended before that key are given it by the
// migration). An erased membership (docs/privacy.md) is a former one with
// erasedAt and no personal attribute left. An erasure under way is listed
// under ERASURE in GSI1, so that the job that finishes interrupted ones
// reads them with one Query.
// Participant records exist for every user an expense involves except its
// main payer; GSI1 (OWES#) only while the user's share exceeds what they
// paid, GSI3 (TX#) only for the expense's other payers.
//
// Payment handles have no item of their own (payment_handles.go): a
// member's own set for a group is the membership's "pay" map (with "payV",
// its version), their default the profile's "pay" map; the default of many
// members is read with one BatchGetItem of their USER#<userId> / PROFILE keys.
//
// The id suffix on timestamped sort keys keeps two items written in the same
// millisecond apart and gives every list a total, stable order for cursors.

// Attribute names of the table's keys and indexes.
const (
	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	attrGSI3PK = "GSI3PK"
	attrGSI3SK = "GSI3SK"
)

// Index names.
const (
	indexGSI1 = "GSI1"
	indexGSI2 = "GSI2"
	indexGSI3 = "GSI3"
)

// Sort-key prefixes and fixed sort keys.
const (
	skMetadata      = "METADATA"
	skLedger        = "LEDGER"
	skProfile       = "PROFILE"
	skToken         = "TOKEN"
	prefixGroup     = "GROUP#"
	prefixUser      = "USER#"
	prefixTx        = "TX#"
	prefixPart      = "PART#"
	prefixOwes      = "OWES#"
	prefixSettle    = "SETTLE#"
	prefixExpense   = "EXPENSE#"
	prefixSettlemnt = "SETTLEMENT#"
	prefixToken     = "TOKEN#"
	prefixIdem      = "IDEMPOTENCY#"
	prefixBook      = skLedger + "#"
	prefixOldBook   = "BALANCES#"
	prefixDeleted   = "DELETED#"
	prefixRevision  = "REV#"
	prefixEvent     = "EVENT#"
	prefixMigration = "MIGRATION#"
	prefixInvite    = "INVITE#"
	prefixInviteExp = "INVITE!"
	prefixUsage     = "USAGE#"
	prefixRate      = "RATE#"
	prefixProvider  = "PROVIDER#"
	prefixSpend     = "SPEND#"
	prefixSeries    = "SERIES#"
	prefixRecur     = "RECUR#"
	prefixDue       = "DUE#"
	prefixOccurs    = "OCCURS#"
	prefixChat      = "CHAT#"
	skChat          = "CHAT"
	skDirect        = "DIRECT"
	prefixLease     = "LEASE#"
	prefixShard     = "SHARD#"
	prefixImport    = "IMPORT#"
	prefixDay       = "DAY#"
	prefixLeft      = "LEFT#"
	prefixErasure   = "ERASURE#"
	skErasure       = "ERASURE"
	erasuresGSI1PK  = "ERASURE"
)

// itemKey is the key attributes every record embeds; attributevalue
// flattens it into the item. A GSI key is written only when set, so an item
// is listed in an index exactly while it has that index's keys (a former
// member's membership drops out of GSI1).
type itemKey struct {
	PK     string
	SK     string
	GSI1PK string `dynamodbav:",omitempty"`
	GSI1SK string `dynamodbav:",omitempty"`
	GSI2PK string `dynamodbav:",omitempty"`
	GSI2SK string `dynamodbav:",omitempty"`
	GSI3PK string `dynamodbav:",omitempty"`
	GSI3SK string `dynamodbav:",omitempty"`
}

// tableKey is the table key of the item at pk, sk, as reads and writes name it.
func tableKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(pk), attrSK: str(sk)}
}

// keyAttr reads a key attribute of a raw item, "" if it has none.
func keyAttr(item map[string]types.AttributeValue, attr string) string {
	v, _ := item[attr].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func groupPK(groupID string) string { return prefixGroup + groupID }

// groupIDFromPK reads the group id out of a GROUP#<id> partition key.
func groupIDFromPK(pk string) string { return strings.TrimPrefix(pk, prefixGroup) }

// itemGroupID is the group of an item in a GROUP#<id> partition.
func itemGroupID(item map[string]types.AttributeValue) string {
	return groupIDFromPK(keyAttr(item, attrPK))
}

func userKey(userID string) string { return prefixUser + userID }

func memberSK(userID string) string { return prefixUser + userID }

func groupGSI1SK(groupID string) string { return prefixGroup + groupID }

// leftGSI3SK lists a former membership among the user's (GSI3PK USER#<userId>).
func leftGSI3SK(groupID string) string { return prefixLeft + groupID }

// erasurePK is the partition of a user's erasure under way.
func erasurePK(userID string) string { return prefixErasure + userID }

func expenseSK(createdAt, expenseID string) string { return prefixTx + createdAt + "#" + expenseID }

// isExpenseSK reports whether a sort key (SK or GSI3SK) is an expense's
// TX#<createdAt>#<expenseId>.
func isExpenseSK(sk string) bool { return strings.HasPrefix(sk, prefixTx) }

// timelineOrder is what orders a TX# or SETTLE# sort key in time:
// "<createdAt>#<id>", after the prefix.
func timelineOrder(sk string) string {
	_, rest, _ := strings.Cut(sk, "#")
	return rest
}

// expenseDaySK is the key of a live expense's day item: its day (DayLayout),
// then its TX# key's order, so that within a day the newest created sorts
// last, as in TX#.
func expenseDaySK(day, createdAt, expenseID string) string {
	return prefixDay + day + "#" + createdAt + "#" + expenseID
}

// parseExpenseDaySK reads a day item's key back: the day, and the expense's
// creation time (formatTime) and id.
func parseExpenseDaySK(sk string) (day, createdAt, expenseID string, ok bool) {
	rest, ok := strings.CutPrefix(sk, prefixDay)
	if !ok {
		return "", "", "", false
	}
	day, rest, ok1 := strings.Cut(rest, "#")
	i := strings.LastIndexByte(rest, '#')
	if !ok1 || i < 0 {
		return "", "", "", false
	}
	return day, rest[:i], rest[i+1:], true
}

// dayRange is the sort-key range, BETWEEN its two values, of the day items
// of the days from through to ("" leaves that end open): '~' sorts after
// every character of a key.
func dayRange(from, to string) (string, string) {
	return prefixDay + from, prefixDay + to + "~"
}

// deletedExpenseSK is the key of an expense's tombstone.
func deletedExpenseSK(createdAt, expenseID string) string {
	return prefixDeleted + createdAt + "#" + expenseID
}

// revisionSK with version 0 is the prefix of all the expense's revisions.
func revisionSK(expenseID string, version int) string {
	if version == 0 {
		return prefixRevision + expenseID + "#"
	}
	return prefixRevision + expenseID + "#" + fmt.Sprintf("%010d", version)
}

// eventSK with seq 0 is the prefix of all the group's events.
func eventSK(seq int64) string {
	if seq == 0 {
		return prefixEvent
	}
	return prefixEvent + fmt.Sprintf("%012d", seq)
}

func expenseGSI2PK(expenseID string) string { return prefixExpense + expenseID }

// participantSK with no user is the prefix of all the expense's participants.
func participantSK(expenseID, userID string) string {
	return prefixPart + expenseID + "#" + userID
}

func owesGSI1SK(createdAt, expenseID string) string { return prefixOwes + createdAt + "#" + expenseID }

func settlementSK(createdAt, settlementID string) string {
	return prefixSettle + createdAt + "#" + settlementID
}

func settlementGSI2PK(settlementID string) string { return prefixSettlemnt + settlementID }

func tokenPK(hash string) string { return prefixToken + hash }

// tokenHashFromPK reads the hash out of a TOKEN#<sha256> partition key.
func tokenHashFromPK(pk string) string { return strings.TrimPrefix(pk, prefixToken) }

func tokenGSI1SK(createdAt, hash string) string { return prefixToken + createdAt + "#" + hash }

// inviteSK is where an invite expiring at expiresAt (formatTime) is kept.
func inviteSK(expiresAt, inviteID string) string {
	return prefixInviteExp + expiresAt + "#" + inviteID
}

// oldInviteSK is where an invite was kept before expiry led its key.
func oldInviteSK(inviteID string) string { return prefixInvite + inviteID }

// isOldInviteSK reports whether an invite's sort key is of the old shape.
func isOldInviteSK(sk string) bool { return strings.HasPrefix(sk, prefixInvite) }

// liveInviteRange is the sort-key range, BETWEEN its two values, of the
// group's invites that expire after now (formatTime), and of every invite
// keyed the old way, INVITE#<inviteId>.
func liveInviteRange(now string) (from, to string) {
	return prefixInviteExp + now, "INVITE$"
}

// inviteGSI2PK is where an invite is looked up by the hash of its secret.
func inviteGSI2PK(hash string) string { return prefixInvite + hash }

// usageSK is the key of a user's counters for one UTC day ("2006-01-02").
func usageSK(day string) string { return prefixUsage + day }

func idempotencySK(key string) string { return prefixIdem + key }

// bookSK is the key of a group's book in one currency, beside its ledger.
func bookSK(currency string) string { return prefixBook + currency }

// oldBookSK is where a book was kept before it moved beside the ledger.
func oldBookSK(currency string) string { return prefixOldBook + currency }

// groupHeadRange is the sort-key range of a group's ledger, books and
// METADATA: BETWEEN its two values.
func groupHeadRange() (from, to string) { return skLedger, skMetadata }

// checkpointSK names one segment of a migration's parallel scan.
func checkpointSK(segment, segments int) string {
	return "SEGMENT#" + strconv.Itoa(segment) + "/" + strconv.Itoa(segments)
}

// ratePK is the partition of the rate tables kept for one UTC day
// ("2006-01-02"): the day they were fetched, not the provider's own date.
func ratePK(day string) string { return prefixRate + day }

// rateSK is where one provider's table of the day is kept.
func rateSK(provider string) string { return prefixProvider + provider }

// seriesSK is the key of a recurring expense in its group's partition; with
// no id, the prefix of all the group's recurring expenses.
func seriesSK(seriesID string) string { return prefixSeries + seriesID }

// seriesGSI2PK is where a recurring expense is looked up by id, and
// seriesGSI1PK where its occurrences are listed.
func seriesGSI2PK(seriesID string) string { return prefixSeries + seriesID }

func seriesGSI1PK(seriesID string) string { return prefixSeries + seriesID }

// dueGSI1PK is one shard of the index of active recurring expenses.
func dueGSI1PK(shard int) string { return prefixDue + strconv.Itoa(shard) }

// dueGSI1SK orders a recurring expense in its shard by the day it is next
// due ("2006-01-02").
func dueGSI1SK(nextOn, groupID, seriesID string) string {
	return nextOn + "#" + groupID + "#" + seriesID
}

// upTo is the upper bound (inclusive) of the sort keys that begin with
// prefix followed by '#' (dueGSI1SK of a day, tonCheckGSI1SK of a time) or
// sort before it: '~' sorts after '#' and every character of an id.
func upTo(prefix string) string { return prefix + "~" }

// parseDueGSI1SK reads a dueGSI1SK back.
func parseDueGSI1SK(sk string) (nextOn, groupID, seriesID string, ok bool) {
	parts := strings.Split(sk, "#")
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// occurrenceSK is the marker of a recurring expense's occurrence on day
// ("2006-01-02"): its identity.
func occurrenceSK(seriesID, day string) string { return prefixRecur + seriesID + "#" + day }

// occurrenceGSI1SK orders an occurrence among its series' by the time it was
// spent (its day), not by when the scheduler happened to create it.
func occurrenceGSI1SK(spentAt, expenseID string) string {
	return prefixOccurs + spentAt + "#" + expenseID
}

// spendSK is the key of a group's spending summary of one day (DayLayout)
// in one currency.
func spendSK(day, currency string) string { return prefixSpend + day + "#" + currency }

// spendImportSK is the part of a day's summary that an import into an
// existing group keeps: SPEND#<YYYY-MM-DD>#<currency>#<file hash>, beside
// the day's own item, hidden with the rest of the import until it is
// complete (import_gate.go); readers add the two up.
func spendImportSK(day, currency, fileHash string) string {
	return spendSK(day, currency) + "#" + fileHash
}

// parseSpendSK reads the day and currency back out of a summary's key (the
// day's own, or an import's part of it).
func parseSpendSK(sk string) (day, currency string, ok bool) {
	rest, ok := strings.CutPrefix(sk, prefixSpend)
	if !ok {
		return "", "", false
	}
	day, rest, ok = strings.Cut(rest, "#")
	currency, _, _ = strings.Cut(rest, "#")
	return day, currency, ok
}

// spendRange is the sort-key range, BETWEEN its two values, of the summaries
// of the days from through to, in every currency: '$' sorts right after '#'.
func spendRange(from, to string) (string, string) { return prefixSpend + from, prefixSpend + to + "$" }

// The notifier's items (notify/): markers and stamps are written on the
// condition that they are absent, so that the first writer alone sends.

const (
	prefixNotify   = "NOTIFY#"
	prefixStamp    = "STAMP#"
	prefixWindow   = "WINDOW#"
	prefixDigest   = "DIGEST#"
	prefixChatRate = "CHATRATE#"
	prefixMinute   = "MINUTE#"
	pkDeadLetters  = "NOTIFY#DEAD"
	pkOutbox       = "NOTIFY#OUTBOX"
	pkWeeklyList   = "NOTIFY#WEEKLY"
)

// notifySK is the marker of event seq sent to destination (a chat id, or
// "dm:<userId>"). The sequence is zero-padded as in eventSK.
func notifySK(seq int64, destination string) string {
	return prefixNotify + fmt.Sprintf("%012d", seq) + "#" + destination
}

// windowSK is the group's batch window for destination ("chat"): one item
// per group and destination, claimed by one notifier instance at a time on
// a condition (open, closed, or its owner's lease over), so that a window's
// events go out in one message however many instances read them
// (notify_window.go).
func windowSK(destination string) string { return prefixWindow + destination }

// stampSK is the stamp of one kind of timed message for one period.
func stampSK(kind, period string) string { return prefixStamp + kind + "#" + period }

// digestPK is the queue of one digest kind ("daily", "weekly").
func digestPK(kind string) string { return prefixDigest + kind }

// digestSK orders a queue by user, so one user's lines are read together.
func digestSK(userID, groupID string, seq int64) string {
	return userID + "#" + groupID + "#" + fmt.Sprintf("%012d", seq)
}

// parseDigestSK reads back the user, group and event of a digest line.
func parseDigestSK(sk string) (userID, groupID string, seq int64, ok bool) {
	parts := strings.SplitN(sk, "#", 3)
	if len(parts) != 3 {
		return "", "", 0, false
	}
	seq, err := strconv.ParseInt(parts[2], 10, 64)
	return parts[0], parts[1], seq, err == nil
}

// deadLetterSK orders dead letters by when they died, and queued letters
// by when they were queued.
func deadLetterSK(at, id string) string { return at + "#" + id }

// chatRateKey is the counter of messages sent to one chat in one minute.
func chatRateKey(chatID, minute string) (pk, sk string) {
	return prefixChatRate + chatID, prefixMinute + minute
}

// chatPK is the partition of a connected Telegram chat (its id in decimal).
func chatPK(chatID string) string { return prefixChat + chatID }

// directMessagesKey is the table key of a user's direct-messages flag.
func directMessagesKey(userID string) map[string]types.AttributeValue {
	return tableKey(userKey(userID), skDirect)
}

// leaseKey is the key of a stream shard's lease: every lease of one stream
// in one partition, so that one Query reads them all.
func leaseKey(stream, shardID string) (pk, sk string) {
	return prefixLease + stream, prefixShard + shardID
}

// The keys of TON payments verified on chain (docs/ton.md). A settlement
// whose verification is pending carries GSI1 keys TONCHECK /
// <nextCheckAt>#<settlementId>, so that the checker finds what is due with
// one Query (GSI1SK <= "<now>~"), never a Scan; they go when it is verified
// or fails. A payment that completed a settlement is recorded as
// TONTX#<transfer message hash, hex> / TONTX, written on condition that it
// is absent in the completing transaction: one payment completes at most
// one settlement.
const (
	tonCheckGSI1PK = "TONCHECK"
	prefixTonTx    = "TONTX#"
	skTonTx        = "TONTX"
)

// tonCheckGSI1SK orders a settlement awaiting verification by its next check.
func tonCheckGSI1SK(nextAt, settlementID string) string { return nextAt + "#" + settlementID }

// purgeGSI1PK lists deleted groups by the time they may be purged.
const purgeGSI1PK = "PURGE"

// receiptsPurgeGSI1PK lists deleted expenses that hold receipts by the time
// their tombstone may be purged: the receipts' objects go first
// (purge_receipts.go), which a TTL deletion could not do.
const receiptsPurgeGSI1PK = "PURGE#RECEIPTS"

// receiptsPurgeGSI1SK orders a deleted expense with receipts by when it may
// be purged (formatTime).
func receiptsPurgeGSI1SK(purgeAfter, groupID, expenseID string) string {
	return purgeAfter + "#" + groupID + "#" + expenseID
}

// parseReceiptsPurgeGSI1SK reads back receiptsPurgeGSI1SK.
func parseReceiptsPurgeGSI1SK(sk string) (groupID, expenseID string, ok bool) {
	parts := strings.Split(sk, "#")
	if len(parts) != 3 {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// prefixUpload starts a pending upload's sort key.
const prefixUpload = "UPLOAD#"

// uploadSK is a pending upload in its group's partition: UPLOAD#<uploadId>.
func uploadSK(uploadID string) string { return prefixUpload + uploadID }

// purgeGSI1SK orders a deleted group by when it may be purged (formatTime).
func purgeGSI1SK(purgeAfter, groupID string) string { return purgeAfter + "#" + groupID }

// tonTxPK is the record of the payment with the transfer message hash.
func tonTxPK(hash string) string { return prefixTonTx + hash }

// importSK is a group's record of one import: IMPORT#<sha256 of format and file>.
func importSK(fileHash string) string { return prefixImport + fileHash }

// Comments on expenses (comment.go): one item per comment in its group's
// partition, ordered by expense and then by time, so that one Query reads an
// expense's comments oldest first and another every comment of the group.
//
//	comment              GROUP#<groupId>     COMMENT#<expenseId>#<createdAt>#<commentId>     GSI2: COMMENT#<commentId> / <groupId>

const prefixComment = "COMMENT#"

// commentSK is where a comment is kept; createdAt is formatTime's, as in
// the TX# keys.
func commentSK(expenseID, createdAt, commentID string) string {
	return prefixComment + expenseID + "#" + createdAt + "#" + commentID
}

// expenseCommentsPrefix is the sort-key prefix of one expense's comments:
// expense ids hold no '#', so it matches no other expense's.
func expenseCommentsPrefix(expenseID string) string { return prefixComment + expenseID + "#" }

// commentGSI2PK is where a comment is looked up by id.
func commentGSI2PK(commentID string) string { return prefixComment + commentID }
