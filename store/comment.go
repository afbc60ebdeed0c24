package store

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The activity events of comments, and their subject: a comment, found by
// its key (the event carries its expense and time; CommentRef).
const (
	EventCommentAdded   EventType   = "comment_added"
	EventCommentDeleted EventType   = "comment_deleted"
	SubjectComment      SubjectKind = "comment"
)

// CommentPrefix starts every comment's id ("cmt_" and 32 hex digits), which
// tells it apart from the UUIDs of groups, expenses and settlements.
const CommentPrefix = "cmt_"

// ErrNotAuthor means someone other than a comment's author tried to delete
// it.
var ErrNotAuthor = errors.New("only the comment's author may delete it")

// Comment is what a member wrote about one of the group's expenses. A
// deleted comment stays as a tombstone: its Body is "" and DeletedAt set, so
// that a thread keeps its shape and the activity event still finds it.
type Comment struct {
	ID        string
	GroupID   string
	ExpenseID string
	AuthorID  string
	// AuthorName is the author's name when they wrote it, as an expense
	// keeps its payer's.
	AuthorName string
	Body       string
	CreatedAt  time.Time
	DeletedAt  *time.Time
	DeletedBy  string
}

// BodyOrNil is the body, nil once the comment is deleted.
func (c *Comment) BodyOrNil() *string {
	if c.DeletedAt != nil {
		return nil
	}
	return &c.Body
}

// Ref is what locates the comment's item without an index lookup.
func (c *Comment) Ref() CommentRef {
	return CommentRef{ID: c.ID, GroupID: c.GroupID, ExpenseID: c.ExpenseID, CreatedAt: c.CreatedAt}
}

// CommentRef locates a comment: by key when GroupID, ExpenseID and CreatedAt
// are known, otherwise by ID through GSI2.
type CommentRef struct {
	ID        string
	GroupID   string
	ExpenseID string
	CreatedAt time.Time
}

// byKey reports whether the ref carries the comment's whole key.
func (r CommentRef) byKey() bool {
	return r.GroupID != "" && r.ExpenseID != "" && !r.CreatedAt.IsZero()
}

func (r CommentRef) sk() string { return commentSK(r.ExpenseID, formatTime(r.CreatedAt), r.ID) }

// Attributes of the comment item that expressions name.
const (
	attrCommentAuthor    = "authorId"
	attrCommentBody      = "body"
	attrCommentDeletedAt = "deletedAt"
	attrCommentDeletedBy = "deletedBy"
)

// commentRecord is the GROUP#<groupId> /
// COMMENT#<expenseId>#<createdAt>#<commentId> item, found by id in GSI2.
// Deleting it removes its body and sets deletedAt and deletedBy.
type commentRecord struct {
	itemKey
	ID            string `dynamodbav:"id"`
	ExpenseID     string `dynamodbav:"expenseId"`
	AuthorID      string `dynamodbav:"authorId"`
	AuthorName    string `dynamodbav:"authorName"`
	Body          string `dynamodbav:"body,omitempty"`
	CreatedAt     string `dynamodbav:"createdAt"`
	DeletedAt     string `dynamodbav:"deletedAt,omitempty"`
	DeletedBy     string `dynamodbav:"deletedBy,omitempty"`
	FormatVersion int    `dynamodbav:"formatVersion"`
}

func (c *Comment) record() commentRecord {
	r := commentRecord{
		itemKey: itemKey{
			PK: groupPK(c.GroupID), SK: c.Ref().sk(),
			GSI2PK: commentGSI2PK(c.ID), GSI2SK: c.GroupID,
		},
		ID: c.ID, ExpenseID: c.ExpenseID, AuthorID: c.AuthorID, AuthorName: c.AuthorName,
		Body: c.Body, CreatedAt: formatTime(c.CreatedAt), DeletedBy: c.DeletedBy,
		FormatVersion: formatCurrent,
	}
	if c.DeletedAt != nil {
		r.DeletedAt = formatTime(*c.DeletedAt)
	}
	return r
}

func (r *commentRecord) comment() (Comment, error) {
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Comment{}, fmt.Errorf("comment %s createdAt: %w", r.ID, err)
	}
	c := Comment{
		ID: r.ID, GroupID: groupIDFromPK(r.PK), ExpenseID: r.ExpenseID, AuthorID: r.AuthorID,
		AuthorName: r.AuthorName, Body: r.Body, CreatedAt: created, DeletedBy: r.DeletedBy,
	}
	if r.DeletedAt != "" {
		deleted, err := parseTime(r.DeletedAt)
		if err != nil {
			return Comment{}, fmt.Errorf("comment %s deletedAt: %w", r.ID, err)
		}
		c.DeletedAt = &deleted
		c.Body = "" // a tombstone never shows what it said
	}
	return c, nil
}

// prefixedID is an id of a kind that is not a UUID on the wire: its prefix
// (CommentPrefix, PlaceholderPrefix, SeriesPrefix) and the UUID's hex digits.
func prefixedID(prefix, uuid string) string { return prefix + strings.ReplaceAll(uuid, "-", "") }

// commentEvent is the activity event of a comment's addition or deletion.
// It records no changes: the body is not copied into the log, which is
// never changed, so that deleting a comment removes its text everywhere.
func commentEvent(t EventType, c *Comment, actor string, at time.Time) Event {
	return Event{
		GroupID: c.GroupID, Type: t, ActorID: actor, At: at,
		Subject: Subject{Kind: SubjectComment, ID: c.ID, CreatedAt: c.CreatedAt, ExpenseID: c.ExpenseID},
	}
}

// CommentRef locates the comment the event is about (ok false for other
// subjects): by its key, so that a live subscriber gets it the moment it is
// written (GSI2 follows a moment later); an event written before events
// carried the expense, by id.
func (ev *Event) CommentRef() (CommentRef, bool) {
	ref := CommentRef{ID: ev.Subject.ID, GroupID: ev.GroupID}
	if ev.Subject.ExpenseID != "" {
		ref.ExpenseID, ref.CreatedAt = ev.Subject.ExpenseID, ev.Subject.CreatedAt
	}
	return ref, ev.Subject.Kind == SubjectComment
}
