package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Personal values in activity events and expense revisions (docs/privacy.md).
//
// A change's display strings name members ("Ann: 12.50; Ben: 7.50") and hold
// wallet addresses. Such a value is never stored in the strings themselves:
// where it goes, the stored string holds a reference, \x01<slot>\x02, and the
// record's slots map holds the value. Reading renders the references back, so
// clients see the same strings as before. A member's name is the slot named
// by their user id, a wallet the slot wallet:<userId>; an event that format
// 1 wrote and the migration resealed keeps each personal field's whole value
// in a slot of its own (legacySlot).
//
// The activity chain's hash format 2 covers the strings with their
// references (ids, amounts and every other field) and, for each slot, the
// SHA-256 of a random salt and the value (slotRecord.digest): a changed name
// is still caught, and erasing a value keeps that digest in place of the
// value and salt, so that the chain still verifies and nothing that remains
// can be tested against a guessed name. References use control characters,
// which no text a member types can hold (freetext removes them).
const (
	refOpen  = "\x01"
	refSep   = "\x1f"
	refClose = "\x02"
)

// ErasedName is how every group shows a member who erased their data, in
// their membership and wherever an item or a change named them.
const ErasedName = "Former member"

// erasedWallet is what a change shows in place of an erased wallet address.
const erasedWallet = "(erased)"

// personRef is a member's name as a change holds it before it is stored:
// the slot (their user id) and the value, which storing splits apart.
func personRef(userID, name string) string { return refOpen + userID + refSep + name + refClose }

// walletOrNil is a member's wallet address as a change holds it before it
// is stored (side "b" before, "a" after: a change holds two), nil for none.
func walletOrNil(userID, side, wallet string) *string {
	if wallet == "" {
		return nil
	}
	return text(personRef(walletSlot(userID)+side, wallet))
}

// walletSlot is the prefix of the slots of a member's wallet addresses.
func walletSlot(userID string) string { return "wallet:" + userID + ":" }

// legacySlot names the whole value of one of a resealed format-1 change's
// personal fields: the change's index and b (before) or a (after).
func legacySlot(i int, side string) string { return "old:" + strconv.Itoa(i) + ":" + side }

// personalFields are the fields whose values name members or hold their
// wallets: the ones a format-1 event is resealed with in slots.
var personalFields = []string{FieldPayers, FieldSplits, FieldFrom, FieldTo, FieldName, FieldClaimedBy, FieldWallet}

// slotRecord is one personal value of a record: the value and its salt, or,
// once erased, what is shown in its place and the digest of what was there.
type slotRecord struct {
	Value  string `dynamodbav:"v" json:"-"`
	Salt   string `dynamodbav:"s,omitempty" json:"-"`
	Digest string `dynamodbav:"d,omitempty" json:"-"`
}

// erased reports whether the slot's value was erased.
func (sl slotRecord) erased() bool { return sl.Digest != "" }

// digest is what the hash covers of the slot: SHA-256 of salt and value,
// hex, or the digest kept when the value was erased.
func (sl slotRecord) digest() string {
	if sl.erased() {
		return sl.Digest
	}
	sum := sha256.Sum256([]byte(sl.Salt + "\x00" + sl.Value))
	return hex.EncodeToString(sum[:])
}

// erase replaces the slot's value by shown, keeping the digest of what it held.
func (sl slotRecord) erase(shown string) slotRecord {
	return slotRecord{Value: shown, Digest: sl.digest()}
}

// newSalt is 16 random bytes, hex.
func newSalt() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// splitRefs stores changes: each reference's value moves into the slots
// (salted when salted), the strings keep the reference alone. A slot named
// twice keeps its first value (one event names a member by one name).
func splitRefs(cs []Change, salted bool) ([]changeRecord, map[string]slotRecord) {
	var slots map[string]slotRecord
	cut := func(s *string) *string {
		if s == nil || !strings.Contains(*s, refOpen) {
			return s
		}
		out := rewriteRefs(*s, func(key, value string, _ bool) string {
			if slots == nil {
				slots = map[string]slotRecord{}
			}
			if _, ok := slots[key]; !ok {
				sl := slotRecord{Value: value}
				if salted {
					sl.Salt = newSalt()
				}
				slots[key] = sl
			}
			return refOpen + key + refClose
		})
		return &out
	}
	out := make([]changeRecord, len(cs))
	for i, c := range cs {
		out[i] = changeRecord{Field: c.Field, Before: cut(c.Before), After: cut(c.After)}
	}
	return out, slots
}

// renderValue replaces the references in s by their slots' values (inline
// references, not yet stored, by their own value).
func renderValue(s *string, slots map[string]slotRecord) *string {
	if s == nil || !strings.Contains(*s, refOpen) {
		return s
	}
	out := rewriteRefs(*s, func(key, inline string, hasInline bool) string {
		switch sl, ok := slots[key]; {
		case hasInline:
			return inline
		case ok:
			return sl.Value
		}
		return ErasedName
	})
	return &out
}

// rewriteRefs is s with every reference (refOpen key [refSep inline]
// refClose) replaced by what replace makes of it.
func rewriteRefs(s string, replace func(key, inline string, hasInline bool) string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, refOpen)
		j := strings.Index(rest[max(i, 0):], refClose)
		if i < 0 || j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		key, inline, hasInline := strings.Cut(rest[i+len(refOpen):i+j], refSep)
		b.WriteString(rest[:i] + replace(key, inline, hasInline))
		rest = rest[i+j+len(refClose):]
	}
}

// renderChanges is what a record's changes show: references rendered.
func renderChanges(rs []changeRecord, slots map[string]slotRecord) []Change {
	out := make([]Change, len(rs))
	for i, r := range rs {
		out[i] = Change{Field: r.Field, Before: renderValue(r.Before, slots), After: renderValue(r.After, slots)}
	}
	return out
}

// hashedSlot is a slot as a format-2 hash covers it.
type hashedSlot struct {
	Key    string `json:"key"`
	Digest string `json:"digest"`
}

// hashedSlots lists the slots by key with their digests.
func hashedSlots(slots map[string]slotRecord) []hashedSlot {
	if len(slots) == 0 {
		return nil
	}
	out := make([]hashedSlot, 0, len(slots))
	for k, sl := range slots {
		out = append(out, hashedSlot{Key: k, Digest: sl.digest()})
	}
	slices.SortFunc(out, func(a, b hashedSlot) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// sealLegacy moves the personal fields' values of format-1 changes into
// slots of their own (legacySlot), salted: how the migration reseals an
// event, and rewrites a revision, that still holds names in its strings.
func sealLegacy(rs []changeRecord, slots map[string]slotRecord) ([]changeRecord, map[string]slotRecord) {
	out := make([]changeRecord, len(rs))
	for i, r := range rs {
		out[i] = r
		if !slices.Contains(personalFields, r.Field) {
			continue
		}
		move := func(v *string, side string) *string {
			if v == nil || strings.Contains(*v, refOpen) {
				return v
			}
			if slots == nil {
				slots = map[string]slotRecord{}
			}
			key := legacySlot(i, side)
			slots[key] = slotRecord{Value: *v, Salt: newSalt()}
			ref := refOpen + key + refClose
			return &ref
		}
		out[i].Before, out[i].After = move(r.Before, "b"), move(r.After, "a")
	}
	return out, slots
}

// erasure is what erasing one person from a group's records needs: their
// user id, and the names and wallets they were known by (for the values of
// resealed format-1 changes, which hold names rather than ids).
type erasure struct {
	UserID  string
	Names   []string
	Wallets []string
	// Placeholders are the ids of placeholders the person claimed, whose
	// slots (their names as others typed them) are erased too.
	Placeholders []string
}

// eraseSlots erases the person's values from a record's slots, in place,
// and reports whether any changed: their own slots (name, wallet) whole,
// and in resealed format-1 values every entry that names them, with the
// field the slot's change is of (legacySlot's index into changes).
func (er erasure) eraseSlots(slots map[string]slotRecord, changes []changeRecord, subjectIsThem bool) bool {
	changed := false
	for key, sl := range slots {
		if sl.erased() && (key == er.UserID || strings.HasPrefix(key, walletSlot(er.UserID))) {
			continue
		}
		switch {
		case key == er.UserID:
			slots[key], changed = sl.erase(ErasedName), true
		case slices.Contains(er.Placeholders, key):
			if !sl.erased() {
				slots[key], changed = sl.erase(ErasedName), true
			}
		case strings.HasPrefix(key, walletSlot(er.UserID)):
			slots[key], changed = sl.erase(erasedWallet), true
		case strings.HasPrefix(key, "old:"):
			field := legacyField(key, changes)
			if shown, ok := er.redact(field, sl.Value, subjectIsThem); ok {
				slots[key], changed = sl.erase(shown), true
			}
		}
	}
	return changed
}

// legacyField is the field of the change a legacy slot came from.
func legacyField(key string, changes []changeRecord) string {
	parts := strings.Split(key, ":")
	if len(parts) != 3 {
		return ""
	}
	i, err := strconv.Atoi(parts[1])
	if err != nil || i < 0 || i >= len(changes) {
		return ""
	}
	return changes[i].Field
}

// redact is value with the person taken out, and whether it named them:
// payers and splits entry by entry ("Ann: 12.50"), a from, to, name or
// claimedBy whole, a wallet whole when the change is about them.
func (er erasure) redact(field, value string, subjectIsThem bool) (string, bool) {
	switch field {
	case FieldPayers, FieldSplits:
		entries := strings.Split(value, "; ")
		hit := false
		for i, e := range entries {
			name, rest, ok := strings.Cut(e, ": ")
			if ok && slices.Contains(er.Names, name) {
				entries[i], hit = ErasedName+": "+rest, true
			}
		}
		return strings.Join(entries, "; "), hit
	case FieldWallet:
		if subjectIsThem || slices.Contains(er.Wallets, value) {
			return erasedWallet, true
		}
	default:
		if slices.Contains(er.Names, value) {
			return ErasedName, true
		}
	}
	return value, false
}

// redactChanges erases the person from changes that hold names in their
// strings (revisions written before slots), in place.
func (er erasure) redactChanges(rs []changeRecord) bool {
	changed := false
	for i := range rs {
		for _, v := range []**string{&rs[i].Before, &rs[i].After} {
			if *v == nil || strings.Contains(**v, refOpen) {
				continue
			}
			if shown, ok := er.redact(rs[i].Field, **v, false); ok {
				*v, changed = &shown, true
			}
		}
	}
	return changed
}
