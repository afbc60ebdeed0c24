package store

// Action is something done to a group that its roles may reserve.
type Action string

// The actions roles reserve; ActionDelete covers deleteGroup and restoreGroup.
const (
	ActionArchive Action = "archive"
	ActionDelete  Action = "delete"
)
