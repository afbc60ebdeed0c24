package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An import into an existing group writes its items batch by batch, and
// its members must see none of them until the last batch lands (see
// import_group.go). So every item it writes before then carries attrImport,
// the file's hash, and every read of the table (collect, getItem,
// batchRead, the GSI2 look-up, the spending Query) passes what it read
// through the gate: an item whose import record, GROUP#<g> / IMPORT#<hash>,
// is not complete is left out, as if it were not there yet. The last batch
// completes the record in the same transaction as the books, the ledger and
// the one GROUP_IMPORTED event, so the import appears whole at once.
//
// Items without attrImport cost nothing. A complete import stays complete,
// so each process remembers the completed ones it has met and reads an
// import record at most once for them; one still running is read again
// each time a read meets its items.

// attrImport names the import (the file's hash) an item was written by.
const attrImport = "imp"

// importGateSize bounds the completed imports a process remembers; past it
// the memory starts again (and reads each record once more).
const importGateSize = 10_000

// importGate remembers the completed imports this process has met.
type importGate struct {
	mu       sync.Mutex
	complete map[importRef]struct{}
}

// importRef names one import of one group: the group's PK and the hash.
type importRef struct{ pk, hash string }

// importOf is the import an item was written by, if any.
func importOf(item map[string]types.AttributeValue) (importRef, bool) {
	v, ok := item[attrImport].(*types.AttributeValueMemberS)
	if !ok {
		return importRef{}, false
	}
	return importRef{pk: keyAttr(item, attrPK), hash: v.Value}, true
}

func (g *importGate) known(ref importRef) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.complete[ref]
	return ok
}

func (g *importGate) remember(ref importRef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.complete == nil || len(g.complete) >= importGateSize {
		g.complete = map[importRef]struct{}{}
	}
	g.complete[ref] = struct{}{}
}

// hideUnfinished returns items without those of an import not yet
// complete. When none of them was written by an import it returns items
// itself and reads nothing.
func (s *Store) hideUnfinished(ctx context.Context, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	var unknown []importRef
	for _, it := range items {
		if ref, ok := importOf(it); ok && !s.imports.known(ref) && !slices.Contains(unknown, ref) {
			unknown = append(unknown, ref)
		}
	}
	if len(unknown) == 0 {
		return items, nil
	}
	keys := make([]map[string]types.AttributeValue, len(unknown))
	for i, ref := range unknown {
		keys[i] = tableKey(ref.pk, importSK(ref.hash))
	}
	// Strongly consistent: a record read complete means every batch landed.
	records, err := s.batchReadAll(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("read import records: %w", err)
	}
	for _, rec := range records {
		if state, _ := rec[attrImportState].(*types.AttributeValueMemberS); state != nil && state.Value == importComplete {
			hash, _ := strings.CutPrefix(keyAttr(rec, attrSK), prefixImport)
			s.imports.remember(importRef{pk: keyAttr(rec, attrPK), hash: hash})
		}
	}
	kept := make([]map[string]types.AttributeValue, 0, len(items))
	for _, it := range items {
		if ref, ok := importOf(it); !ok || s.imports.known(ref) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

// visible is hideUnfinished for one item: nil when it is hidden.
func (s *Store) visible(ctx context.Context, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if item == nil {
		return nil, nil
	}
	if ref, ok := importOf(item); !ok || s.imports.known(ref) {
		return item, nil
	}
	kept, err := s.hideUnfinished(ctx, []map[string]types.AttributeValue{item})
	if err != nil || len(kept) == 0 {
		return nil, err
	}
	return kept[0], nil
}
