// Package model holds the GraphQL-only types: connections, inputs and the
// abstract types. Domain objects are the store's own types.
package model

// Node is any object `node(id:)` can return: *store.Group, *store.Member,
// *store.Expense, *store.Settlement, *store.Series or *User. The executor dispatches on the
// concrete type, so the interface itself needs no methods.
type Node any

// ActivityItem is an entry of a user's timeline: *store.Expense or *store.Settlement.
type ActivityItem any

// GroupEventSubject is what a group event is about: *store.Group,
// *store.Member, *store.Expense, *store.Settlement, *Invite or *store.Series.
type GroupEventSubject any
