package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// IdempotencyWindow is how long an idempotency key is remembered.
const IdempotencyWindow = 24 * time.Hour

// idempotencyRecord remembers, per user and key, what a create request made,
// so that a retry returns it instead of making another. It is written in the
// same transaction as what it records, and expires through the table's TTL
// on `ttl` (and is ignored once expired, as TTL deletion lags).
type idempotencyRecord struct {
	itemKey
	Kind        string `dynamodbav:"kind"` // "expense", "settlement" or "comment"
	ResourceID  string `dynamodbav:"resourceId"`
	GroupID     string `dynamodbav:"groupId"`
	CreatedAt   string `dynamodbav:"createdAt"`
	Fingerprint string `dynamodbav:"fingerprint"`
	TTL         int64  `dynamodbav:"ttl"`
}

// attrTTL is the attribute the table's TTL expires items by (epoch seconds).
const attrTTL = "ttl"

// idempotencyClaimable: no claim on the key, or only an expired one.
var idempotencyClaimable = condItemAbsent + " OR #ttl < :now"

// idempotencyPut is the transaction item that claims the key, unless an
// unexpired claim exists.
func (s *Store) idempotencyPut(userID, key string, rec idempotencyRecord) (types.TransactWriteItem, error) {
	rec.PK, rec.SK = userKey(userID), idempotencySK(key)
	rec.TTL = s.now().Add(IdempotencyWindow).Unix()
	av, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("encode idempotency record: %w", err)
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: av,
		ConditionExpression:      aws.String(idempotencyClaimable),
		ExpressionAttributeNames: map[string]string{"#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(s.now().Unix(), 10)},
		},
	}}, nil
}

// claimedBy reads the record that holds userID's key and checks that it was
// made by the same request (kind and fingerprint); it returns the record and
// when the resource it names was created (what locates its item).
func (s *Store) claimedBy(ctx context.Context, userID, key, kind, fingerprint string) (idempotencyRecord, time.Time, error) {
	item, ok, err := s.getItem(ctx, userKey(userID), idempotencySK(key), true)
	if err != nil {
		return idempotencyRecord{}, time.Time{}, err
	}
	var rec idempotencyRecord
	if ok {
		err = attributevalue.UnmarshalMap(item, &rec)
	}
	if err != nil || !ok || rec.TTL < s.now().Unix() {
		return idempotencyRecord{}, time.Time{}, conflictf("the idempotency key is being used by another request; retry")
	}
	if rec.Kind != kind || rec.Fingerprint != fingerprint {
		return idempotencyRecord{}, time.Time{}, conflictf("the idempotency key was already used for a different request")
	}
	created, err := parseTime(rec.CreatedAt)
	if err != nil {
		return idempotencyRecord{}, time.Time{}, err
	}
	return rec, created, nil
}

// fingerprint hashes the parts of a request that make it the same request.
// Each part is written after its length, so no two different lists of
// parts hash the same bytes, whatever characters the parts hold.
func fingerprint(parts ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
