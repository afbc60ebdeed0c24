package wiring

import (
	"log/slog"

	"github.com/fracti/api/config"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
)

// Receipts is the service of receipts and pictures over the store and the
// bucket of c (none when S3_BUCKET is unset: it then answers UNAVAILABLE).
func Receipts(c config.Config, s *store.Store, log *slog.Logger) (*receipts.Service, error) {
	objects, err := ObjectStore(c.Objects)
	if err != nil {
		return nil, err
	}
	if objects == nil {
		log.Info("no S3_BUCKET: receipts and pictures are unavailable")
	}
	return receipts.New(s, objects, receipts.Options{
		MaxBytes: c.Receipts.MaxBytes, MaxPixels: c.Receipts.MaxPixels,
		UploadTTL: c.Receipts.UploadTTL, DownloadTTL: c.Receipts.DownloadTTL, Log: log,
	}), nil
}
