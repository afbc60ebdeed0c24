package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListMembers pages through a group's current members in user-id order
// (access pattern 2); former members are filtered out.
func (s *Store) ListMembers(ctx context.Context, groupID string, args PageArgs) (Page[Member], error) {
	return listPage(ctx, s, listQuery{
		list:    "members:" + groupID,
		keyCond: "PK = :pk AND begins_with(SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":prefix": str(prefixUser)},
		filter:  "attribute_not_exists(leftAt)",
		forward: true,
		keys:    tableKeys,
	}, args, (*memberRecord).member)
}
