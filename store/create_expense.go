package store

import (
	"context"
	"fmt"
	"slices"
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
//
// With an idempotency key, the recorder's key is claimed in the same
// transaction; a retry of the same expense with the same key returns the
// expense the first request created, and another expense with that key
// fails with ErrConflict.
func (s *Store) CreateExpense(ctx context.Context, groupTitle string, e Expense, idempotencyKey string) (Expense, error) {
	e.ID = s.newID()
	e.CreatedAt = s.stamp()
	e.Splits = slices.Clone(e.Splits) // the caller's slice stays as it was
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
	idem := -1
	if idempotencyKey != "" {
		put, err := s.idempotencyPut(e.CreatedBy, idempotencyKey, idempotencyRecord{
			Kind: "expense", ResourceID: e.ID, GroupID: e.GroupID, CreatedAt: formatTime(e.CreatedAt), Fingerprint: e.fingerprint(),
		})
		if err != nil {
			return Expense{}, err
		}
		idem, items = len(items), append(items, put)
	}
	err := s.transactWrite(ctx, items)
	switch {
	case idem >= 0 && condFailedAt(err, idem):
		return s.replayExpense(ctx, e, idempotencyKey)
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

// replayExpense returns the expense an earlier request with the same key made.
func (s *Store) replayExpense(ctx context.Context, e Expense, key string) (Expense, error) {
	rec, err := s.claimedBy(ctx, e.CreatedBy, key, "expense", e.fingerprint())
	if err != nil {
		return Expense{}, err
	}
	created, err := parseTime(rec.CreatedAt)
	if err != nil {
		return Expense{}, err
	}
	found, err := s.GetExpenses(ctx, []ExpenseRef{{ID: rec.ResourceID, GroupID: rec.GroupID, CreatedAt: created}})
	if err != nil {
		return Expense{}, err
	}
	if found[0] == nil {
		return Expense{}, conflictf("this request was already made, and the expense it created has since been deleted")
	}
	return *found[0], nil
}

// fingerprint identifies what the expense says, apart from its id and time.
func (e *Expense) fingerprint() string {
	parts := []string{e.GroupID, e.PayerID, e.Amount.String(), e.Amount.Currency().Code(), e.Description, e.Category, string(e.SplitType)}
	for _, sp := range e.Splits {
		parts = append(parts, sp.UserID, sp.Amount.String())
	}
	return fingerprint(parts...)
}
