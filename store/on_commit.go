package store

// OnCommit makes fn hear of every activity event this process writes, as
// soon as its transaction commits, so that the writer's own instance can
// deliver it to its live subscribers without waiting for the stream (which
// stays the source of truth: every event also arrives that way). fn is
// called with the group's turn held, so one group's events reach it in
// order; it must not block. nil stops the calls.
func (s *Store) OnCommit(fn func(Event)) {
	if fn == nil {
		s.committed.Store(nil)
		return
	}
	s.committed.Store(&fn)
}

func (s *Store) tellCommitted(ev Event) {
	if fn := s.committed.Load(); fn != nil {
		(*fn)(ev)
	}
}
