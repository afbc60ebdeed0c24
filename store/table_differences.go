package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableSetup is what a deployment wants of the table beyond what the server
// needs (TableDefinition, TimeToLive, StreamSpecification).
type TableSetup struct {
	// Tags the table must carry; other tags it has are left alone.
	Tags map[string]string
	// PointInTimeRecovery: continuous backups, restorable to any second of
	// the last 35 days.
	PointInTimeRecovery bool
}

// Difference is one way the table differs from what the server needs or
// the setup asks for.
type Difference struct {
	Setting string // what differs: "stream", "TTL", "index GSI3", "tag env", …
	Have    string // what the table has
	Want    string // what it should have, and why
	// Fixable says SetUpTable changes it in place; anything else takes an
	// operator (or a new table), as Want says.
	Fixable bool
	fix     fixKind
	tag     string // the tag's key, for fixTag
}

// String reads "setting: have (want)", such as "stream: off (live updates need NEW_AND_OLD_IMAGES)".
func (d Difference) String() string { return fmt.Sprintf("%s: %s (%s)", d.Setting, d.Have, d.Want) }

// fixKind is how SetUpTable changes a fixable difference.
type fixKind int

const (
	fixNone fixKind = iota
	fixStream
	fixTTL
	fixPointInTimeRecovery
	fixTag
)

// Differences lists how the table differs from TableDefinition, TimeToLive,
// StreamSpecification and want. Settings the engine does not support are
// not differences.
func (st TableState) Differences(want TableSetup) []Difference {
	var diffs []Difference
	add := func(d Difference) { diffs = append(diffs, d) }
	keys, indexes := definedState(TableDefinition(st.Name))

	if !slices.Equal(st.Keys, keys) {
		add(Difference{Setting: "keys", Have: joinKeys(st.Keys),
			Want: "the data model needs " + joinKeys(keys) + "; keys cannot change, so this takes a new table"})
	}
	for _, ix := range indexes {
		i := slices.IndexFunc(st.Indexes, func(have IndexState) bool { return have.Name == ix.Name })
		switch {
		case i < 0:
			add(Difference{Setting: "index " + ix.Name, Have: "missing",
				Want: "the data model needs " + describeIndex(ix) + "; add it with UpdateTable"})
		case !slices.Equal(st.Indexes[i].Keys, ix.Keys) || st.Indexes[i].Projection != ix.Projection:
			add(Difference{Setting: "index " + ix.Name, Have: describeIndex(st.Indexes[i]),
				Want: "the data model needs " + describeIndex(ix) + "; delete the index and add it again with UpdateTable"})
		}
	}
	if st.BillingMode != string(types.BillingModePayPerRequest) {
		add(Difference{Setting: "billing mode", Have: st.BillingMode,
			Want: "the data model specifies PAY_PER_REQUEST; switch it with UpdateTable if you mean to"})
	}

	ttl := TimeToLive()
	switch ttlAttr := aws.ToString(ttl.AttributeName); {
	case st.TTLStatus == string(types.TimeToLiveStatusDisabled) || st.TTLStatus == "":
		add(Difference{Setting: "TTL", Have: "off",
			Want:    "TTL on " + ttlAttr + " purges expired access tokens, invites, idempotency records and deleted expenses",
			Fixable: true, fix: fixTTL})
	case st.TTLStatus == string(types.TimeToLiveStatusDisabling):
		add(Difference{Setting: "TTL", Have: "being turned off",
			Want: "the server needs TTL on " + ttlAttr + "; run this again once it is off"})
	case st.TTLAttribute != ttlAttr:
		// A table has one TTL attribute, and DynamoDB allows one TTL change an
		// hour: moving it is the operator's decision.
		add(Difference{Setting: "TTL", Have: "on " + st.TTLAttribute,
			Want: "the server needs TTL on " + ttlAttr + "; turn TTL off, then run this again"})
	}

	switch view := string(StreamSpecification().StreamViewType); st.StreamViewType {
	case view:
	case "":
		add(Difference{Setting: "stream", Have: "off", Want: "live updates need " + view, Fixable: true, fix: fixStream})
	default:
		// Changing the view takes a new stream, which other readers of this
		// one would lose.
		add(Difference{Setting: "stream", Have: st.StreamViewType,
			Want: "live updates need " + view + "; turn the stream off, then run this again"})
	}

	if want.PointInTimeRecovery && st.PointInTimeRecovery == string(types.PointInTimeRecoveryStatusDisabled) {
		add(Difference{Setting: "point-in-time recovery", Have: "off",
			Want: "restores to any second of the last 35 days", Fixable: true, fix: fixPointInTimeRecovery})
	}
	if !st.TagsNotSupported {
		for _, k := range slices.Sorted(maps.Keys(want.Tags)) {
			have, ok := st.Tags[k]
			switch {
			case !ok:
				add(Difference{Setting: "tag " + k, Have: "missing", Want: "wanted " + want.Tags[k], Fixable: true, fix: fixTag, tag: k})
			case have != want.Tags[k]:
				add(Difference{Setting: "tag " + k, Have: have, Want: "wanted " + want.Tags[k], Fixable: true, fix: fixTag, tag: k})
			}
		}
	}
	return diffs
}

func joinKeys(keys []KeyAttribute) string {
	if len(keys) == 0 {
		return "none"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, ", ")
}

func describeIndex(ix IndexState) string {
	return joinKeys(ix.Keys) + ", projection " + ix.Projection
}
