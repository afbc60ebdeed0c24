package store

import (
	"errors"
	"strings"
	"time"
)

// A stream shard's lease says which instance reads the shard and how far it
// has read, in the style of the Kinesis Client Library's lease table but in
// our own table: every change is an UpdateItem on a condition, so two
// instances never both believe they hold a shard. The counter goes up on
// every take, renewal and release; an instance that sees a lease's counter
// stand still for the lease timeout (on its own clock, so clocks need not
// agree) may take the lease over, and then reads on from its checkpoint.

// ErrLeaseLost means the lease changed hands (or was renewed by its holder)
// since it was read: the write was refused and the caller must read it again.
var ErrLeaseLost = errors.New("the lease changed since it was read")

// Lease is one shard's lease.
type Lease struct {
	// Stream is the stream's label (StreamLabel of its ARN); Shard and
	// Parent the shard's id and its parent's ("" for none).
	Stream, Shard, Parent string
	// Owner is the instance that holds it ("" when nobody does).
	Owner string
	// Counter goes up on every take, renewal and release.
	Counter int64
	// Heartbeat is when it was last taken or renewed, for people reading
	// the table: expiry is judged by Counter, never by comparing clocks.
	Heartbeat time.Time
	// Checkpoint is the sequence number of the last record handled ("" for
	// none yet: the shard is read from its trim horizon).
	Checkpoint string
	// Finished is set once the shard is closed and read to its end: its
	// children may be leased from then on.
	Finished bool
	// Created is when the lease was written (zero for leases written
	// before it was recorded): what its shard held before then is backlog.
	Created time.Time
}

// leaseRecord is the LEASE#<stream> / SHARD#<shardId> item.
type leaseRecord struct {
	itemKey
	Shard      string `dynamodbav:"shard"`
	Parent     string `dynamodbav:"parent,omitempty"`
	Owner      string `dynamodbav:"owner,omitempty"`
	Counter    int64  `dynamodbav:"counter"`
	Heartbeat  string `dynamodbav:"heartbeat,omitempty"`
	Checkpoint string `dynamodbav:"checkpoint,omitempty"`
	Finished   bool   `dynamodbav:"finished,omitempty"`
	Created    string `dynamodbav:"created,omitempty"`
}

func (r *leaseRecord) lease(stream string) Lease {
	l := Lease{Stream: stream, Shard: r.Shard, Parent: r.Parent, Owner: r.Owner, Counter: r.Counter,
		Checkpoint: r.Checkpoint, Finished: r.Finished}
	if r.Heartbeat != "" {
		l.Heartbeat, _ = parseTime(r.Heartbeat)
	}
	if r.Created != "" {
		l.Created, _ = parseTime(r.Created)
	}
	return l
}

// LeaseSet names the leases of one consumer of the stream: each consumer
// (the broker's publisher, the notifier) reads every shard through leases of
// its own, so that consumers never take each other's; "" is the set of the
// stream itself (one consumer).
func LeaseSet(streamLabel, consumer string) string {
	if consumer == "" {
		return streamLabel
	}
	return streamLabel + "#" + consumer
}

// StreamLabel is the part of a stream ARN that tells the table's streams
// apart (".../table/<table>/stream/<label>"); a lease is kept under it, so a
// replaced stream starts with leases of its own.
func StreamLabel(streamARN string) string {
	if i := strings.LastIndex(streamARN, "/stream/"); i >= 0 {
		return streamARN[i+len("/stream/"):]
	}
	return streamARN
}
