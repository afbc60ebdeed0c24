package receipts

import (
	"context"
	"fmt"
	"sort"

	"github.com/fracti/api/store"
)

// VerifyGroup holds the bucket to what the group's expenses record: every
// receipt's object (and thumbnail) must be there, and every object under the
// group's receipts must belong to a receipt. An object younger than an
// upload's lifetime that no receipt records may be an upload not yet
// confirmed: it is not reported. It returns one line per problem.
func (s *Service) VerifyGroup(ctx context.Context, groupID string) ([]string, error) {
	if !s.Configured() {
		return nil, nil
	}
	recorded, err := s.store.GroupReceipts(ctx, groupID)
	if err != nil {
		return nil, err
	}
	want := map[string]string{} // key → what it is
	for _, r := range recorded {
		want[store.ReceiptObjectKey(r.GroupID, r.ExpenseID, r.ID)] = fmt.Sprintf("expense %s: receipt %s", r.ExpenseID, r.ID)
		if r.Thumbnail {
			want[store.ReceiptThumbnailKey(r.GroupID, r.ExpenseID, r.ID)] = fmt.Sprintf("expense %s: receipt %s's thumbnail", r.ExpenseID, r.ID)
		}
	}
	var problems []string
	seen := map[string]bool{}
	for obj, err := range s.objects.List(ctx, store.GroupReceiptsPrefix(groupID)) {
		if err != nil {
			return nil, storageError(err)
		}
		if _, ok := want[obj.Key]; ok {
			seen[obj.Key] = true
			continue
		}
		if _, _, id, _, ok := store.ParseReceiptObjectKey(obj.Key); ok {
			up, err := s.store.GetUpload(ctx, groupID, id)
			if err != nil {
				return nil, err
			}
			if up != nil {
				continue // an upload about to be confirmed
			}
		}
		problems = append(problems, fmt.Sprintf("object %s: no expense records it", obj.Key))
	}
	var missing []string
	for key, what := range want {
		if !seen[key] {
			missing = append(missing, fmt.Sprintf("%s: object %s is missing", what, key))
		}
	}
	sort.Strings(missing)
	return append(problems, missing...), nil
}
