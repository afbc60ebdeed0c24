// Command fracti-api is Fracti's GraphQL API server. It hands its
// arguments to package commands (serve when there are none) and exits with
// their status; `fracti-api help` lists the commands. The configuration
// comes from the environment: docs/configuration.md.
package main

import (
	"context"
	"os"

	"github.com/fracti/api/commands"
	_ "github.com/fracti/api/internal/benchprobe" // profiles on signals, only in a binary built with -tags benchprobe
	// The distroless image has no zone database: groups' time zones
	// (Group.timeZone) are loaded from the copy embedded in the binary.
	_ "time/tzdata"
)

func main() {
	os.Exit(commands.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
