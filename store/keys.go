package store

// Every key format of the single table lives in this file, and only here.
//
//	item                 PK                  SK                               GSI1PK / GSI1SK                  GSI2PK / GSI2SK              GSI3PK / GSI3SK
//	group                GROUP#<groupId>     METADATA
//	group ledger         GROUP#<groupId>     LEDGER
//	group balances       GROUP#<groupId>     BALANCES#<currency>
//	membership           GROUP#<groupId>     USER#<userId>                    USER#<userId> / GROUP#<groupId>
//	expense              GROUP#<groupId>     TX#<createdAt>#<expenseId>                                        EXPENSE#<expenseId> / <groupId>  USER#<payerId> / TX#<createdAt>#<expenseId>
//	expense participant  GROUP#<groupId>     PART#<expenseId>#<userId>        USER#<userId> / OWES#<createdAt>#<expenseId>                                     USER#<userId> / TX#<createdAt>#<expenseId>
//	settlement           GROUP#<groupId>     SETTLE#<createdAt>#<settlementId>                                 SETTLEMENT#<id> / <groupId>      USER#<fromUserId> / SETTLE#<createdAt>#<settlementId>
//	user profile         USER#<userId>       PROFILE
//	access token         TOKEN#<sha256>      TOKEN                            USER#<userId> / TOKEN#<createdAt>#<sha256>
//	idempotency record   USER#<userId>       IDEMPOTENCY#<key>                (expires: ttl)
//
// A former member's membership stays (with leftAt, without GSI1 keys) so
// that the expenses and settlements they took part in still name them.
// Participant records exist for every user an expense involves except its
// main payer; GSI1 (OWES#) only while the user's share exceeds what they
// paid, GSI3 (TX#) only for the expense's other payers.
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
	prefixBalances  = "BALANCES#"
)

func groupPK(groupID string) string { return prefixGroup + groupID }

func userKey(userID string) string { return prefixUser + userID }

func memberSK(userID string) string { return prefixUser + userID }

func groupGSI1SK(groupID string) string { return prefixGroup + groupID }

func expenseSK(createdAt, expenseID string) string { return prefixTx + createdAt + "#" + expenseID }

func expenseGSI2PK(expenseID string) string { return prefixExpense + expenseID }

func participantSK(expenseID, userID string) string {
	return prefixPart + expenseID + "#" + userID
}

func participantsPrefix(expenseID string) string { return prefixPart + expenseID + "#" }

func owesGSI1SK(createdAt, expenseID string) string { return prefixOwes + createdAt + "#" + expenseID }

func settlementSK(createdAt, settlementID string) string {
	return prefixSettle + createdAt + "#" + settlementID
}

func settlementGSI2PK(settlementID string) string { return prefixSettlemnt + settlementID }

func tokenPK(hash string) string { return prefixToken + hash }

func tokenGSI1SK(createdAt, hash string) string { return prefixToken + createdAt + "#" + hash }

func idempotencySK(key string) string { return prefixIdem + key }

func balancesSK(currency string) string { return prefixBalances + currency }
