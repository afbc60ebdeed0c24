package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tokenOwnedBy: the token is there and belongs to :user.
var tokenOwnedBy = attrTokenUserID + " = :user"

// RevokeToken deletes the user's token with the given public id and returns
// it (its hash included, so that caches can drop it). The token is found
// among the user's tokens (GSI1), then deleted by its key on condition that
// it still belongs to the user. An id that is unknown, expired or another
// user's is ErrNotFound, all alike.
func (s *Store) RevokeToken(ctx context.Context, userID, id string) (Token, error) {
	tokens, err := s.ListUserTokens(ctx, userID)
	if err != nil {
		return Token{}, err
	}
	i := slices.IndexFunc(tokens, func(t Token) bool { return t.ID == id })
	if i < 0 || id == "" {
		return Token{}, notFoundf("access token %s", id)
	}
	t := tokens[i]
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       tableKey(tokenPK(t.Hash), skToken),
		ConditionExpression:       aws.String(tokenOwnedBy),
		ExpressionAttributeValues: map[string]types.AttributeValue{":user": str(userID)},
	})
	if IsCondCheckFailed(err) {
		return Token{}, notFoundf("access token %s", id) // revoked meanwhile
	}
	if err != nil {
		return Token{}, fmt.Errorf("revoke token: %w", err)
	}
	return t, nil
}
