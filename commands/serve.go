package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fracti/api/wiring"
)

var serveCommand = command{
	name:    "serve",
	args:    "[--demo]",
	summary: "Serve the API (the default command) until SIGINT or SIGTERM, then shut down gracefully. --demo (make run) adds a demo user and group to a local table and prints a ready access token.",
	run:     runServe,
}

// demoTokenFile keeps the demo user's token between runs of `make run`.
const demoTokenFile = ".local/demo-token"

func runServe(ctx context.Context, c command, e env, args []string) error {
	fs := c.flags(e.errOut)
	demo := fs.Bool("demo", false, "on a local table: a demo user, a demo group and an access token, printed with a link to the Playground")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New(c.usage())
	}
	if *demo && !e.cfg.Store.LocalEngine() {
		// Demo users and a token printed in the clear belong on a local table only.
		return errors.New("serve --demo needs DYNAMODB_ENDPOINT set to a local DynamoDB (such as DynamoDB Local); it never writes demo data to AWS")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := wiring.New(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	if *demo {
		token, err := ensureDemo(ctx, srv.Store(), demoTokenFile)
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		printWelcome(e.errOut, e.cfg, token)
	}
	return srv.Run(ctx)
}
