package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// On-demand prices of DynamoDB Standard tables in us-east-1 (since the
// price cut of November 2024), in dollars per million request units.
const (
	pricePerMillionWrites = 0.625
	pricePerMillionReads  = 0.125
	pricePerGBMonth       = 0.25 // storage, beyond the free 25 GB
)

// month is the activity of one group of 6 in a month, for its bill: the
// screens that measure each action, and how often it happens.
var month = []struct {
	screen, what string
	times        float64
}{
	{"create6", "expenses of 6 participants recorded", 100},
	{"update", "edits", 10},
	{"settle", "payments recorded and confirmed", 10},
	{"comment", "comments", 30},
	{"join", "members joining", 5},
	{"group", "group screens opened (6 members, twice a day)", 360},
}

// printCapacity writes what each screen's request consumes, beside seed
// 000's design for the same action, item by item for the writes, and a
// month's bill for a group of 6.
func printCapacity(ctx context.Context, w io.Writer, rows []row, writes []*writeScreen) error {
	seeds := map[string][2]float64{} // units, and 1 where seed 000 has the action
	for _, ws := range writes {
		units, ok, err := ws.seed000(ctx)
		if err != nil {
			return err
		}
		if ok {
			seeds[ws.name] = [2]float64{units, 1}
		}
	}
	fmt.Fprintln(w, "\ncapacity per request (RCU: read units as DynamoDB reports them; WCU: write units by AWS's rules, item by item,")
	fmt.Fprintln(w, "2 per started KB in a transaction, indexes 1; in brackets what DynamoDB Local reports; seed 000: the same action in its bare design):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "screen\tside\tcalls\titems written\tRCU\tWCU\tseed 000 WCU\tratio")
	for _, r := range rows {
		c := r.capacity
		seed, ratio := "", ""
		if s, ok := seeds[r.screen]; ok && r.side == "server" {
			seed, ratio = fmt.Sprintf("%.0f", s[0]), fmt.Sprintf("%.2f", c.writeUnits/s[0])
		} else if r.side == "server" && contains(writeScreens, r.screen) {
			seed = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.1f\t%.0f (%.0f)\t%s\t%s\n", r.screen, r.side, formatCalls(r.calls), c.itemsWritten, c.readUnits, c.writeUnits, c.reportedWrite, seed, ratio)
	}
	_ = tw.Flush()

	for _, r := range rows {
		if r.side != "server" || len(r.capacity.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s, item by item (the server's last counted request):\n", r.screen)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  item\twrite\tbytes\ttable WCU\tindex WCU")
		for _, it := range r.capacity.items {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%.0f\t%.0f\n", it.kind, it.op, it.size, it.table, it.index)
		}
		_ = tw.Flush()
	}

	byScreen := map[string]capacity{}
	for _, r := range rows {
		if r.side == "server" {
			byScreen[r.screen] = r.capacity
		}
	}
	var reads, writesUnits, stored float64
	fmt.Fprintln(w, "\na month of a group of 6, at on-demand prices ($0.625 per million write units, $0.125 per million read units):")
	for _, m := range month {
		c, ok := byScreen[m.screen]
		if !ok {
			fmt.Fprintf(w, "  %4.0f %s: not measured in this run (-screens %s)\n", m.times, m.what, m.screen)
			continue
		}
		reads += m.times * c.readUnits
		writesUnits += m.times * c.writeUnits
		stored += m.times * c.stored
		fmt.Fprintf(w, "  %4.0f %s: %.0f read units, %.0f write units\n", m.times, m.what, m.times*c.readUnits, m.times*c.writeUnits)
	}
	fmt.Fprintf(w, "  together: %.0f read units ($%.6f), %.0f write units ($%.6f): $%.5f a month\n",
		reads, reads*pricePerMillionReads/1e6, writesUnits, writesUnits*pricePerMillionWrites/1e6,
		(reads*pricePerMillionReads+writesUnits*pricePerMillionWrites)/1e6)
	fmt.Fprintf(w, "  and what it adds to storage: %.0f KB, $%.6f a month from then on ($0.25 per GB-month, beyond the free 25 GB)\n",
		stored/1024, stored/(1<<30)*pricePerGBMonth)
	return nil
}
