package httpapi_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/playground"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser is headless Chromium showing one page, recording what the page
// reports as an error and every URL it asks for.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string // console errors, uncaught exceptions, error log entries
	requests []string // every URL requested, WebSockets included
}

// chromiumPath is the path of the Chromium the browser tests run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("the Playground browser test needs headless Chromium: install it with `apt-get install -y chromium` (.ci/run does)")
	return ""
}

// browserTimeout bounds a whole browser session: the test fails rather
// than hangs when something it waits for never happens.
const browserTimeout = 60 * time.Second

// newBrowser starts the Chromium at path headless with a fresh profile; it
// is killed when the test ends.
func newBrowser(t *testing.T, path string) *browser {
	t.Helper()
	// Not t.TempDir: Chromium's helpers may still be writing to the profile
	// for a moment after the browser is gone, which fails its cleanup.
	profile, err := os.MkdirTemp("", "chromium-profile-")
	require.NoError(t, err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	session, endSession := context.WithTimeout(context.Background(), browserTimeout)
	alloc, endAlloc := chromedp.NewExecAllocator(session, opts...)
	ctx, endBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		endBrowser() // closes the browser
		endAlloc()   // kills it if it is still there, and waits for it
		endSession()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	b := &browser{t: t, ctx: ctx}
	chromedp.ListenTarget(ctx, b.record)
	b.do("start Chromium", network.Enable(), cdplog.Enable(), runtime.Enable())
	return b
}

// record keeps what the page reports as an error, and what it requests.
func (b *browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
			var args []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			b.problems = append(b.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		b.problems = append(b.problems, "uncaught exception: "+text)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.LevelError {
			b.problems = append(b.problems, fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		u := ev.Request.URL
		if len(u) > 60 && strings.HasPrefix(u, "data:") {
			u = u[:60] + "…" // a font inside a stylesheet
		}
		b.requests = append(b.requests, u)
	case *network.EventWebSocketCreated:
		b.requests = append(b.requests, ev.URL)
	}
}

func (b *browser) recorded() (problems, requests []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...), append([]string(nil), b.requests...)
}

// do runs the actions of one step, and fails the test when they fail.
func (b *browser) do(step string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.fatalf("%s: %v", step, err)
	}
}

// fatalf fails the test with what the page reported and showed.
func (b *browser) fatalf(format string, args ...any) {
	b.t.Helper()
	problems, requests := b.recorded()
	b.t.Fatalf(format+"\npage errors: %q\nrequests: %q\nresult pane: %s", append(args, problems, requests, b.resultPane())...)
}

// until polls a JavaScript expression until it is truthy.
func until(expression string) chromedp.Action {
	return chromedp.Poll(expression, nil, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second))
}

// resultPane is the text GraphiQL shows as the result, as far as it can
// still be read.
func (b *browser) resultPane() string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	var text string
	_ = chromedp.Run(ctx, chromedp.Evaluate(resultText, &text))
	return text
}

const resultText = `document.querySelector('.result-window .CodeMirror-code')?.innerText ?? ''`

// paste replaces the whole content of the CodeMirror editor under selector
// with text, as a user does: click into it, select all, paste.
func paste(selector, text string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Click(selector+" .CodeMirror-scroll", chromedp.NodeVisible),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)),
		input.InsertText(text), // what a paste sends
	}
}

// parsed waits until GraphiQL has parsed the operation in the query editor,
// which it does a moment after an edit: its tab then bears the operation's
// name. (Run before, GraphiQL would still take the operation for what the
// editor held before, and send a subscription over HTTP.)
func parsed(operation string) chromedp.Action {
	return until(fmt.Sprintf(`document.querySelector('.graphiql-tab-active')?.innerText.trim() === %q`, operation))
}

// showsInResult waits until the result pane shows every one of the texts.
func showsInResult(texts ...string) chromedp.Action {
	var checks []string
	for _, s := range texts {
		checks = append(checks, fmt.Sprintf("t.includes(%q)", s))
	}
	return until(fmt.Sprintf("((t) => %s)(%s)", strings.Join(checks, " && "), resultText))
}

// welcomeFits checks that the text the query editor opens with fits its
// width: no line reaches past the editor's right edge, so nobody scrolls
// sideways to read it.
func (b *browser) welcomeFits() {
	b.t.Helper()
	var fit struct {
		Lines    int     `json:"lines"`
		Widest   float64 `json:"widest"`
		Editor   float64 `json:"editor"`
		Overflow bool    `json:"overflow"`
	}
	b.do("measure the welcome text", chromedp.Evaluate(`(() => {
		const editor = document.querySelector('.graphiql-query-editor .CodeMirror');
		const box = editor.querySelector('.CodeMirror-scroll').getBoundingClientRect();
		const lines = [...editor.querySelectorAll('.CodeMirror-line > span')];
		const widest = Math.max(...lines.map((l) => l.getBoundingClientRect().right));
		return {lines: lines.length, widest: widest - box.left, editor: box.width, overflow: widest > box.right};
	})()`, &fit))
	require.Greater(b.t, fit.Lines, 10, "the welcome text is in the editor")
	require.False(b.t, fit.Overflow, "the welcome text is %.0f px wide, its editor %.0f px: it does not fit", fit.Widest, fit.Editor)
}

const (
	queryEditor   = `.graphiql-query-editor`
	headersEditor = `section.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden)`
	executeButton = `button.graphiql-execute-button`
)

// TestPlaygroundInBrowser opens the Playground in headless Chromium against
// a live server with no way out: GraphiQL renders from the server's own
// assets with no error, the docs list the schema, a query runs with the
// Authorization header pasted into the Headers tab, and a subscription
// started there shows an event of a mutation made meanwhile.
func TestPlaygroundInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	api := apitest.New(t, apitest.Live(), apitest.Playground())
	zoe := api.User("6001", "Zoë Playground")
	group := zoe.CreateGroup("Offline trip")
	base, err := url.Parse(api.BaseURL())
	require.NoError(t, err)
	b := newBrowser(t, chromium) // closed before the server

	b.do("open the Playground", chromedp.Navigate(base.String()+"/"),
		chromedp.WaitVisible(queryEditor+" .CodeMirror"),
		until(`document.querySelector('#graphiql .loading') === null`))
	if problems, _ := b.recorded(); len(problems) > 0 {
		b.fatalf("the page reported errors as it loaded")
	}
	b.welcomeFits()

	b.do("open the docs and find Query.me",
		chromedp.Click(`button[aria-label="Show Documentation Explorer"]`, chromedp.NodeVisible),
		chromedp.Click(`//div[contains(@class,"graphiql-doc-explorer")]//a[contains(@class,"graphiql-doc-explorer-type-name") and normalize-space()="Query"]`,
			chromedp.BySearch, chromedp.NodeVisible),
		chromedp.WaitVisible(`//div[contains(@class,"graphiql-doc-explorer")]//a[contains(@class,"graphiql-doc-explorer-field-name") and normalize-space()="me"]`,
			chromedp.BySearch))

	b.do("paste the Authorization header and run a query",
		paste(headersEditor, `{"Authorization": "`+zoe.Header()+`"}`),
		paste(queryEditor, `query Me { me { name } }`),
		parsed("Me"),
		chromedp.Click(executeButton, chromedp.NodeVisible),
		showsInResult(`"name": "Zoë Playground"`))

	b.do("start a subscription",
		paste(queryEditor, `subscription Events { myEvents { type subject { ... on Expense { description amount } } } }`),
		parsed("Events"),
		chromedp.Click(executeButton, chromedp.NodeVisible))
	if !assert.Eventually(t, func() bool { return api.Live.Count() == 1 }, 20*time.Second, 20*time.Millisecond) {
		b.fatalf("the Playground's subscription never reached the server")
	}
	zoe.Expense(group, "12.50", zoe.ID)
	b.do("see the event of an expense added meanwhile",
		showsInResult(`"type": "EXPENSE_CREATED"`, `"description": "Dinner"`, `"amount": "12.50"`))

	problems, requests := b.recorded()
	require.Empty(t, problems, "the page reported errors")
	require.NotEmpty(t, requests)
	var socket bool
	for _, r := range requests {
		u, err := url.Parse(r)
		require.NoError(t, err)
		if u.Scheme == "data" {
			continue // GraphiQL's fonts, inside its stylesheet
		}
		require.Equal(t, base.Host, u.Host, "the page requested %s: only its own server may be asked", r)
		socket = socket || (u.Scheme == "ws" && u.Path == "/graphql")
	}
	require.True(t, socket, "the subscription went over a WebSocket to /graphql: %q", requests)
}

// TestPlaygroundLinkFillsHeaders opens the link `make run` prints: the
// Playground starts with the demo user's Authorization header in its
// Headers tab, and the first query runs with one click. A server that does
// not allow it (any server but a local one) ignores such a link.
func TestPlaygroundLinkFillsHeaders(t *testing.T) {
	chromium := chromiumPath(t)
	for _, allowed := range []bool{true, false} {
		t.Run(fmt.Sprintf("allowed=%v", allowed), func(t *testing.T) {
			opt := apitest.Playground()
			if allowed {
				opt = apitest.PlaygroundHeadersFromLink()
			}
			api := apitest.New(t, opt)
			ann := api.User("6002", "Ann Demo")
			b := newBrowser(t, chromium)
			link := playground.Link(api.BaseURL(), map[string]string{"Authorization": ann.Header()})
			b.do("open the link", chromedp.Navigate(link),
				chromedp.WaitVisible(queryEditor+" .CodeMirror"),
				until(`document.querySelector('#graphiql .loading') === null`))
			b.welcomeFits()
			b.do("run the query the page opens with", chromedp.Click(executeButton, chromedp.NodeVisible))
			if allowed {
				b.do("see the demo user's name", showsInResult(`"name": "Ann Demo"`))
			} else {
				b.do("see the query refused", showsInResult(`UNAUTHENTICATED`))
			}
			problems, _ := b.recorded()
			require.Empty(t, problems, "the page reported errors")
		})
	}
}
