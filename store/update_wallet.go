package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateWallet sets a member's TON wallet address; an empty wallet removes it.
func (s *Store) UpdateWallet(ctx context.Context, groupID, userID, wallet string) (Member, error) {
	in := &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 tableKey(groupPK(groupID), memberSK(userID)),
		ConditionExpression: aws.String(condItemExists),
		ReturnValues:        types.ReturnValueAllNew,
	}
	if wallet == "" {
		in.UpdateExpression = aws.String("REMOVE " + attrWallet)
	} else {
		in.UpdateExpression = aws.String("SET " + attrWallet + " = :w")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":w": str(wallet)}
	}
	out, err := s.db.UpdateItem(ctx, in)
	if IsCondCheckFailed(err) {
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	}
	if err != nil {
		return Member{}, fmt.Errorf("update wallet: %w", err)
	}
	ms, err := decodeAll([]map[string]types.AttributeValue{out.Attributes}, (*memberRecord).member)
	if err != nil {
		return Member{}, err
	}
	return ms[0], nil
}
