package main

import (
	"fmt"
	"log/slog"

	"github.com/fracti/api/internal/gctune"
)

// gcConfig is GOGC and GOMEMLIMIT as the environment sets them ("": unset).
// The Go runtime reads both itself; serve applies gctune's defaults for a
// request server to whichever is unset.
type gcConfig struct{ GOGC, GOMEMLIMIT string }

func loadGCConfig() gcConfig {
	return gcConfig{GOGC: getenv("GOGC"), GOMEMLIMIT: getenv("GOMEMLIMIT")}
}

// apply sets the collector's defaults where the environment set nothing,
// and says what is in effect.
func (g gcConfig) apply(log *slog.Logger) {
	s := gctune.Apply(g.GOGC, g.GOMEMLIMIT)
	limit := "GOMEMLIMIT as set (or none)"
	if s.MemoryLimit > 0 {
		limit = fmt.Sprintf("%.0f%% of the container's memory limit", gctune.LimitShare*100)
	}
	log.Info("garbage collector", "gogc", s.GOGC, "gogcDefault", s.GOGCDefault, "memoryLimitBytes", s.MemoryLimit, "memoryLimit", limit)
}
