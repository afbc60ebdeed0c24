package store

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// Expressions name attributes only through the constants of keys.go and of
// the record files, so that each attribute's name is written once. They are
// plain strings, the fixed ones joined once at start-up: building them with
// feature/dynamodb/expression would cost allocations on every request.

// attrExists is the condition that the item has attr.
func attrExists(attr string) string { return "attribute_exists(" + attr + ")" }

// attrNotExists is the condition that the item lacks attr.
func attrNotExists(attr string) string { return "attribute_not_exists(" + attr + ")" }

// attrContains is the condition that the set (or string) attr holds the
// value of the placeholder.
func attrContains(attr, placeholder string) string {
	return "contains(" + attr + ", " + placeholder + ")"
}

// Every item has a PK, so these say whether the item is there at all.
var (
	condItemAbsent = attrNotExists(attrPK)
	condItemExists = attrExists(attrPK)
)

// prefixKeyCond is the key condition of a list: one partition (:pk), the sort
// keys that begin with a prefix (:prefix); prefixValues gives the values.
func prefixKeyCond(pk, sk string) string {
	return pk + " = :pk AND begins_with(" + sk + ", :prefix)"
}

// The key conditions of the lists, on the table and on the indexes.
var (
	tablePrefixCond = prefixKeyCond(attrPK, attrSK)
	gsi1PrefixCond  = prefixKeyCond(attrGSI1PK, attrGSI1SK)
	gsi3PrefixCond  = prefixKeyCond(attrGSI3PK, attrGSI3SK)
	// gsi1UpToCond reads one GSI1 partition's sort keys up to :to (upTo):
	// the recurring expenses and the TON checks due by a time.
	gsi1UpToCond = attrGSI1PK + " = :pk AND " + attrGSI1SK + " <= :to"
	// tableRangeCond reads one partition's sort keys from :from to :to.
	tableRangeCond = attrPK + " = :pk AND " + attrSK + " BETWEEN :from AND :to"
	// groupHeadCond reads a group's ledger, books and METADATA (groupHeadRange).
	groupHeadCond = tableRangeCond
	// gsi2IDCond finds an expense or settlement by id (:pk).
	gsi2IDCond = attrGSI2PK + " = :pk"
)

// prefixValues are the values of a prefixKeyCond.
func prefixValues(pk, prefix string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{":pk": str(pk), ":prefix": str(prefix)}
}
