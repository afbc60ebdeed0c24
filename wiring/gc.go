package wiring

import (
	"fmt"
	"log/slog"

	"github.com/fracti/api/config"
	"github.com/fracti/api/internal/gctune"
)

// applyGC sets the collector's defaults for a request server where the
// environment set nothing, and says what is in effect.
func applyGC(c config.GC, log *slog.Logger) {
	s := gctune.Apply(c.GOGC, c.GOMEMLIMIT)
	limit := "GOMEMLIMIT as set (or none)"
	if s.MemoryLimit > 0 {
		limit = fmt.Sprintf("%.0f%% of the container's memory limit", gctune.LimitShare*100)
	}
	log.Info("garbage collector", "gogc", s.GOGC, "gogcDefault", s.GOGCDefault, "memoryLimitBytes", s.MemoryLimit, "memoryLimit", limit)
}
