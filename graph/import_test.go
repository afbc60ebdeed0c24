package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const importMutation = `mutation($file: Upload!, $g: ID, $dry: Boolean, $members: [ImportMemberInput!], $format: ImportFormat = SPLITWISE_CSV) {
	importGroup(input: {groupId: $g, title: "Goa", currency: "INR", format: $format, file: $file, dryRun: $dry, members: $members}) {
		group { id title memberCount }
		expenses settlements comments dryRun alreadyImported
		members { name matched member { userId name placeholder } }
		balances { currency net member { userId name } }
		problems { line field message severity }
	}
}`

type importReport struct {
	ImportGroup struct {
		Group *struct {
			ID, Title   string
			MemberCount int
		}
		Expenses, Settlements, Comments int
		DryRun, AlreadyImported         bool
		Members                         []struct {
			Name, Matched string
			Member        *struct {
				UserID, Name string
				Placeholder  bool
			}
		}
		Balances []struct {
			Currency, Net string
			Member        struct{ UserID, Name string }
		}
		Problems []struct {
			Line              int
			Field             *string
			Message, Severity string
		}
	}
}

func splitwiseFile(t *testing.T, name string) apitest.File {
	t.Helper()
	data, err := os.ReadFile("../exchange/splitwise/testdata/" + name)
	require.NoError(t, err)
	return apitest.File{Name: name, Data: data}
}

// writeCalls counts the DynamoDB calls that write.
func writeCalls(c *dynamotest.Counter) int {
	ops := c.ByOperation()
	return ops["TransactWriteItems"] + ops["PutItem"] + ops["UpdateItem"] + ops["DeleteItem"] + ops["BatchWriteItem"]
}

// nets are a report's balances as "name currency" -> net.
func nets(r importReport) map[string]string {
	out := map[string]string{}
	for _, b := range r.ImportGroup.Balances {
		out[b.Member.Name+" "+b.Currency] = b.Net
	}
	return out
}

func TestImportGroupFromSplitwise(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Aarav")
	file := splitwiseFile(t, "group_two_currencies_crlf.csv")
	// The file's Total balance rows.
	want := map[string]string{
		"Aarav INR": "2500.00", "Isha INR": "200.00", "Dev INR": "-2700.00",
		"Aarav USD": "20.00", "Isha USD": "-10.00", "Dev USD": "-10.00",
	}

	alice.Must(nil, `{ me { id } }`) // records the user's profile, a write of its own
	api.Calls.Reset()
	var dry importReport
	alice.Must(&dry, importMutation, "file", file)
	require.Zero(t, writeCalls(api.Calls), "a dry run writes nothing")
	require.True(t, dry.ImportGroup.DryRun)
	require.Nil(t, dry.ImportGroup.Group)
	require.Equal(t, 4, dry.ImportGroup.Expenses)
	require.Equal(t, 1, dry.ImportGroup.Settlements)
	require.Empty(t, dry.ImportGroup.Problems)
	require.Equal(t, want, nets(dry))
	require.Equal(t, "EXISTING_MEMBER", dry.ImportGroup.Members[0].Matched, "Aarav is the importer by name")
	require.Equal(t, "111", dry.ImportGroup.Members[0].Member.UserID)
	for _, m := range dry.ImportGroup.Members[1:] {
		require.Equal(t, "NEW_PLACEHOLDER", m.Matched, m.Name)
		require.Nil(t, m.Member, "a placeholder of a dry run does not exist yet")
	}

	var real importReport
	alice.Must(&real, importMutation, "file", file, "dry", false)
	r := real.ImportGroup
	require.False(t, r.DryRun)
	require.False(t, r.AlreadyImported)
	require.NotNil(t, r.Group)
	require.Equal(t, "Goa", r.Group.Title)
	require.Equal(t, 3, r.Group.MemberCount)
	require.Equal(t, want, nets(real))
	require.Empty(t, r.Problems)
	for _, m := range r.Members[1:] {
		require.True(t, m.Member.Placeholder, m.Name)
	}
	var group struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
			Balances []struct {
				Currency, Net string
				Member        struct{ Name string }
			}
		}
	}
	alice.Must(&group, `query($g: ID!) { group(id: $g) { expenses(first: 50) { nodes { id } } balances { currency net member { name } } } }`, "g", r.Group.ID)
	require.Len(t, group.Group.Expenses.Nodes, 4)
	got := map[string]string{}
	for _, b := range group.Group.Balances {
		got[b.Member.Name+" "+b.Currency] = b.Net
	}
	require.Equal(t, want, got, "the group's balances are the file's")

	api.Calls.Reset()
	var again importReport
	alice.Must(&again, importMutation, "file", file, "dry", false)
	require.True(t, again.ImportGroup.AlreadyImported)
	require.Equal(t, r.Group.ID, again.ImportGroup.Group.ID)
	require.Zero(t, writeCalls(api.Calls), "the same file again creates nothing")
}

func TestImportIntoAGroupMapsNames(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	g := alice.CreateGroup("Goa")
	bob.Join(g)
	file := splitwiseFile(t, "group_two_currencies_crlf.csv")
	members := []map[string]any{{"name": "Aarav", "userId": "111"}, {"name": "Isha", "userId": "222"}}
	var r importReport
	alice.Must(&r, importMutation, "file", file, "g", g, "dry", false, "members", members)
	require.Equal(t, g, r.ImportGroup.Group.ID)
	require.Equal(t, 3, r.ImportGroup.Group.MemberCount, "Dev became a placeholder")
	require.Equal(t, "NEW_PLACEHOLDER", r.ImportGroup.Members[2].Matched)
	require.Equal(t, map[string]string{
		"Alice INR": "2500.00", "Bob INR": "200.00", "Dev INR": "-2700.00",
		"Alice USD": "20.00", "Bob USD": "-10.00", "Dev USD": "-10.00",
	}, nets(r))

	res := alice.Fails("BAD_USER_INPUT", importMutation, "file", file, "g", g, "members", []map[string]any{{"name": "Dev", "userId": "999"}})
	require.Equal(t, "input.members", res.Field())
	mallory := api.User("666", "Mallory")
	res = mallory.Fails("NOT_FOUND", importMutation, "file", file, "g", g)
	require.Contains(t, res.Errors[0].Message, "not found")
}

func TestImportOfABadFileNamesItsLineAndWritesNothing(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Aarav")
	bad := apitest.File{Name: "bad.csv", Data: []byte("Date,Description,Category,Cost,Currency,Aarav,Isha\n" +
		"2026-03-01,Hotel,Hotel,4800.00,INR,2400.00,-2400.00\n" +
		"2026-03-02,Taxi,Taxi,lots,INR,1.00,-1.00\n")}
	alice.Must(nil, `{ me { id } }`)
	api.Calls.Reset()
	res := alice.Fails("BAD_USER_INPUT", importMutation, "file", bad, "dry", false)
	require.EqualValues(t, 3, res.Errors[0].Extensions["line"], "%+v", res.Errors)
	require.Equal(t, "Cost", res.Field())
	require.Zero(t, writeCalls(api.Calls))
}

// TestImportAgainAfterLeavingShowsNothing: the importer who left the group
// their import made (having handed it over: the importer owns it), importing
// the same file again (a dry run or not), is told CONFLICT, not shown the
// group's balances and members (it used to answer alreadyImported with them).
func TestImportAgainAfterLeavingShowsNothing(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Aarav"), api.User("222", "Bela")
	file := apitest.File{Name: "f.csv", Data: []byte("Date,Description,Category,Cost,Currency,Isha,Dev\n2026-03-01,Taxi,Taxi,10.00,INR,5.00,-5.00\n")}
	var real importReport
	alice.Must(&real, importMutation, "file", file, "dry", false)
	require.NotNil(t, real.ImportGroup.Group)
	var owner struct{ Group struct{ ViewerRole string } }
	alice.Must(&owner, `query($g: ID!) { group(id: $g) { viewerRole } }`, "g", real.ImportGroup.Group.ID)
	require.Equal(t, "OWNER", owner.Group.ViewerRole, "the importer owns the group")
	bob.Join(real.ImportGroup.Group.ID)
	alice.Must(nil, `mutation($g: ID!) { transferOwnership(groupId: $g, userId: "222") { id } }`, "g", real.ImportGroup.Group.ID)
	alice.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", real.ImportGroup.Group.ID)
	for _, dry := range []bool{true, false} {
		res := alice.Fails("CONFLICT", importMutation, "file", file, "dry", dry)
		require.NotContains(t, string(res.Data), "Isha", "dry %t", dry)
	}
}

// TestImportHoldsTheFilesTextToTheMutationsRules: a description too long
// for createExpense, or a name with a control character, is BAD_USER_INPUT
// at its line with nothing written (before, a 300 KB description failed its
// batch's transaction as an internal error).
func TestImportHoldsTheFilesTextToTheMutationsRules(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Aarav")
	for _, tc := range []struct {
		file         string
		line         int
		field, error string
	}{
		{"Date,Description,Category,Cost,Currency,Aarav,Isha\n" +
			"2026-03-01,Hotel,Hotel,4800.00,INR,2400.00,-2400.00\n" +
			"2026-03-02," + strings.Repeat("x", 300_000) + ",Taxi,2.00,INR,1.00,-1.00\n", 3, "expenses.description", "to 200 characters"},
		{"Date,Description,Category,Cost,Currency,Aarav,Isha\n" +
			"2026-03-01,Hotel," + strings.Repeat("y", 51) + ",4800.00,INR,2400.00,-2400.00\n", 2, "expenses.category", "to 50"},
		{"Date,Description,Category,Cost,Currency,Aarav,\"Is\x07ha\"\n" +
			"2026-03-01,Hotel,Hotel,4800.00,INR,2400.00,-2400.00\n", 0, "people.name", "Is\\aha"},
	} {
		alice.Must(nil, `{ me { id } }`)
		api.Calls.Reset()
		res := alice.Fails("BAD_USER_INPUT", importMutation, "file", apitest.File{Name: "f.csv", Data: []byte(tc.file)}, "dry", false)
		require.EqualValues(t, tc.line, res.Errors[0].Extensions["line"], "%+v", res.Errors)
		require.Equal(t, tc.field, res.Field())
		require.Contains(t, res.Errors[0].Message, tc.error)
		require.Zero(t, writeCalls(api.Calls))
	}
}

// TestImportOfAWideFileIsRefusedAtItsHeader: a Splitwise file naming more
// people than the group's members and one import's placeholders is refused
// at its header, and a row involving more people than an expense may at
// that row, before the rest of the file is read.
func TestImportOfAWideFileIsRefusedAtItsHeader(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Aarav")
	header := func(n int) string {
		var b strings.Builder
		b.WriteString("Date,Description,Category,Cost,Currency")
		for i := range n {
			fmt.Fprintf(&b, ",P%d", i)
		}
		return b.String() + "\n"
	}
	wide := apitest.File{Name: "wide.csv", Data: []byte(header(1+store.MaxImportPlaceholders+1) + "2026-03-01,Tea,General,2.00,INR,1.00,-1.00" + strings.Repeat(",0", store.MaxImportPlaceholders) + "\n")}
	res := alice.Fails("BAD_USER_INPUT", importMutation, "file", wide)
	require.EqualValues(t, 1, res.Errors[0].Extensions["line"], "%+v", res.Errors)
	require.Contains(t, res.Errors[0].Message, fmt.Sprintf("more than the %d people", 1+store.MaxImportPlaceholders))

	n := store.MaxImportParts + 1
	row := "2026-03-01,Tea,General,1.00,INR" + strings.Repeat(",1,-1", (n+1)/2) + "\n"
	many := apitest.File{Name: "many.csv", Data: []byte(header(2*((n+1)/2)) + row)}
	res = alice.Fails("BAD_USER_INPUT", importMutation, "file", many)
	require.EqualValues(t, 2, res.Errors[0].Extensions["line"], "%+v", res.Errors)
	require.Contains(t, res.Errors[0].Message, fmt.Sprintf("at most %d", store.MaxImportParts))
}

func TestImportUploadNeedsAPreflightHeaderAndABoundedSize(t *testing.T) {
	api := apitest.New(t, func(c *httpapi.Config) { c.MaxUploadBytes = 4000 })
	alice := api.User("111", "Aarav")
	file := splitwiseFile(t, "group_two_currencies_crlf.csv")
	body := map[string]any{"query": importMutation, "variables": map[string]any{"file": file}}
	send := func(preflight string, size int) (int, map[string]any) {
		t.Helper()
		f := file
		if size > 0 {
			f.Data = []byte(strings.Repeat("x", size))
		}
		body["variables"] = map[string]any{"file": f}
		buf, contentType := apitest.MultipartBody(t, body)
		req, err := http.NewRequest(http.MethodPost, api.URL(), buf)
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", alice.Header())
		if preflight != "" {
			req.Header.Set(preflight, "1")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	code := func(out map[string]any) string {
		errs, _ := out["errors"].([]any)
		require.NotEmpty(t, errs, "%v", out)
		return errs[0].(map[string]any)["extensions"].(map[string]any)["code"].(string)
	}

	status, out := send("", 0)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "BAD_REQUEST", code(out))
	for _, h := range []string{"Apollo-Require-Preflight", "GraphQL-Preflight", "X-Apollo-Operation-Name"} {
		status, out = send(h, 0)
		require.Equal(t, http.StatusOK, status, "%s: %v", h, out)
		require.Nil(t, out["errors"], h)
	}
	status, out = send("Apollo-Require-Preflight", 5000)
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.Equal(t, "BAD_USER_INPUT", code(out))
}

func TestImportOfAFractiExportGivesItsBalances(t *testing.T) {
	api := apitest.New(t)
	alex := api.User("111", "Alex")
	data, err := os.ReadFile("../exchange/fractijson/testdata/group.json")
	require.NoError(t, err)
	file := apitest.File{Name: "group.json", Data: data}
	query := `mutation($file: Upload!) { importGroup(input: {format: FRACTI_JSON, file: $file, dryRun: false}) {
		group { id title } expenses settlements comments members { name matched } problems { line field message severity } } }`
	var out struct {
		ImportGroup struct {
			Group                           struct{ ID, Title string }
			Expenses, Settlements, Comments int
			Members                         []struct{ Name, Matched string }
			Problems                        []struct{ Message, Severity string }
		}
	}
	alex.Must(&out, query, "file", file)
	r := out.ImportGroup
	require.Equal(t, "Lisbon trip", r.Group.Title, "the file's title")
	require.NotZero(t, r.Expenses)
	require.NotZero(t, r.Comments)
	for _, p := range r.Problems {
		require.NotContains(t, p.Message, "the file says", "balances come out as the export's: %+v", r.Problems)
	}
	var group struct {
		Group struct {
			Expenses struct {
				Nodes []struct {
					Comments struct{ Nodes []struct{ Body *string } }
				}
			}
		}
	}
	alex.Must(&group, `query($g: ID!) { group(id: $g) { expenses(first: 100) { nodes { comments { nodes { body } } } } } }`, "g", r.Group.ID)
	comments := 0
	for _, e := range group.Group.Expenses.Nodes {
		comments += len(e.Comments.Nodes)
	}
	require.Equal(t, r.Comments, comments)
	require.Len(t, group.Group.Expenses.Nodes, r.Expenses)
}

func TestImportOfASpliitExport(t *testing.T) {
	api := apitest.New(t)
	ana := api.User("111", "Ana")
	data, err := os.ReadFile("../exchange/spliit/testdata/group.json")
	require.NoError(t, err)
	var out struct {
		ImportGroup struct {
			Group    struct{ Title string }
			Expenses int
			Members  []struct{ Name, Matched string }
			Problems []struct{ Field *string }
		}
	}
	ana.Must(&out, `mutation($file: Upload!) { importGroup(input: {format: SPLIIT_JSON, file: $file, dryRun: false}) {
		group { title } expenses members { name matched } problems { field } } }`, "file", apitest.File{Name: "group.json", Data: data})
	require.Equal(t, "Alps 2026", out.ImportGroup.Group.Title)
	require.NotZero(t, out.ImportGroup.Expenses)
	require.NotEmpty(t, out.ImportGroup.Members)
}

// TestImportUploadsAreReadAFewAtATime: with IMPORT_MAX_CONCURRENT at 1, an
// upload whose body is still arriving holds the one slot: another is
// refused at once with 503 UNAVAILABLE and a Retry-After, before its body
// is read; once the first is done, the next is read.
func TestImportUploadsAreReadAFewAtATime(t *testing.T) {
	api := apitest.New(t, func(c *httpapi.Config) { c.MaxUploads = 1 })
	alice := api.User("111", "Aarav")
	file := splitwiseFile(t, "group_two_currencies_crlf.csv")
	buf, contentType := apitest.MultipartBody(t, map[string]any{"query": importMutation, "variables": map[string]any{"file": file}})
	whole := buf.Bytes()
	upload := func(body io.Reader) *http.Response {
		req, err := http.NewRequest(http.MethodPost, api.URL(), body)
		if err != nil {
			panic(err)
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", alice.Header())
		req.Header.Set("Apollo-Require-Preflight", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	// The slow upload's handler takes its slot a moment after its first
	// bytes leave: until it has, the probe is read (200) and may even hold
	// the slot when the slow one arrives. Then the slow one is finished and
	// it all starts again.
	for attempt := 1; ; attempt++ {
		require.LessOrEqual(t, attempt, 20, "the slow upload never held the slot")
		body, feed := io.Pipe()
		first := make(chan *http.Response, 1)
		go func() { first <- upload(body) }()
		_, err := feed.Write(whole[:len(whole)/2])
		require.NoError(t, err)

		probe := upload(bytes.NewReader(whole))
		rest := func() *http.Response {
			_, err := feed.Write(whole[len(whole)/2:])
			require.NoError(t, err)
			require.NoError(t, feed.Close())
			return <-first
		}
		if probe.StatusCode != http.StatusServiceUnavailable {
			require.Equal(t, http.StatusOK, probe.StatusCode)
			rest()
			continue
		}
		require.Equal(t, "2", probe.Header.Get("Retry-After"))
		var out struct {
			Errors []struct {
				Message    string
				Extensions struct{ Code string }
			}
		}
		require.NoError(t, json.NewDecoder(probe.Body).Decode(&out))
		require.Equal(t, "UNAVAILABLE", out.Errors[0].Extensions.Code)
		require.Equal(t, http.StatusOK, rest().StatusCode)
		break
	}
	require.Equal(t, http.StatusOK, upload(bytes.NewReader(whole)).StatusCode, "the slot is free again")
}
