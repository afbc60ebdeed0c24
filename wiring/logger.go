package wiring

import (
	"io"
	"log/slog"

	"github.com/fracti/api/config"
)

// Logger is the process's logger: text on stderr, or JSON (LOG_FORMAT=json).
func Logger(c config.Server, w io.Writer) *slog.Logger {
	if c.LogJSON {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
