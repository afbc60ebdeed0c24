package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxExpenseParticipants is the most distinct users (payer and beneficiaries
// together) one expense may involve. Creating an expense is one transaction:
// the ledger check, the expense, one record per beneficiary other than the
// payer and one idempotency record, within DynamoDB's 100 items.
const MaxExpenseParticipants = maxTransactItems - 2

// CreateExpense writes the expense and its participant records (one per
// beneficiary other than the payer) in one transaction, on condition that the
// group exists and that the payer and every beneficiary are its members.
// The store assigns the expense's id and creation time.
func (s *Store) CreateExpense(ctx context.Context, groupTitle string, e Expense) (Expense, error) {
	e.ID = s.newID()
	e.CreatedAt = s.stamp()
	for i := range e.Splits {
		e.Splits[i].ExpenseID, e.Splits[i].GroupID = e.ID, e.GroupID
	}
	involved := e.involvedUsers()
	if len(involved) > MaxExpenseParticipants {
		return Expense{}, fmt.Errorf("%w: %d participants, the limit is %d", ErrTooManyItems, len(involved), MaxExpenseParticipants)
	}
	items := []types.TransactWriteItem{{ConditionCheck: s.membersCheck(e.GroupID, involved)}}
	puts := []any{e.record()}
	for _, p := range e.participantRecords(groupTitle) {
		puts = append(puts, p)
	}
	for _, rec := range puts {
		av, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return Expense{}, fmt.Errorf("encode expense: %w", err)
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table, Item: av,
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}})
	}
	err := s.transactWrite(ctx, items)
	switch {
	case condFailedAt(err, 0):
		return Expense{}, notFoundf("group %s or one of its members involved in the expense", e.GroupID)
	case err != nil:
		return Expense{}, fmt.Errorf("create expense: %w", err)
	}
	return e, nil
}

// involvedUsers lists the payer and every beneficiary once, payer first.
func (e *Expense) involvedUsers() []string {
	users := []string{e.PayerID}
	seen := map[string]bool{e.PayerID: true}
	for _, sp := range e.Splits {
		if !seen[sp.UserID] {
			seen[sp.UserID] = true
			users = append(users, sp.UserID)
		}
	}
	return users
}

// membersCheck is a condition on the group's ledger: the group exists and
// every listed user is currently a member.
func (s *Store) membersCheck(groupID string, users []string) *types.ConditionCheck {
	cond := []string{"attribute_exists(PK)"}
	values := make(map[string]types.AttributeValue, len(users))
	for i, u := range users {
		ph := ":m" + strconv.Itoa(i)
		cond = append(cond, "contains(memberIds, "+ph+")")
		values[ph] = str(u)
	}
	return &types.ConditionCheck{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(groupID), skLedger),
		ConditionExpression:       aws.String(strings.Join(cond, " AND ")),
		ExpressionAttributeValues: values,
	}
}
