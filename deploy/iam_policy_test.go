package deploy

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/commands"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/internal/testkit/screens"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// permission is one IAM action on one resource.
type permission struct{ Action, Resource string }

// statement is one Allow statement of a policy.
type statement struct {
	Sid       string
	Actions   []string
	Resources []string
}

// policy reads a managed policy of the stack.
func (s *stack) policy(name string) []statement {
	doc := s.resource(name)["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
	list := func(v any) []string {
		if s, ok := v.(string); ok {
			return []string{s}
		}
		var out []string
		for _, e := range v.([]any) {
			out = append(out, e.(string))
		}
		return out
	}
	var stmts []statement
	for _, st := range doc["Statement"].([]any) {
		st := st.(map[string]any)
		require.Equal(s.t, "Allow", st["Effect"])
		stmts = append(stmts, statement{Sid: st["Sid"].(string), Actions: list(st["Action"]), Resources: list(st["Resource"])})
	}
	return stmts
}

// matches is IAM's wildcard match: * is any run of characters, ? one.
func matches(pattern, s string) bool {
	re := "^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(pattern)) + "$"
	return regexp.MustCompile(re).MatchString(s)
}

func (st statement) allows(p permission) bool {
	return slices.ContainsFunc(st.Actions, func(a string) bool { return matches(a, p.Action) }) &&
		slices.ContainsFunc(st.Resources, func(r string) bool { return matches(r, p.Resource) })
}

// permissionsOf is what the calls need, by IAM's rules for DynamoDB, in the
// stack's names: the test's table is the stack's, at tableARN. A
// transaction needs each of its items' actions (ConditionCheck:
// ConditionCheckItem); a query of an index needs it on the index; stream
// reads need it on the stream (GetRecords names only an iterator: it reads
// the stream the calls before it opened).
func permissionsOf(t testing.TB, calls []dynamotest.Call, table, tableARN string) []permission {
	arnOf := func(name string) string {
		if name == table {
			return tableARN
		}
		return "arn:aws:dynamodb:" + testRegion + ":" + testAccount + ":table/" + name
	}
	// local is an ARN of DynamoDB Local's in the stack's names.
	local := func(arn string) string {
		_, rest, ok := strings.Cut(arn, ":table/")
		require.True(t, ok, arn)
		name, sub, _ := strings.Cut(rest, "/")
		if sub != "" {
			return arnOf(name) + "/" + sub
		}
		return arnOf(name)
	}
	itemActions := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
	var perms []permission
	stream := ""
	for _, c := range calls {
		add := func(action, resource string) { perms = append(perms, permission{"dynamodb:" + action, resource}) }
		switch {
		case len(c.TransactItems) > 0:
			for _, item := range c.TransactItems {
				action, ok := itemActions[item.Kind]
				require.True(t, ok, "transaction item %s", item.Kind)
				add(action, arnOf(item.Table))
			}
		case c.Operation == "Query" && c.Index != "":
			add("Query", arnOf(c.Tables[0])+"/index/"+c.Index)
		case c.ResourceARN != "":
			add(c.Operation, local(c.ResourceARN))
		case c.StreamARN != "":
			stream = local(c.StreamARN)
			add(c.Operation, stream)
		case c.Operation == "GetRecords":
			require.NotEmpty(t, stream, "GetRecords before any stream was opened")
			add(c.Operation, stream)
		default:
			require.NotEmpty(t, c.Tables, "%s names no table", c.Operation)
			for _, name := range c.Tables {
				add(c.Operation, arnOf(name))
			}
		}
	}
	return perms
}

// requireExactPolicy checks the policy both ways: it allows every
// permission used, and every action of every statement was used on a
// resource of that statement, or is justified (by "Sid action", with why).
func requireExactPolicy(t *testing.T, stmts []statement, used []permission, justified map[string]string) {
	t.Helper()
	for _, p := range used {
		require.True(t, slices.ContainsFunc(stmts, func(st statement) bool { return st.allows(p) }), "the policy does not allow %s on %s", p.Action, p.Resource)
	}
	for _, st := range stmts {
		for _, action := range st.Actions {
			key := st.Sid + " " + action
			if _, ok := justified[key]; ok {
				delete(justified, key)
				continue
			}
			require.True(t, slices.ContainsFunc(used, func(p permission) bool {
				return p.Action == action && slices.ContainsFunc(st.Resources, func(r string) bool { return matches(r, p.Resource) })
			}), "statement %s allows %s, which nothing used", st.Sid, action)
		}
	}
	require.Empty(t, justified, "justified, but not in the policy")
}

// The server's policy is exactly what serving needs: the real `serve`
// (configuration, clients, stream tailer, HTTP handler) runs behind a
// proxy that records every DynamoDB and DynamoDB Streams call, while
// clients sign in both ways, run every mutation and the main screens,
// follow a subscription and probe /readyz. Each call must be allowed by the
// policy, and each action of the policy must have been needed.
func TestServerPolicyIsWhatServeCalls(t *testing.T) {
	table := servertest.LocalTable(t)
	ctx := context.Background()
	s := store.New(dynamotest.Client(t), table, store.Options{})
	_, err := s.EnableStream(ctx) // as on AWS: the table has its stream before the server starts
	require.NoError(t, err)
	alice := servertest.UserToken(t, s, "111", "Alice")
	carol := servertest.UserToken(t, s, "333", "Carol")
	dave := servertest.UserToken(t, s, "444", "Dave")

	rec := dynamotest.NewRecorder(t)
	s3rec, bucket := s3test.NewRecorder(t), s3test.Bucket(t)
	for k, v := range map[string]string{"DYNAMODB_ENDPOINT": rec.URL, "TELEGRAM_BOT_TOKEN": apitest.BotToken,
		"CURSOR_SECRET": "s3cret", "STREAM_POLL_INTERVAL": "50ms", "QUOTA_SAMPLE": "1",
		"S3_ENDPOINT": s3rec.URL, "S3_BUCKET": bucket} {
		t.Setenv(k, v)
	}
	base, stop := servertest.Serve(t, func(ctx context.Context) error {
		return commands.Run(ctx, []string{"serve"}, io.Discard, os.Stderr)
	})

	url := base + "/graphql"
	bob := "tma " + apitest.InitData(222, "Bob", "", "bob", time.Now())
	as := func(header string, out any, query string, vars ...any) {
		t.Helper()
		v := map[string]any{}
		for i := 0; i+1 < len(vars); i += 2 {
			v[vars[i].(string)] = vars[i+1]
		}
		servertest.GQLAs(t, url, header, out, query, v)
	}
	a, c, d := "Bearer "+alice, "Bearer "+carol, "Bearer "+dave

	var group struct{ CreateGroup struct{ ID string } }
	as(a, &group, `mutation { createGroup(input: {title: "Trip", currency: "USD"}) { id } }`)
	g := group.CreateGroup.ID
	// A subscription of Alice's, once the server reads its stream.
	require.Eventually(t, func() bool {
		var probe struct{ Group struct{ SyncToken string } }
		as(a, &probe, `query($g: ID!) { group(id: $g) { syncToken } }`, "g", g)
		return probe.Group.SyncToken != ""
	}, 10*time.Second, 50*time.Millisecond)
	events := servertest.SubscribeOn(t, url, alice, `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, map[string]any{"g": g}, "groupEvents")

	join := func(header string) {
		var inv struct{ CreateInvite struct{ Secret string } }
		as(a, &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, "g", g)
		as(header, nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, "i", inv.CreateInvite.Secret)
	}
	join(bob)
	join(c)
	join(d)

	var exp struct{ CreateExpense struct{ ID string } }
	as(a, &exp, `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "30.00", description: "Dinner", splitType: EQUAL,
		splits: [{userId: "111"}, {userId: "222"}, {userId: "333"}]}) { id } }`, "g", g)
	e := exp.CreateExpense.ID
	as(a, nil, `mutation($id: ID!) { updateExpense(id: $id, input: {expectedVersion: 1, amount: "36.00"}) { id } }`, "id", e)
	as(a, nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", e)
	as(a, nil, `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", e)

	var settle struct{ CreateSettlement struct{ ID string } }
	as(bob, &settle, `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "12.00"}) { id } }`, "g", g)
	as(a, nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", settle.CreateSettlement.ID)

	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	as(a, &ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Carol's old self") { userId } }`, "g", g)
	as(c, nil, `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { id } }`, "g", g, "p", ph.AddPlaceholderMember.UserID)
	as(bob, nil, `mutation($g: ID!) { updateWallet(groupId: $g, wallet: "") { id } }`, "g", g)
	var version struct{ Group struct{ Version int } }
	as(a, &version, `query($g: ID!) { group(id: $g) { version } }`, "g", g)
	as(a, nil, `mutation($g: ID!, $v: Int!) { updateGroup(id: $g, input: {expectedVersion: $v, title: "Ski trip"}) { id } }`, "g", g, "v", version.Group.Version)

	var inv struct{ CreateInvite struct{ ID string } }
	as(a, &inv, `mutation($g: ID!) { createInvite(groupId: $g) { id } }`, "g", g)
	as(a, nil, `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", inv.CreateInvite.ID)
	var tok struct {
		CreateAccessToken struct{ AccessToken struct{ ID string } }
	}
	as(a, &tok, `mutation { createAccessToken(input: {name: "script", scopes: [READ]}) { accessToken { id } } }`)
	as(a, nil, `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", tok.CreateAccessToken.AccessToken.ID)

	as(a, nil, screens.Home)
	as(bob, nil, screens.Group, "g", g)
	as(bob, nil, screens.Owes)
	as(a, nil, screens.ByID, "ids", []string{e})
	as(a, nil, `{ me { expensesPaid { nodes { id } } settlements { nodes { id } } usage { reads writes } accessTokens { id } } }`)
	as(a, nil, `query($g: ID!, $e: ID!, $s: ID!) {
		group(id: $g) { invites { id } historyHead activity(first: 5) { nodes { __typename } } changes(since: null) { events { sequence } } }
		expense(id: $e) { history { version } } settlement(id: $s) { status } node(id: $g) { id } }`,
		"g", g, "e", e, "s", settle.CreateSettlement.ID)
	receiptsWorkload(t, as, a, g, e)
	as(d, nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g) // Dave is on no expense

	// The subscription saw the group's events: the stream was read.
	require.Eventually(t, func() bool { return len(events.Snapshot()) >= 10 }, 10*time.Second, 20*time.Millisecond)
	for id := range events.Snapshot() {
		require.NotContains(t, id, "unexpected")
	}
	require.NoError(t, stop())

	// On AWS the server never creates the table: only with a local endpoint
	// does it try (openStore).
	calls := slices.DeleteFunc(rec.Calls(), func(c dynamotest.Call) bool { return c.Operation == "CreateTable" })
	st := newStack(t, loadTemplate(t), "prod")
	used := permissionsOf(t, calls, table, st.tableARN())
	justified := map[string]string{
		"Items dynamodb:BatchWriteItem": "the purge job deletes a deleted group's items once its 30 days of restore are over " +
			"(store/purge_groups.go, deleteKeys): no workload waits 30 days",
	}
	// The receipts bucket: what the Recorder saw, the clients' presigned
	// uploads and downloads included, in the stack's bucket.
	for _, p := range s3rec.Permissions() {
		resource := strings.Replace(p.Resource, "arn:aws:s3:::"+bucket, "arn:aws:s3:::"+st.bucketName(), 1)
		used = append(used, permission{p.Action, resource})
	}
	justified["ReceiptListing s3:ListBucket"] = "the purge job lists a deleted group's or expense's objects to delete them " +
		"(receipts/purge.go, objectstore.DeletePrefix) once its 30 days of restore are over: no workload waits 30 days"
	requireExactPolicy(t, st.policy("ServerPolicy"), used, justified)
}

// The operators' policy is exactly what the commands need: `migrate` of a
// group in the first version's shape, `rebuild-summaries`, `verify`, `token create`, `table
// describe` and `table create` run against the recording proxy, and `table
// create` on a table that lacks its stream, TTL, continuous backups and
// tags runs with the stand-in for the operations DynamoDB Local lacks,
// counting its calls.
func TestOperatorPolicyIsWhatTheCommandsCall(t *testing.T) {
	table := servertest.LocalTable(t)
	ctx := context.Background()
	db := dynamotest.Client(t)
	_, err := store.New(db, table, store.Options{}).EnableStream(ctx)
	require.NoError(t, err)
	servertest.FirstVersionGroup(t, db, table)

	rec := dynamotest.NewRecorder(t)
	t.Setenv("DYNAMODB_ENDPOINT", rec.URL)
	s3rec, bucket := s3test.NewRecorder(t), s3test.Bucket(t)
	t.Setenv("S3_ENDPOINT", s3rec.URL)
	t.Setenv("S3_BUCKET", bucket) // verify holds the bucket to the receipts
	var out bytes.Buffer
	command := func(args ...string) error { return commands.Run(ctx, args, &out, io.Discard) }
	require.NoError(t, command("migrate"))
	require.Contains(t, out.String(), "10 changed")
	require.NoError(t, command("rebuild-summaries"))
	require.NoError(t, command("verify"))
	require.NoError(t, command("token", "create", "--user", "1", "--name", "CI"))
	require.NoError(t, command("table", "describe"))
	require.NoError(t, command("table", "create"))
	st := newStack(t, loadTemplate(t), "prod")
	used := permissionsOf(t, rec.Calls(), table, st.tableARN())
	for _, p := range s3rec.Permissions() {
		used = append(used, permission{p.Action, strings.Replace(p.Resource, "arn:aws:s3:::"+bucket, "arn:aws:s3:::"+st.bucketName(), 1)})
	}

	// `table create` where every setting needs changing.
	bare := dynamotest.TableName(t)
	def := store.TableDefinition(bare)
	def.StreamSpecification = nil
	_, err = db.CreateTable(ctx, def)
	require.NoError(t, err)
	calls, standIn := &dynamotest.Counter{}, &dynamotest.StandIn{}
	s := store.New(dynamotest.Client(t, calls.Option(), standIn.Option()), bare, store.Options{})
	// What `table create --env prod` sets up (the command prints res.Changed).
	res, err := s.SetUpTable(ctx, store.TableSetup{PointInTimeRecovery: true, Tags: commands.TableTags("prod")})
	require.NoError(t, err)
	require.Equal(t, []string{"stream: on (NEW_AND_OLD_IMAGES)", "TTL: on ttl", "point-in-time recovery: on", "tags: app=fracti, env=prod"}, res.Changed)
	for op := range calls.ByOperation() {
		used = append(used, permission{"dynamodb:" + op, st.tableARN()}) // each names the table, by name or ARN
	}
	requireExactPolicy(t, st.policy("OperatorPolicy"), used, map[string]string{
		"Items dynamodb:ConditionCheckItem": "migrate writes an old expense with more participants than one transaction holds " +
			"in several, each checking that the expense is still in its old format (store/migrate.go, writeExpense)",
	})
}

// Every DynamoDB operation the code calls (s.db.<Op> in store/, the
// tailer's API.<Op> in live/) is allowed by one of the policies, so a call
// added where the workloads above do not reach is not missed. The
// workloads say which policy needs it.
func TestEveryDynamoDBCallIsInAPolicy(t *testing.T) {
	ops := map[string]string{} // operation → where it is called
	for _, dir := range []string{"store", "live"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		require.NoError(t, err)
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if client, ok := sel.X.(*ast.SelectorExpr); ok && (client.Sel.Name == "db" || client.Sel.Name == "API") {
						ops[sel.Sel.Name] = file
					}
				}
				return true
			})
		}
	}
	require.Contains(t, ops, "GetRecords", "the scan finds the calls")
	require.Contains(t, ops, "Scan")

	st := newStack(t, loadTemplate(t), "prod")
	stmts := append(st.policy("ServerPolicy"), st.policy("OperatorPolicy")...)
	table := st.tableARN()
	for op, file := range ops {
		actions := []string{"dynamodb:" + op}
		switch op {
		case "DeleteTable":
			continue // tests drop their tables with it; nothing deployed does
		case "TransactWriteItems":
			actions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"}
		}
		for _, action := range actions {
			require.True(t, slices.ContainsFunc(stmts, func(s statement) bool {
				return s.allows(permission{action, table}) || s.allows(permission{action, table + "/stream/x"})
			}), "%s calls %s: no policy allows %s", file, op, action)
		}
	}
}

// receiptsWorkload attaches, reads and deletes a receipt of the expense e,
// and sets and removes the group's picture, as a client does: presigned
// uploads and downloads included.
func receiptsWorkload(t *testing.T, as func(string, any, string, ...any), who, g, e string) {
	var img bytes.Buffer
	require.NoError(t, jpeg.Encode(&img, image.NewGray(image.Rect(0, 0, 400, 300)), nil))
	type presigned struct {
		UploadID, URL, Method string
		Headers               []struct{ Name, Value string }
	}
	send := func(method, url string, headers []struct{ Name, Value string }, body []byte) {
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		require.NoError(t, err)
		for _, h := range headers {
			req.Header.Set(h.Name, h.Value)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "%s %s", method, url)
	}
	const fields = `uploadId url method headers { name value }`
	var up struct{ CreateReceiptUpload presigned }
	as(who, &up, `mutation($e: ID!, $n: Int!) { createReceiptUpload(expenseId: $e, contentType: "image/jpeg", size: $n) { `+fields+` } }`, "e", e, "n", img.Len())
	send(up.CreateReceiptUpload.Method, up.CreateReceiptUpload.URL, up.CreateReceiptUpload.Headers, img.Bytes())
	var receipt struct {
		ConfirmReceipt struct{ ID, URL, ThumbnailURL string }
	}
	as(who, &receipt, `mutation($e: ID!, $u: ID!) { confirmReceipt(expenseId: $e, uploadId: $u) { id url thumbnailUrl } }`, "e", e, "u", up.CreateReceiptUpload.UploadID)
	send(http.MethodGet, receipt.ConfirmReceipt.URL, nil, nil)
	send(http.MethodGet, receipt.ConfirmReceipt.ThumbnailURL, nil, nil)
	as(who, nil, `mutation($id: ID!) { deleteReceipt(id: $id) }`, "id", receipt.ConfirmReceipt.ID)

	var avatar struct{ CreateAvatarUpload presigned }
	as(who, &avatar, `mutation($g: ID!, $n: Int!) { createAvatarUpload(groupId: $g, contentType: "image/jpeg", size: $n) { `+fields+` } }`, "g", g, "n", img.Len())
	send(avatar.CreateAvatarUpload.Method, avatar.CreateAvatarUpload.URL, avatar.CreateAvatarUpload.Headers, img.Bytes())
	var group struct{ ConfirmAvatar struct{ AvatarURL string } }
	as(who, &group, `mutation($g: ID!, $u: ID!) { confirmAvatar(groupId: $g, uploadId: $u) { avatarUrl } }`, "g", g, "u", avatar.CreateAvatarUpload.UploadID)
	send(http.MethodGet, group.ConfirmAvatar.AvatarURL, nil, nil)
	as(who, nil, `mutation($g: ID!) { removeAvatar(groupId: $g) { id } }`, "g", g)
}
