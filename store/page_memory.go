package store

// Some lists are read whole once for a request (a group's roster, a user's
// groups) and then serve the pages clients ask for from memory. Those pages
// must be exactly the ones the list's Query would read, cursors included,
// so that a client can continue either way.

// memoryList is a list held in memory, in the order its Query reads it.
type memoryList[T any] struct {
	list    string                     // the list's cursor identity, as its Query binds it
	attrs   []string                   // the key attributes its cursors hold
	order   string                     // the one of them that orders the list
	key     func(*T) map[string]string // an item's key attributes
	include func(*T) bool              // the list's filter; nil keeps every item
}

// page is the page of items that args select.
func (l memoryList[T]) page(s *Store, items []T, args PageArgs) (Page[T], error) {
	first := min(max(args.First, 0), MaxPageSize)
	var after string
	if args.After != "" {
		keys, err := s.cursors.decode(l.list, args.After, 1)
		if err != nil {
			return Page[T]{}, err
		}
		if _, err := startKey(keys[0], l.attrs); err != nil {
			return Page[T]{}, err
		}
		after = keys[0][l.order]
	}
	page := Page[T]{HasPrevious: args.After != ""}
	for i := range items {
		it := &items[i]
		key := l.key(it)
		if key[l.order] <= after || (l.include != nil && !l.include(it)) {
			continue
		}
		if len(page.Items) == first {
			page.HasNext = true
			break
		}
		page.Items = append(page.Items, *it)
		page.Cursors = append(page.Cursors, s.cursors.at(l.list, key))
	}
	return page, nil
}
