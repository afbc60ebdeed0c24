package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DueTonChecks lists up to limit settlements whose pending verification is
// due by now, soonest first, with one Query of GSI1 (TONCHECK, never a
// Scan). The index is eventually consistent: a listed one may have moved on
// meanwhile, which ClaimTonCheck's condition finds.
func (s *Store) DueTonChecks(ctx context.Context, now time.Time, limit int) ([]Settlement, error) {
	items, err := s.collect(ctx, listQuery{
		list: "toncheck", index: indexGSI1, keyCond: gsi1UpToCond, forward: true,
		values: map[string]types.AttributeValue{":pk": str(tonCheckGSI1PK), ":to": str(upTo(formatTime(now)))},
	}, nil, limit)
	if err != nil {
		return nil, err
	}
	return decodeAll(items, (*settlementRecord).settlement)
}
