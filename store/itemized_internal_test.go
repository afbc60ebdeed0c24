package store

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// itemBytes is an item's size as DynamoDB counts it: attribute names and
// values (UTF-8 strings, numbers about one byte per two significant digits
// plus one), lists and maps 3 bytes and one per element.
func itemBytes(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueBytes(v)
	}
	return n
}

func valueBytes(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(v.Value), "0")
		return (len(digits)+1)/2 + 1
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueBytes(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueBytes(e)
		}
		return n
	}
	panic(fmt.Sprintf("unexpected attribute value %T", v))
}

// largestItemized is an itemized expense at every limit at once: the most
// members, the longest names, description, category and line descriptions
// (characters of four bytes), the most lines, shares and adjustments, the
// largest amounts and weights, the most receipts. shift changes its amounts.
func largestItemized(shift int64) Expense {
	ton := money.MustCurrency("TON")
	top, _ := new(big.Int).SetString("999999999999999999999999", 10)
	huge := func(k int64) money.Amount { // about 10^15 TON: 24 digits of nanotons
		return money.NewAmountBig(top, ton).Sub(money.NewAmount(k+shift, ton))
	}
	weight, _ := money.ParseDecimal("999999999999.9999999999") // the largest weight: 22 digits
	long := func(n int) string { return strings.Repeat("𝄞", n) }
	at := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	e := Expense{
		ID: "00000000-0000-4000-8000-000000000001", GroupID: "00000000-0000-4000-8000-000000000002",
		Amount: huge(0), Description: long(200), Category: long(50), SplitType: SplitExact,
		CreatedAt: at, SpentAt: at.Add(-time.Hour), CreatedBy: "ph_" + strings.Repeat("f", 32), Version: 1 << 30,
	}
	for i := range MaxExpenseParticipants {
		id := fmt.Sprintf("ph_%032x", i)
		if i == 0 {
			e.Payers = []Payment{{UserID: id, UserName: long(64), Amount: huge(0)}}
			e.PayerID, e.PayerName = id, long(64)
			continue
		}
		e.Splits = append(e.Splits, Split{UserID: id, UserName: long(64), Amount: huge(int64(i))})
	}
	for i := range MaxItems {
		it := Item{Description: long(MaxItemDescriptionLength), Amount: huge(int64(i)), SplitType: SplitShares}
		for k := range MaxItemShares / MaxItems {
			it.Shares = append(it.Shares, ItemShare{Person: 80 + k, Amount: huge(int64(k)), Shares: &weight})
		}
		e.Items = append(e.Items, it)
	}
	for range MaxAdjustments {
		pct := money.NewDecimal(9999999999999, 11)
		e.Adjustments = append(e.Adjustments, Adjustment{Kind: AdjustmentDiscount, Percentage: &pct, AppliedAmount: huge(1).Neg()})
	}
	for i := range MaxReceiptsPerExpense {
		e.Receipts = append(e.Receipts, Receipt{ID: fmt.Sprintf("rcp_%032x", i), ContentType: "application/pdf", Size: 1 << 40,
			Width: 1 << 20, Height: 1 << 20, Pages: 1 << 20, Thumbnail: true, UploadedBy: "ph_" + strings.Repeat("f", 32), UploadedAt: at})
	}
	e.SpentOn = e.spentOn()
	return e
}

// TestItemizedExpenseSize: an itemized expense at every limit stays far
// under DynamoDB's 400 KB (about 108 KB), and so do the revision and the
// activity event of an edit that changes every line and amount (about 325
// KB each: they hold the lines' displays before and after). A typical
// bill's lines cost a few hundred bytes on the expense.
func TestItemizedExpenseSize(t *testing.T) {
	const limit = 400 * 1024
	before, after := largestItemized(0), largestItemized(7)
	after.Version++
	av, err := attributevalue.MarshalMap(before.record())
	require.NoError(t, err)
	expenseSize := itemBytes(av)
	t.Logf("largest itemized expense item: %d bytes", expenseSize)
	assert.Less(t, expenseSize, limit/2)

	rev := revisionOf(RevisionUpdated, &before, &after, before.CreatedBy, before.CreatedAt)
	av, err = attributevalue.MarshalMap(rev.record())
	require.NoError(t, err)
	revisionSize := itemBytes(av)
	t.Logf("its revision changing every line: %d bytes", revisionSize)
	assert.Less(t, revisionSize, limit*7/8)
	ev := Event{GroupID: before.GroupID, Seq: 1 << 40, At: before.CreatedAt, Type: EventExpenseUpdated, ActorID: before.CreatedBy,
		Subject: Subject{Kind: SubjectExpense, ID: before.ID}, Changes: rev.Changes, raw: rev.raw, PrevHash: strings.Repeat("f", 64), Hash: strings.Repeat("f", 64)}
	av, err = attributevalue.MarshalMap(ev.record())
	require.NoError(t, err)
	t.Logf("its activity event: %d bytes", itemBytes(av))
	assert.Less(t, itemBytes(av), limit*7/8)

	// A dinner of 8 lines for 4 people: a few hundred bytes on the item.
	small := largestItemized(0)
	small.Items, small.Adjustments = nil, nil
	av, err = attributevalue.MarshalMap(small.record())
	require.NoError(t, err)
	without := itemBytes(av)
	usd := money.MustCurrency("USD")
	for i := range 8 {
		it := Item{Description: fmt.Sprintf("Dish number %d", i), Amount: money.NewAmount(2400, usd), SplitType: SplitEqual}
		for k := range 2 {
			it.Shares = append(it.Shares, ItemShare{Person: (i + k) % 4, Amount: money.NewAmount(1200, usd)})
		}
		small.Items = append(small.Items, it)
	}
	pct := money.NewDecimal(8875, 3)
	small.Adjustments = []Adjustment{{Kind: AdjustmentTax, Percentage: &pct, AppliedAmount: money.NewAmount(1704, usd)}}
	av, err = attributevalue.MarshalMap(small.record())
	require.NoError(t, err)
	t.Logf("8 lines for 4 people and a tax: %d bytes", itemBytes(av)-without)
	assert.Less(t, itemBytes(av)-without, 450)
}
