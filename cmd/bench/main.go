// Command bench measures what the API's main screens cost: DynamoDB calls,
// waves and items per request, latency, CPU and allocations per request and
// throughput, each beside a hand-written raw SDK client reading the same data;
// and what its write screens cost (createExpense with 3, 6 and 20
// participants, updateExpense, a settlement and its completion, addComment,
// joinGroup), each beside the raw SDK replaying the very writes the server
// made. For every screen it prints the read and write capacity a request
// consumes, beside seed 000's bare design, and a month's bill for a group of 6.
//
//	go run ./cmd/bench [-n 200] [-c 32] [-d 5s] [-screens group,home,owes,byid,create3,create6,create20,update,settle,comment,join] [-gc-defaults=false] [-before old-report.txt]
//
// It uses DYNAMODB_ENDPOINT when set; otherwise it starts a throwaway
// in-memory DynamoDB Local (scripts/dynamodb-local.sh) and stops it at exit.
// Either way it seeds a fresh, uniquely named table and drops it afterwards.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/config"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/gctune"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
)

// options are the command's flags.
type options struct {
	n          int           // sequential requests for latency, CPU and allocations
	clients    int           // concurrent clients for throughput
	duration   time.Duration // how long each throughput run lasts
	screens    []string      // which screens to run, in order
	keepTable  bool          // leave the table behind (with an external endpoint)
	loaderWait time.Duration // the server's dataloader batch window (0: its default)
	gcDefaults bool          // apply the server's GOGC/GOMEMLIMIT defaults (gctune) as serve does
	before     string        // a saved report whose execution figures are the "before"
	cpuProfile string        // where to write a CPU profile of the group screen's execution runs
	serverProf string        // where to write CPU and allocation profiles of the server's sequential runs (<path>.cpu, <path>.mem)
	profAllocs bool          // sample allocations in -server-profile (which costs the CPU profile some accuracy)
	generic    bool          // the server without its fast path (FAST_MARSHAL=false)
}

// readScreens are the screens that read, in the order they are printed.
var readScreens = []string{"group", "home", "owes", "byid"}

// allScreens is every screen the tool knows, in the order it prints them.
var allScreens = append(slices.Clone(readScreens), writeScreens...)

func main() {
	var o options
	var screens string
	flag.IntVar(&o.n, "n", 200, "sequential requests per screen and side (latency, CPU, allocations)")
	flag.IntVar(&o.clients, "c", 32, "concurrent clients in the throughput runs")
	flag.DurationVar(&o.duration, "d", 5*time.Second, "duration of each throughput run")
	flag.StringVar(&screens, "screens", strings.Join(allScreens, ","), "comma-separated screens to run: "+strings.Join(allScreens, ", "))
	flag.BoolVar(&o.keepTable, "keep-table", false, "do not drop the table at the end")
	flag.DurationVar(&o.loaderWait, "loader-wait", 0, "the server's dataloader batch window (0: the server's default)")
	flag.BoolVar(&o.gcDefaults, "gc-defaults", true, "apply the server's garbage collector defaults (GOGC, GOMEMLIMIT where unset) as `serve` does")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the group screen's execution runs (the screen asked once and twice, sequentially) to this file")
	flag.StringVar(&o.serverProf, "server-profile", "", "write a CPU profile (`path`.cpu) and an allocation profile (path.mem) of the server side's sequential runs of every screen, labelled screen=<name> (go tool pprof -tagfocus screen=home)")
	flag.BoolVar(&o.profAllocs, "profile-allocs", true, "with -server-profile, also sample allocations (path.mem); their sampling shows in the CPU profile, so turn it off for a clean one")
	flag.StringVar(&o.before, "before", "", "a report this tool printed earlier: its execution figures are shown beside this run's as the before (default: main's before issue 27, before_issue27.txt)")
	flag.BoolVar(&o.generic, "generic-marshal", false, "run the server without its fast path for hot lists (FAST_MARSHAL=false)")
	flag.Parse()
	if o.cpuProfile != "" && o.serverProf != "" {
		// The server profile holds Go's one CPU profiler for the whole run.
		fmt.Fprintln(os.Stderr, "bench: -cpuprofile and -server-profile cannot be used together")
		os.Exit(2)
	}
	for _, s := range strings.Split(screens, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !contains(allScreens, s) {
			fmt.Fprintf(os.Stderr, "bench: unknown screen %q (known: %s)\n", s, strings.Join(allScreens, ", "))
			os.Exit(2)
		}
		o.screens = append(o.screens, s)
	}
	if o.n < 1 || o.clients < 1 || o.duration <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -n and -c must be positive, -d longer than zero")
		os.Exit(2)
	}

	// Ctrl-C must not leave a Java process behind: cleanup runs on the
	// signal as well as on a normal or failed return.
	var cleanups cleanupList
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "\nbench: %v: cleaning up\n", s)
		cleanups.run()
		os.Exit(130)
	}()

	// The server's configuration: the collector's settings, and DYNAMODB_ENDPOINT.
	cfg, err := config.FromEnvironment()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if o.gcDefaults {
		s := gctune.Apply(cfg.GC.GOGC, cfg.GC.GOMEMLIMIT)
		fmt.Fprintf(os.Stderr, "GOGC=%d (default: %v), memory limit set: %d bytes\n", s.GOGC, s.GOGCDefault, s.MemoryLimit)
	}
	if o.serverProf != "" {
		// Allocations are sampled only while the server serves its
		// sequential runs (see profileServer), finely enough to see
		// small per-request costs.
		runtime.MemProfileRate = 0
	}
	err = run(context.Background(), o, cfg.Store.Endpoint, &cleanups)
	cleanups.run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// cleanupList holds what must be undone at exit, run once, newest first,
// from whichever of main and the signal handler gets there first.
type cleanupList struct {
	mu  sync.Mutex
	fns []func()
}

// add registers fn to run at exit.
func (c *cleanupList) add(fn func()) {
	c.mu.Lock()
	c.fns = append(c.fns, fn)
	c.mu.Unlock()
}

// run runs every registered function once, newest first.
func (c *cleanupList) run() {
	c.mu.Lock()
	fns := c.fns
	c.fns = nil
	c.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// run is the whole benchmark: engine (DynamoDB Local at endpoint, or one
// of its own), table, seed, server, measurements.
func run(ctx context.Context, o options, endpoint string, cleanups *cleanupList) error {
	if endpoint == "" {
		ep, err := startDynamoDBLocal(cleanups)
		if err != nil {
			return err
		}
		endpoint = ep
	}
	fmt.Fprintf(os.Stderr, "DynamoDB at %s\n", endpoint)

	// A client without a counter for setup and seeding, so that the
	// counted clients hold only what the screens do.
	setupDB, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint})
	if err != nil {
		return err
	}
	table := uniqueTableName()
	setup := store.New(setupDB, table, store.Options{CursorSecret: []byte("bench")})
	if _, err := setup.EnsureTableWithoutStream(ctx); err != nil {
		return err
	}
	if !o.keepTable {
		cleanups.add(func() { _ = setup.DeleteTable(context.Background()) })
	}
	fmt.Fprintf(os.Stderr, "table %s\n", table)

	start := time.Now()
	data, err := seed(ctx, setup)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(os.Stderr, "seeded in %s: %d groups, %d expenses, %d settlements, %d writes\n",
		time.Since(start).Round(100*time.Millisecond), len(data.groups), data.expenses, data.settlements, data.writes)

	// The server: exactly as apitest builds it, with its own counter.
	serverCalls := &dynamotest.Counter{}
	// Both sides' clients measure capacity for the counted runs (the meter
	// reads written items through the setup client); the server's records
	// what each request writes, for the raw side to replay.
	m := &meter{images: setupDB, table: table}
	serverDB, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint}, serverCalls.Option(), m.option(), recorderOption)
	if err != nil {
		return err
	}
	s := store.New(serverDB, table, store.Options{CursorSecret: []byte("bench")})
	token, err := auth.NewToken()
	if err != nil {
		return err
	}
	if _, err := setup.CreateToken(ctx, store.Token{Hash: auth.HashToken(token), UserID: viewerID, Name: viewerName}); err != nil {
		return err
	}
	writerToken, err := auth.NewToken()
	if err != nil {
		return err
	}
	if _, err := setup.CreateToken(ctx, store.Token{Hash: auth.HashToken(writerToken), UserID: writerID, Name: writerName}); err != nil {
		return err
	}
	handler := httpapi.New(httpapi.Config{
		Store:      s,
		Log:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		LoaderWait: o.loaderWait, GenericMarshal: o.generic, BotToken: botToken,
	})
	srv := &serverSide{handler: handler, auth: "Bearer " + token, calls: serverCalls}

	// The raw client: the same client configuration, its own counter.
	rawCalls := &dynamotest.Counter{}
	rawDB, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint}, rawCalls.Option(), m.option())
	if err != nil {
		return err
	}
	raw := &rawClient{db: rawDB, table: table, user: viewerID, calls: rawCalls}
	if raw.booksPrefix, err = detectBooksPrefix(ctx, setupDB, table, data.bigGroup); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "per-currency books are %s<currency> items\n", raw.booksPrefix)

	stopServerProfile, err := startServerProfile(o.serverProf)
	if err != nil {
		return err
	}
	defer stopServerProfile()
	var rows []row
	var tput []throughput
	var exec *execution
	var writes []*writeScreen
	for _, name := range o.screens {
		var sc screen
		if contains(writeScreens, name) {
			fmt.Fprintf(os.Stderr, "seeding %s's %d groups ...\n", name, o.clients)
			writer := &serverSide{handler: handler, auth: "Bearer " + writerToken, calls: serverCalls}
			w, err := newWriteScreen(ctx, name, setup, setupDB, table, writer, raw, o.clients, slices.Index(writeScreens, name))
			if err != nil {
				return fmt.Errorf("screen %s: %w", name, err)
			}
			sc = w.screen()
			writes = append(writes, w)
		} else {
			sc = buildScreen(name, data, srv, raw)
		}
		fmt.Fprintf(os.Stderr, "measuring %s ...\n", name)
		r, t, err := measureScreen(ctx, sc, o)
		if err != nil {
			return fmt.Errorf("screen %s: %w", name, err)
		}
		rows = append(rows, r...)
		tput = append(tput, t)
		if name == "group" {
			fmt.Fprintln(os.Stderr, "measuring the group screen's execution alone ...")
			stop, err := startCPUProfile(o.cpuProfile)
			if err != nil {
				return err
			}
			exec, err = measureExecution(ctx, srv, data.bigGroup, o.n)
			stop()
			if err != nil {
				return fmt.Errorf("execution: %w", err)
			}
		}
	}
	printReport(os.Stdout, o, rows, tput, raw.booksPrefix)
	if err := printCapacity(ctx, os.Stdout, rows, writes); err != nil {
		return err
	}
	if exec != nil {
		before, err := readBefore(o.before)
		if err != nil {
			return err
		}
		exec.print(os.Stdout, before)
	}
	return nil
}

// startDynamoDBLocal starts an in-memory DynamoDB Local with the repository's
// script and returns its endpoint. Stopping it is registered before it
// starts, so that a Ctrl-C while it starts up stops it too (as long as the
// script has written its pid file by then).
func startDynamoDBLocal(cleanups *cleanupList) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(root, ".local"), 0o755); err != nil {
		return "", err
	}
	script := filepath.Join(root, "scripts", "dynamodb-local.sh")
	pidfile := filepath.Join(root, ".local", fmt.Sprintf("bench-dynamodb-%d.pid", os.Getpid()))
	cleanups.add(func() {
		cmd := exec.Command(script, "stop", pidfile)
		cmd.Stderr = os.Stderr
		_ = cmd.Run()
		_ = os.Remove(strings.TrimSuffix(pidfile, ".pid") + ".log")
	})
	fmt.Fprintln(os.Stderr, "starting DynamoDB Local (in memory) ...")
	cmd := exec.Command(script, "start-memory", pidfile)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("start DynamoDB Local: %w", err)
	}
	port := strings.TrimSpace(string(out))
	if port == "" {
		return "", errors.New("start DynamoDB Local: the script printed no port")
	}
	return "http://127.0.0.1:" + port, nil
}

// repoRoot is the nearest directory at or above the working directory whose
// go.mod declares this module, where the scripts live.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/fracti/api\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the github.com/fracti/api repository: run from it, or set DYNAMODB_ENDPOINT")
		}
		dir = parent
	}
}

// uniqueTableName keeps runs against a shared endpoint apart.
func uniqueTableName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "fracti-bench-" + hex.EncodeToString(b)
}

// contains reports whether xs holds x.
func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// startCPUProfile starts a CPU profile into path ("": none) and returns
// what stops it.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
