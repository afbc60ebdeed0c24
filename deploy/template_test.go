package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/fracti/api/commands"
	"github.com/fracti/api/config"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// templatePath is the CloudFormation template of an environment.
const templatePath = "fracti.yaml"

// loadTemplate reads the CloudFormation template into plain values, with
// the short forms of intrinsic functions (!Ref, !Sub, !GetAtt, !If, …) as
// the long ones they stand for ({"Ref": …}, {"Fn::Sub": …}).
func loadTemplate(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile(templatePath)
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(b, &doc))
	v, err := yamlValue(&doc)
	require.NoError(t, err)
	return v.(map[string]any)
}

// yamlValue converts a YAML node, CloudFormation's short tags included.
func yamlValue(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		return yamlValue(n.Content[0])
	case yaml.AliasNode:
		return yamlValue(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			val, err := yamlValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = val
		}
		v = m
	case yaml.SequenceNode:
		list := []any{}
		for _, c := range n.Content {
			val, err := yamlValue(c)
			if err != nil {
				return nil, err
			}
			list = append(list, val)
		}
		v = list
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!!") {
			if err := n.Decode(&v); err != nil {
				return nil, err
			}
		} else {
			v = n.Value // a short tag's argument is text
		}
	}
	switch tag := n.Tag; {
	case !strings.HasPrefix(tag, "!") || strings.HasPrefix(tag, "!!"):
		return v, nil
	case tag == "!Ref":
		return map[string]any{"Ref": v}, nil
	case tag == "!GetAtt":
		if s, ok := v.(string); ok {
			resource, attr, _ := strings.Cut(s, ".")
			v = []any{resource, attr}
		}
		return map[string]any{"Fn::GetAtt": v}, nil
	case tag == "!Condition":
		return map[string]any{"Condition": v}, nil
	default:
		return map[string]any{"Fn::" + tag[1:]: v}, nil
	}
}

// stack is the template deployed for one environment, in a made-up account
// and region: it evaluates the intrinsic functions the template uses.
type stack struct {
	t          testing.TB
	template   map[string]any
	params     map[string]string
	lists      map[string][]any // parameters of type CommaDelimitedList
	conditions map[string]bool
}

// Made-up account and region of the stacks the tests evaluate.
const (
	testRegion  = "eu-west-1"
	testAccount = "123456789012"
)

// testOrigins are the made-up stacks' MiniAppOrigins.
var testOrigins = []any{"https://app.example", "https://beta.app.example"}

func newStack(t testing.TB, template map[string]any, env string) *stack {
	s := &stack{t: t, template: template, params: map[string]string{"Environment": env},
		lists: map[string][]any{"MiniAppOrigins": testOrigins}, conditions: map[string]bool{}}
	for name, cond := range template["Conditions"].(map[string]any) {
		s.conditions[name] = s.eval(cond).(bool)
	}
	return s
}

// resource is a resource's evaluated definition: DeletionPolicy,
// Properties and the rest.
func (s *stack) resource(name string) map[string]any {
	r, ok := s.template["Resources"].(map[string]any)[name]
	require.True(s.t, ok, "no resource %s", name)
	return s.eval(r).(map[string]any)
}

// tableARN is the ARN of the stack's table.
func (s *stack) tableARN() string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", testRegion, testAccount, s.resource("Table")["Properties"].(map[string]any)["TableName"])
}

// bucketName is the name of the stack's receipts bucket.
func (s *stack) bucketName() string {
	return s.resource("ReceiptsBucket")["Properties"].(map[string]any)["BucketName"].(string)
}

// ref is what Ref returns: a parameter's value, a table's or a bucket's
// name, a managed policy's ARN.
func (s *stack) ref(name string) string {
	if v, ok := s.params[name]; ok {
		return v
	}
	switch v := map[string]string{"AWS::Region": testRegion, "AWS::AccountId": testAccount, "AWS::Partition": "aws"}[name]; {
	case v != "":
		return v
	case name == "Table":
		return s.resource("Table")["Properties"].(map[string]any)["TableName"].(string)
	case name == "ReceiptsBucket":
		return s.bucketName()
	case strings.HasSuffix(name, "Policy"):
		return fmt.Sprintf("arn:aws:iam::%s:policy/%s", testAccount, name)
	}
	s.t.Fatalf("Ref %s: not in the template", name)
	return ""
}

// getAtt is what Fn::GetAtt returns for the table's and the bucket's attributes.
func (s *stack) getAtt(resource, attr string) string {
	switch resource + "." + attr {
	case "ReceiptsBucket.Arn":
		return "arn:aws:s3:::" + s.bucketName()
	case "Table.Arn":
		return s.tableARN()
	case "Table.StreamArn":
		return s.tableARN() + "/stream/2024-01-01T00:00:00.000"
	}
	s.t.Fatalf("GetAtt %s.%s: not in the template", resource, attr)
	return ""
}

var subVariable = regexp.MustCompile(`\$\{([^}]+)\}`)

// eval evaluates the intrinsic functions in v.
func (s *stack) eval(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.eval(e)
		}
		return out
	case map[string]any:
		if len(v) == 1 {
			for fn, arg := range v {
				if out, ok := s.function(fn, arg); ok {
					return out
				}
			}
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = s.eval(e)
		}
		return out
	}
	return v
}

// function evaluates one intrinsic function; ok is false when fn is no function.
func (s *stack) function(fn string, arg any) (any, bool) {
	switch fn {
	case "Ref":
		if list, ok := s.lists[arg.(string)]; ok {
			return list, true
		}
		return s.ref(arg.(string)), true
	case "Fn::GetAtt":
		a := arg.([]any)
		return s.getAtt(a[0].(string), a[1].(string)), true
	case "Fn::Sub":
		return subVariable.ReplaceAllStringFunc(arg.(string), func(m string) string {
			name := m[2 : len(m)-1]
			if resource, attr, ok := strings.Cut(name, "."); ok {
				return s.getAtt(resource, attr)
			}
			return s.ref(name)
		}), true
	case "Fn::Equals":
		a := s.eval(arg).([]any)
		return a[0] == a[1], true
	case "Fn::If":
		a := arg.([]any)
		if s.conditions[a[0].(string)] {
			return s.eval(a[1]), true
		}
		return s.eval(a[2]), true
	}
	if strings.HasPrefix(fn, "Fn::") {
		s.t.Fatalf("%s: the test does not evaluate it", fn)
	}
	return nil, false
}

// plain is v as JSON sees it, without null or empty fields: SDK inputs and
// template values compare alike.
func plain(t testing.TB, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	var prune func(any) any
	prune = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if e = prune(e); e == nil {
					delete(v, k)
				} else {
					v[k] = e
				}
			}
			if len(v) == 0 {
				return nil
			}
		case []any:
			for i, e := range v {
				v[i] = prune(e)
			}
		}
		return v
	}
	return prune(out)
}

// environments are the template's allowed values of Environment.
func environments(t testing.TB, template map[string]any) []string {
	var envs []string
	for _, e := range template["Parameters"].(map[string]any)["Environment"].(map[string]any)["AllowedValues"].([]any) {
		envs = append(envs, e.(string))
	}
	require.Equal(t, []string{"dev", "staging", "prod"}, envs)
	return envs
}

// The template's table is the one the server and `table create` make:
// store.TableDefinition's keys, attributes, indexes and billing, the stream
// StreamSpecification names, TTL on the store's attribute, point-in-time
// recovery, FractiTable-<env>, and the tags of `table create --env <env>`.
func TestTemplateTableIsTheStoresTable(t *testing.T) {
	template := loadTemplate(t)
	for _, env := range environments(t, template) {
		t.Run(env, func(t *testing.T) {
			props := newStack(t, template, env).resource("Table")["Properties"].(map[string]any)
			name, err := commands.TableName(config.TableBaseName, false, env)
			require.NoError(t, err)
			def := store.TableDefinition(name)
			require.Equal(t, name, props["TableName"])
			require.Equal(t, plain(t, def.KeySchema), plain(t, props["KeySchema"]))
			require.Equal(t, plain(t, def.AttributeDefinitions), plain(t, props["AttributeDefinitions"]))
			require.Equal(t, plain(t, def.GlobalSecondaryIndexes), plain(t, props["GlobalSecondaryIndexes"]))
			require.Equal(t, string(def.BillingMode), props["BillingMode"])
			require.Equal(t, map[string]any{"StreamViewType": string(store.StreamSpecification().StreamViewType)}, props["StreamSpecification"])
			require.Equal(t, map[string]any{"AttributeName": aws.ToString(store.TimeToLive().AttributeName), "Enabled": true}, props["TimeToLiveSpecification"])
			require.Equal(t, map[string]any{"PointInTimeRecoveryEnabled": true}, props["PointInTimeRecoverySpecification"])
			tags := map[string]any{}
			for _, tag := range props["Tags"].([]any) {
				tag := tag.(map[string]any)
				tags[tag["Key"].(string)] = tag["Value"]
			}
			want := map[string]any{}
			for k, v := range commands.TableTags(env) {
				want[k] = v
			}
			require.Equal(t, want, tags)

			var keys []string
			for k := range props {
				keys = append(keys, k)
			}
			require.ElementsMatch(t, []string{"TableName", "KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "BillingMode",
				"StreamSpecification", "TimeToLiveSpecification", "PointInTimeRecoverySpecification", "Tags"}, keys, "nothing else is set")
		})
	}
}

// Seed 002: a production table is kept when the stack goes (or replaces
// it), a development table is deleted with it. Intrinsic functions in
// DeletionPolicy take the AWS::LanguageExtensions transform.
func TestTemplateDeletionPolicy(t *testing.T) {
	template := loadTemplate(t)
	require.Equal(t, "AWS::LanguageExtensions", template["Transform"])
	want := map[string]string{"dev": "Delete", "staging": "Retain", "prod": "Retain"}
	for _, env := range environments(t, template) {
		for _, name := range []string{"Table", "ReceiptsBucket"} {
			r := newStack(t, template, env).resource(name)
			require.Equal(t, want[env], r["DeletionPolicy"], "%s %s", env, name)
			require.Equal(t, want[env], r["UpdateReplacePolicy"], "%s %s", env, name)
		}
	}
}

func TestTemplateOutputs(t *testing.T) {
	s := newStack(t, loadTemplate(t), "prod")
	outputs := map[string]any{}
	for name, o := range s.template["Outputs"].(map[string]any) {
		outputs[name] = s.eval(o).(map[string]any)["Value"]
	}
	arn := "arn:aws:dynamodb:eu-west-1:123456789012:table/FractiTable-prod"
	require.Equal(t, map[string]any{
		"TableName":          "FractiTable-prod",
		"TableArn":           arn,
		"StreamArn":          arn + "/stream/2024-01-01T00:00:00.000",
		"ReceiptsBucketName": "fracti-receipts-prod-123456789012-eu-west-1",
		"ServerPolicyArn":    "arn:aws:iam::123456789012:policy/ServerPolicy",
		"OperatorPolicyArn":  "arn:aws:iam::123456789012:policy/OperatorPolicy",
	}, outputs)
}

// The receipts bucket is private and encrypted, owned by the account
// alone, forgets uploads never confirmed (the tag objectstore puts on
// them) and incomplete multipart uploads after a day, and lets only the
// Mini App's origins PUT and GET with the headers presigned uploads carry.
func TestTemplateReceiptsBucket(t *testing.T) {
	template := loadTemplate(t)
	// The headers a browser sends with a presigned upload, as objectstore makes it.
	c, err := objectstore.New(objectstore.Options{Bucket: "b", Region: testRegion, Credentials: credentials.NewStaticCredentialsProvider("id", "secret", "")})
	require.NoError(t, err)
	upload, err := c.PresignPut(context.Background(), "receipts/g/e/u", "image/jpeg", 10, objectstore.PendingTagging, time.Minute)
	require.NoError(t, err)
	require.NotEmpty(t, upload.Headers)

	for _, env := range environments(t, template) {
		t.Run(env, func(t *testing.T) {
			s := newStack(t, template, env)
			props := s.resource("ReceiptsBucket")["Properties"].(map[string]any)
			require.Equal(t, "fracti-receipts-"+env+"-123456789012-eu-west-1", props["BucketName"])
			require.Equal(t, map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
				props["PublicAccessBlockConfiguration"])
			require.Equal(t, map[string]any{"ServerSideEncryptionConfiguration": []any{
				map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
			}}, props["BucketEncryption"])
			require.Equal(t, map[string]any{"Rules": []any{map[string]any{"ObjectOwnership": "BucketOwnerEnforced"}}}, props["OwnershipControls"])

			rules := props["LifecycleConfiguration"].(map[string]any)["Rules"].([]any)
			require.ElementsMatch(t, []any{
				map[string]any{"Id": "ExpirePendingUploads", "Status": "Enabled", "ExpirationInDays": 1,
					"TagFilters": []any{map[string]any{"Key": objectstore.PendingTagKey, "Value": objectstore.PendingTagValue}}},
				map[string]any{"Id": "AbortIncompleteMultipartUploads", "Status": "Enabled",
					"AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": 1}},
			}, rules, "pending uploads (and only they: no prefix, no other tag) expire after a day")

			cors := props["CorsConfiguration"].(map[string]any)["CorsRules"].([]any)
			require.Len(t, cors, 1)
			rule := cors[0].(map[string]any)
			require.Equal(t, testOrigins, rule["AllowedOrigins"], "the Mini App's origins, from the parameter")
			require.ElementsMatch(t, []any{"PUT", "GET", "HEAD"}, rule["AllowedMethods"])
			var allowed []string
			for _, h := range rule["AllowedHeaders"].([]any) {
				allowed = append(allowed, strings.ToLower(h.(string)))
			}
			var sent []string
			for _, h := range upload.Headers {
				sent = append(sent, strings.ToLower(h.Name))
			}
			require.ElementsMatch(t, sent, allowed, "exactly the headers a presigned upload carries")

			tags := map[string]any{}
			for _, tag := range props["Tags"].([]any) {
				tag := tag.(map[string]any)
				tags[tag["Key"].(string)] = tag["Value"]
			}
			require.Equal(t, map[string]any{"app": "fracti", "env": env}, tags)

			var keys []string
			for k := range props {
				keys = append(keys, k)
			}
			require.ElementsMatch(t, []string{"BucketName", "PublicAccessBlockConfiguration", "BucketEncryption", "OwnershipControls",
				"LifecycleConfiguration", "CorsConfiguration", "Tags"}, keys, "nothing else is set (no website, no public policy)")

			// Its policy refuses every call without TLS, and allows nothing.
			policy := s.resource("ReceiptsBucketPolicy")["Properties"].(map[string]any)
			require.Equal(t, s.bucketName(), policy["Bucket"])
			arn := "arn:aws:s3:::" + s.bucketName()
			require.Equal(t, []any{map[string]any{"Sid": "TLSOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
				"Resource":  []any{arn, arn + "/*"},
				"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": false}}}},
				policy["PolicyDocument"].(map[string]any)["Statement"])
		})
	}
}

// The server may touch the bucket's objects under receipts/ and avatars/
// alone, with the object actions objectstore's calls and presigned
// requests need, and list only under those prefixes; nothing of the
// bucket's own settings. The operators' policy has no S3 at all.
func TestTemplateServerPolicyOnTheBucket(t *testing.T) {
	s := newStack(t, loadTemplate(t), "prod")
	arn := "arn:aws:s3:::fracti-receipts-prod-123456789012-eu-west-1"
	doc := s.resource("ServerPolicy")["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
	var s3Statements []any
	for _, st := range doc["Statement"].([]any) {
		st := st.(map[string]any)
		if strings.HasPrefix(fmt.Sprint(st["Action"]), "[s3:") || strings.HasPrefix(fmt.Sprint(st["Action"]), "s3:") {
			s3Statements = append(s3Statements, st)
		}
	}
	require.Equal(t, []any{
		map[string]any{"Sid": "ReceiptObjects", "Effect": "Allow",
			"Action":   []any{"s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:PutObjectTagging", "s3:DeleteObjectTagging"},
			"Resource": []any{arn + "/receipts/*", arn + "/avatars/*"}},
		map[string]any{"Sid": "ReceiptListing", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": arn,
			"Condition": map[string]any{"StringLike": map[string]any{"s3:prefix": []any{"receipts/*", "avatars/*"}}}},
	}, s3Statements)
	// Operators only list receipts (`verify`); they never read or change one.
	for _, st := range s.policy("OperatorPolicy") {
		for _, a := range st.Actions {
			if strings.HasPrefix(a, "s3:") {
				require.Equal(t, "ReceiptListing s3:ListBucket", st.Sid+" "+a)
				require.Equal(t, []string{arn}, st.Resources)
			}
		}
	}
}
