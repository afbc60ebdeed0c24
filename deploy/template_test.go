package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/fracti/api/commands"
	"github.com/fracti/api/config"
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
	conditions map[string]bool
}

// Made-up account and region of the stacks the tests evaluate.
const (
	testRegion  = "eu-west-1"
	testAccount = "123456789012"
)

func newStack(t testing.TB, template map[string]any, env string) *stack {
	s := &stack{t: t, template: template, params: map[string]string{"Environment": env}, conditions: map[string]bool{}}
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

// ref is what Ref returns: a parameter's value, a table's name, a managed
// policy's ARN.
func (s *stack) ref(name string) string {
	if v, ok := s.params[name]; ok {
		return v
	}
	switch v := map[string]string{"AWS::Region": testRegion, "AWS::AccountId": testAccount, "AWS::Partition": "aws"}[name]; {
	case v != "":
		return v
	case name == "Table":
		return s.resource("Table")["Properties"].(map[string]any)["TableName"].(string)
	case strings.HasSuffix(name, "Policy"):
		return fmt.Sprintf("arn:aws:iam::%s:policy/%s", testAccount, name)
	}
	s.t.Fatalf("Ref %s: not in the template", name)
	return ""
}

// getAtt is what Fn::GetAtt returns for the table's attributes.
func (s *stack) getAtt(resource, attr string) string {
	switch resource + "." + attr {
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
		table := newStack(t, template, env).resource("Table")
		require.Equal(t, want[env], table["DeletionPolicy"], env)
		require.Equal(t, want[env], table["UpdateReplacePolicy"], env)
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
		"TableName":         "FractiTable-prod",
		"TableArn":          arn,
		"StreamArn":         arn + "/stream/2024-01-01T00:00:00.000",
		"ServerPolicyArn":   "arn:aws:iam::123456789012:policy/ServerPolicy",
		"OperatorPolicyArn": "arn:aws:iam::123456789012:policy/OperatorPolicy",
	}, outputs)
}
