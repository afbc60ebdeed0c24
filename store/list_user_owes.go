package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListUserShares pages through the expenses the user owes on (their share
// exceeds what they paid) in the groups they are in, newest first (access
// pattern 10).
func (s *Store) ListUserShares(ctx context.Context, userID string, args PageArgs) (Page[Share], error) {
	return listPage(ctx, s, listQuery{
		list:    "user-owes:" + userID,
		index:   indexGSI1,
		keyCond: "GSI1PK = :pk AND begins_with(GSI1SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(userKey(userID)), ":prefix": str(prefixOwes)},
		keys:    gsi1Keys,
		keep:    s.inCurrentGroups(userID),
	}, args, (*participantRecord).share)
}
