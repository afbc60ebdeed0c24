package live

// Watcher is told which groups and users have local subscribers. Its
// methods are called outside the hub's lock and must not block (the
// broker queues the (un)subscribe).
//
// (A placeholder of issue 28's contract until the hub's side, SetWatcher
// and Watched, is merged: the broker implements it already.)
type Watcher interface {
	WatchGroup(groupID string)   // the first local subscription that may receive this group's events appeared
	UnwatchGroup(groupID string) // the last one went
	WatchUser(userID string)     // the user's first local myEvents subscription appeared
	UnwatchUser(userID string)   // their last one went
}
