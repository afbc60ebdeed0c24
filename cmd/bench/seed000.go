package main

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Seed 000's bare design, item by item: the attributes its expense,
// participant, settlement, membership and group items carry. What the same
// user action costs there is the yardstick of what Fracti's features add.
var (
	seedExpenseAttrs = []string{"PK", "SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "id", "groupId", "payerId", "payerName",
		"amount", "currency", "description", "splitType", "splits", "category", "createdAt"}
	seedParticipantAttrs = []string{"PK", "SK", "GSI1PK", "GSI1SK", "expenseId", "groupId", "groupTitle", "userId", "userName",
		"amount", "payerId", "payerName", "description", "totalAmount", "createdAt"}
	seedSettlementAttrs = []string{"PK", "SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "id", "groupId", "fromUserId", "fromUserName",
		"toUserId", "toUserName", "amount", "currency", "txHash", "status", "createdAt", "completedAt"}
	seedMemberAttrs = []string{"PK", "SK", "GSI1PK", "GSI1SK", "id", "telegramId", "name", "username", "wallet", "avatarUrl", "joinedAt"}
	seedGroupAttrs  = []string{"PK", "SK", "id", "chatId", "title", "currency", "createdAt", "memberCount"}
)

// seed000 is what the screen's action costs in seed 000's design, in write
// units, from the items the server wrote for its first request; ok is false
// where seed 000 has no such action (comments).
func (w *writeScreen) seed000(ctx context.Context) (units float64, ok bool, err error) {
	if len(w.groups) == 0 || len(w.groups[0].requests) == 0 {
		return 0, false, nil
	}
	var puts []item
	var updates []string
	for _, wr := range w.groups[0].requests[0].writes {
		if tx, isTx := wr.(*dynamodb.TransactWriteItemsInput); isTx {
			for _, t := range tx.TransactItems {
				switch {
				case t.Put != nil:
					puts = append(puts, t.Put.Item)
				case t.Update != nil:
					updates = append(updates, stringAttr(t.Update.Key, "SK"))
				}
			}
		}
	}
	cost := func(op string, transact bool, before, after item) float64 {
		return written{op: op, key: after, transact: transact}.cost(before, after).units()
	}
	switch {
	case strings.HasPrefix(w.name, "create") || w.name == "update":
		// The expense and one item per beneficiary but the payer, in one
		// transaction (an edit overwrites the same items).
		for _, p := range puts {
			sk := stringAttr(p, "SK")
			switch {
			case strings.HasPrefix(sk, "TX#"):
				units += cost("Put", true, nil, pick(p, seedExpenseAttrs))
			case strings.HasPrefix(sk, "PART#"):
				units += cost("Put", true, nil, pick(p, seedParticipantAttrs))
			}
		}
		return units, true, nil
	case w.name == "settle":
		// The settlement put, then its status and completion time updated: one item each time.
		for _, p := range puts {
			if strings.HasPrefix(stringAttr(p, "SK"), "SETTLE#") {
				created := pick(p, seedSettlementAttrs)
				completed := pick(p, seedSettlementAttrs)
				completed["status"] = &types.AttributeValueMemberS{Value: "completed"}
				completed["completedAt"] = created["createdAt"]
				units += cost("Put", false, nil, created) + cost("Update", false, created, completed)
			}
		}
		return units, true, nil
	case w.name == "join":
		// The membership and the group's member count, in one transaction.
		group, err := w.setupDB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &w.table, Key: key("GROUP#"+w.groups[0].id, "METADATA")})
		if err != nil {
			return 0, false, err
		}
		meta := pick(group.Item, seedGroupAttrs)
		for _, p := range puts {
			if strings.HasPrefix(stringAttr(p, "SK"), "USER#") {
				units += cost("Put", true, nil, pick(p, seedMemberAttrs)) + cost("Update", true, meta, meta)
			}
		}
		return units, true, nil
	}
	return 0, false, nil
}

// pick is the item with only the named attributes (those it has).
func pick(it item, names []string) item {
	out := item{}
	for _, n := range names {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}
