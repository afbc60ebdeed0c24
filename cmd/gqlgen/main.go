// Command gqlgen is the project's own gqlgen: `gqlgen generate` writes the
// executor, the models and the resolvers' skeletons from gqlgen.yml as
// upstream gqlgen does, with the project's plugins added (package
// internal/gqlgenplugin: fields in line on objects whose fields never wait).
// go.mod's tool directive names it, so `go tool gqlgen generate` and
// `make generate` run it.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"

	"github.com/fracti/api/internal/gqlgenplugin"
)

func main() {
	args := os.Args[1:]
	verbose := len(args) == 2 && (args[1] == "-v" || args[1] == "--verbose")
	if len(args) == 0 || args[0] != "generate" || (len(args) == 2 && !verbose) || len(args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: go tool gqlgen generate [-v]   (reads gqlgen.yml in the working directory)")
		os.Exit(2)
	}
	// As upstream gqlgen: its notes on binding go to the log only with -v.
	if !verbose {
		log.SetOutput(io.Discard)
	}
	if err := generate(verbose); err != nil {
		fmt.Fprintln(os.Stderr, "gqlgen:", err)
		os.Exit(1)
	}
}

// generate runs gqlgen with the configuration from gqlgen.yml and the
// project's plugins.
func generate(verbose bool) error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return errors.Join(errors.New("load gqlgen.yml"), err)
	}
	return api.Generate(cfg, api.AddPlugin(&gqlgenplugin.Inline{Log: logTo(verbose)}))
}

// logTo is where the plugins report: stderr with -v.
func logTo(verbose bool) io.Writer {
	if verbose {
		return os.Stderr
	}
	return nil
}
