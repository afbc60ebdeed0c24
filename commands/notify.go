package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/fracti/api/wiring"
)

var notifyCommand = command{
	name: "notify",
	args: "[--replay]",
	summary: "Run the Telegram notifier alone: tail the table's stream and send, with the digest and weekly reminder jobs, until interrupted. " +
		"--replay sends the dead letters again instead, and exits. Needs TELEGRAM_BOT_TOKEN.",
	run: runNotify,
}

// runNotify runs `notify`.
func runNotify(ctx context.Context, c command, e env, args []string) error {
	fs := c.flags(e.errOut)
	replay := fs.Bool("replay", false, "send the dead letters again, and exit")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return err
	} else if err != nil || fs.NArg() > 0 {
		return fmt.Errorf("notify takes no argument but --replay")
	}
	s, err := wiring.OpenStore(ctx, e.cfg.Store, e.log)
	if err != nil {
		return err
	}
	n := wiring.Notifier(e.cfg.Notify, e.cfg.Telegram, s, wiring.TelegramBot(e.cfg.Telegram), e.log)
	if n == nil {
		return errors.New("notify needs TELEGRAM_BOT_TOKEN")
	}
	if *replay {
		sent, failed, err := n.Replay(ctx)
		fmt.Fprintf(e.out, "dead letters: %d sent, %d failed again (kept)\n", sent, failed)
		return err
	}
	return wiring.RunNotifier(ctx, e.cfg, s, n, e.log)
}
