package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// NotifyMarkerKeep is how long a notification marker lives: longer than a
// DynamoDB Stream keeps its records (24 hours), so that an event read again
// after a restart still finds its marker.
const NotifyMarkerKeep = 7 * 24 * time.Hour

// notifyMarkerRecord is the GROUP#<groupId> / NOTIFY#<seq>#<destination>
// item: event seq of the group was (or is being) sent to destination.
type notifyMarkerRecord struct {
	itemKey
	At  string `dynamodbav:"at"`
	TTL int64  `dynamodbav:"ttl"`
}

// ClaimNotifications writes the markers of the group's events seqs for one
// destination (a chat id, or "dm:<userId>"), each on the condition that it
// is absent, and returns the seqs this call claimed: the others were claimed
// before, by this or another instance, and must not be sent again. One
// TransactWriteItems per 100 events in the common case; when some markers
// exist the transaction is retried without them.
func (s *Store) ClaimNotifications(ctx context.Context, groupID string, seqs []int64, destination string) ([]int64, error) {
	return s.claimNotifications(ctx, groupID, seqs, destination, nil)
}

// errExtraFailed is claimNotifications' answer when the condition of its
// extra item failed.
var errExtraFailed = errors.New("the condition of the claim's extra item failed")

// claimNotifications is ClaimNotifications with, when extra is not nil, one
// more item in the transaction of the last markers (or alone, with none):
// the markers and it are written together. When extra's condition fails,
// nothing of that transaction is written and the answer is errExtraFailed
// (with the seqs of earlier transactions, claimed).
func (s *Store) claimNotifications(ctx context.Context, groupID string, seqs []int64, destination string, extra *types.TransactWriteItem) ([]int64, error) {
	now := s.stamp()
	var claimed []int64
	per := maxTransactItems
	if extra != nil {
		per--
	}
	for first := true; first || len(seqs) > 0; first = false {
		chunk := seqs[:min(len(seqs), per)]
		seqs = seqs[len(chunk):]
		for {
			items := make([]types.TransactWriteItem, len(chunk), len(chunk)+1)
			for i, seq := range chunk {
				it, err := s.putNew(notifyMarkerRecord{
					itemKey: itemKey{PK: groupPK(groupID), SK: notifySK(seq, destination)},
					At:      formatTime(now), TTL: now.Add(NotifyMarkerKeep).Unix(),
				}, "notification marker")
				if err != nil {
					return claimed, err
				}
				items[i] = it
			}
			if extra != nil && len(seqs) == 0 {
				items = append(items, *extra)
			}
			if len(items) == 0 {
				break
			}
			err := s.transactWrite(ctx, items)
			if err == nil {
				claimed = append(claimed, chunk...)
				break
			}
			if !IsCondCheckFailed(err) {
				return claimed, fmt.Errorf("claim notifications: %w", err)
			}
			if len(items) > len(chunk) && condFailedAt(err, len(chunk)) {
				return claimed, errExtraFailed
			}
			var rest []int64
			for i, seq := range chunk {
				if !condFailedAt(err, i) {
					rest = append(rest, seq)
				}
			}
			chunk = rest
		}
	}
	return claimed, nil
}
