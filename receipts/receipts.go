// Package receipts attaches pictures and PDFs to expenses, and pictures to
// groups and placeholders, in private object storage: it mints presigned
// uploads (the bytes never pass through the server), confirms them by what
// the stored bytes are, and mints presigned downloads per request. The
// store keeps what it learnt; objectstore talks to the bucket; media tells
// what a file is.
package receipts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/fracti/api/media"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/store"
)

// ErrNotConfigured means the server has no bucket (S3_BUCKET is unset):
// receipts and pictures are refused, everything else works.
var ErrNotConfigured = errors.New("receipts and pictures are not available on this server: it has no storage bucket (S3_BUCKET)")

// ErrStorageUnavailable means the bucket could not be reached in time: try
// again in a moment.
var ErrStorageUnavailable = errors.New("the file storage cannot be reached right now: try again in a moment")

// The defaults of Options.
const (
	DefaultMaxBytes    = 10 << 20
	DefaultUploadTTL   = 5 * time.Minute
	DefaultDownloadTTL = 10 * time.Minute
)

// Options are the limits and lifetimes of receipts and pictures.
type Options struct {
	MaxBytes      int64         // the largest file accepted (RECEIPT_MAX_BYTES)
	UploadTTL     time.Duration // how long a presigned upload works
	DownloadTTL   time.Duration // how long a presigned download works
	MaxPixels     int64         // the largest image decoded (width × height)
	ThumbnailSide int           // a thumbnail's longest side
	AvatarSide    int           // an avatar's side (square)
	Decoders      int           // images decoded at once: each may take MaxPixels × 4 bytes
	Log           *slog.Logger
}

// Defaults fill in what o leaves zero.
func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.UploadTTL <= 0 {
		o.UploadTTL = DefaultUploadTTL
	}
	if o.DownloadTTL <= 0 {
		o.DownloadTTL = DefaultDownloadTTL
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = media.DefaultLimits.MaxPixels
	}
	if o.ThumbnailSide <= 0 {
		o.ThumbnailSide = 320
	}
	if o.AvatarSide <= 0 {
		o.AvatarSide = 512
	}
	if o.Decoders <= 0 {
		o.Decoders = 2
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Service is receipts and pictures over one store and one bucket.
type Service struct {
	store   *store.Store
	objects *objectstore.Client // nil: no bucket
	opts    Options
	decode  chan struct{} // a slot per image decoded at once
}

// New returns the service; objects nil answers ErrNotConfigured to every
// call that needs the bucket.
func New(s *store.Store, objects *objectstore.Client, o Options) *Service {
	o = o.withDefaults()
	return &Service{store: s, objects: objects, opts: o, decode: make(chan struct{}, o.Decoders)}
}

// MaxBytes is the largest file accepted.
func (s *Service) MaxBytes() int64 { return s.opts.MaxBytes }

// Configured reports whether the server has a bucket.
func (s *Service) Configured() bool { return s != nil && s.objects != nil }

// Ticket is a presigned upload: where to send the file, how, and the id
// to confirm it by.
type Ticket struct {
	UploadID  string
	URL       string
	Method    string
	Headers   []objectstore.Header
	ExpiresAt time.Time
}

// invalid is a refusal of what the member sent (BAD_USER_INPUT), naming the
// argument at fault.
type invalid struct {
	Field string
	msg   string
}

func (e *invalid) Error() string { return e.msg }
func (e *invalid) Unwrap() error { return store.ErrInvalidInput }

// InvalidField is the argument an error of this package blames, "" if none.
func InvalidField(err error) string {
	var in *invalid
	if errors.As(err, &in) {
		return in.Field
	}
	return ""
}

func invalidf(field, format string, args ...any) error {
	return &invalid{Field: field, msg: fmt.Sprintf(format, args...)}
}

// storageError turns a failure of the bucket into what the member is told.
func storageError(err error) error {
	if errors.Is(err, objectstore.ErrUnavailable) {
		return fmt.Errorf("%w (%v)", ErrStorageUnavailable, err)
	}
	return err
}

// announced checks an announced type and size, before any URL is made.
func (s *Service) announced(contentType string, size int64, allowed func(media.Kind) bool) (media.Kind, error) {
	kind, ok := media.KindOf(contentType)
	if !ok || !allowed(kind) {
		return "", invalidf("contentType", "contentType: %q is not accepted", contentType)
	}
	if size <= 0 {
		return "", invalidf("size", "size: must be at least 1 byte")
	}
	if size > s.opts.MaxBytes {
		return "", invalidf("size", "size: %d bytes is over the limit of %d bytes", size, s.opts.MaxBytes)
	}
	return kind, nil
}

// presignPut mints the upload of an object under key.
func (s *Service) presignPut(ctx context.Context, id, key string, kind media.Kind, size int64) (Ticket, error) {
	p, err := s.objects.PresignPut(ctx, key, string(kind), size, objectstore.PendingTagging, s.opts.UploadTTL)
	if err != nil {
		return Ticket{}, storageError(err)
	}
	return Ticket{UploadID: id, URL: p.URL, Method: p.Method, Headers: p.Headers, ExpiresAt: p.ExpiresAt}, nil
}

// inspect reads an uploaded object and tells what it is, holding it to
// what was announced; a refused object is deleted with its upload's
// record.
func (s *Service) inspect(ctx context.Context, up *store.Upload, key string) ([]byte, media.Info, error) {
	head, err := s.objects.Head(ctx, key)
	if objectstore.IsNotFound(err) {
		return nil, media.Info{}, invalidf("uploadId", "nothing has been uploaded for this upload yet: send the file to its url first")
	}
	if err != nil {
		return nil, media.Info{}, storageError(err)
	}
	refuse := func(format string, args ...any) ([]byte, media.Info, error) {
		s.forget(ctx, up, key)
		return nil, media.Info{}, invalidf("uploadId", format, args...)
	}
	if head.Size != up.Size {
		return refuse("the file has %d bytes, %d were announced: upload it again", head.Size, up.Size)
	}
	data, err := s.objects.Read(ctx, key, up.Size)
	if err != nil {
		return nil, media.Info{}, storageError(err)
	}
	if int64(len(data)) != up.Size {
		return refuse("the file has more bytes than the %d announced: upload it again", up.Size)
	}
	select {
	case s.decode <- struct{}{}:
		defer func() { <-s.decode }()
	case <-ctx.Done():
		return nil, media.Info{}, ctx.Err()
	}
	info, err := media.Inspect(data, media.Limits{MaxPixels: s.opts.MaxPixels})
	if err != nil {
		return refuse("the file was refused: %v", err)
	}
	if string(info.Kind) != up.ContentType {
		return refuse("the file is %s, but %s was announced: upload it again with its real type", info.Kind, up.ContentType)
	}
	return data, info, nil
}

// forget deletes a refused upload's object and record: best effort, as the
// lifecycle rule and TTL would in a day.
func (s *Service) forget(ctx context.Context, up *store.Upload, keys ...string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.objects.Delete(ctx, keys...); err != nil {
		s.opts.Log.WarnContext(ctx, "delete a refused upload", "upload", up.ID, "error", err)
	}
	if err := s.store.DeleteUpload(ctx, up.GroupID, up.ID); err != nil {
		s.opts.Log.WarnContext(ctx, "forget a refused upload", "upload", up.ID, "error", err)
	}
}

// download mints a presigned GET of key, served as kind, shown inline
// under filename.
func (s *Service) download(ctx context.Context, key string, kind media.Kind, filename string) (string, error) {
	if !s.Configured() {
		return "", ErrNotConfigured
	}
	p, err := s.objects.PresignGet(ctx, key, s.opts.DownloadTTL, objectstore.GetOptions{
		ContentType: string(kind), Disposition: objectstore.Disposition("inline", filename),
	})
	if err != nil {
		return "", storageError(err)
	}
	return p.URL, nil
}

// DownloadTTL is how long the URLs minted now work.
func (s *Service) DownloadTTL() time.Duration { return s.opts.DownloadTTL }
