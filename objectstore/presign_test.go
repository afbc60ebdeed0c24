package objectstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// request is one request for testdata/fetch.mjs to make with Node's fetch.
type request struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body,omitempty"` // base64 in JSON
}

// answer is what the store answered.
type answer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
	Error   string            `json:"error"`
}

// code is the S3 error code of a refusal.
func (a answer) code() string {
	_, rest, _ := strings.Cut(string(a.Body), "<Code>")
	code, _, _ := strings.Cut(rest, "</Code>")
	return code
}

// fetch makes the requests in order with Node's fetch, as a browser or the
// Mini App does (it sets Content-Length from the body itself).
func fetch(t *testing.T, reqs ...request) []answer {
	t.Helper()
	in, err := json.Marshal(reqs)
	require.NoError(t, err)
	cmd := exec.Command("node", "testdata/fetch.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	var answers []answer
	require.NoError(t, json.Unmarshal(out, &answers))
	require.Len(t, answers, len(reqs))
	for _, a := range answers {
		require.Empty(t, a.Error, "fetch failed")
	}
	return answers
}

// send is the presigned request with the headers it names and body.
func send(p objectstore.Presigned, body []byte) request {
	r := request{URL: p.URL, Method: p.Method, Headers: map[string]string{}, Body: body}
	for _, h := range p.Headers {
		r.Headers[h.Name] = h.Value
	}
	return r
}

// with is r with header name set to value ("": removed).
func (r request) with(name, value string) request {
	h := map[string]string{}
	for k, v := range r.Headers {
		if k != name {
			h[k] = v
		}
	}
	if value != "" {
		h[name] = value
	}
	r.Headers = h
	return r
}

// tampered is u with the last character of its signature changed.
func tampered(t *testing.T, u string) string {
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	q := parsed.Query()
	sig := q.Get("X-Amz-Signature")
	require.Len(t, sig, 64)
	last := "0"
	if sig[63] == '0' {
		last = "1"
	}
	q.Set("X-Amz-Signature", sig[:63]+last)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// expire waits until the store no longer takes p: past ExpiresAt by a
// second, since the store counts whole seconds.
func expire(p objectstore.Presigned) {
	for time.Now().Before(p.ExpiresAt.Add(time.Second)) {
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPresignedPut is the proof: an upload with Node's fetch to the
// presigned URL, with the headers it returns, succeeds and is stored as
// signed (type, size, the pending tag); the store itself refuses, with
// 403 and nothing written, a body of another content type, another
// length, the tag left out or changed, a tampered signature, and the URL
// once it has expired.
func TestPresignedPut(t *testing.T) {
	ctx := context.Background()
	c := s3test.Client(t)
	body := bytes.Repeat([]byte{0xff, 0xd8, 0xff, 0xe0}, 2500)
	const key = "receipts/g1/e1/up1"
	p, err := c.PresignPut(ctx, key, "image/jpeg", int64(len(body)), "fracti-upload=pending", time.Hour)
	require.NoError(t, err)
	assert.Equal(t, "PUT", p.Method)
	assert.Equal(t, []objectstore.Header{{Name: "Content-Type", Value: "image/jpeg"}, {Name: "X-Amz-Tagging", Value: "fracti-upload=pending"}}, p.Headers)
	assert.WithinDuration(t, time.Now().Add(time.Hour), p.ExpiresAt, time.Minute)
	assert.Contains(t, p.URL, "/"+c.Bucket()+"/"+key+"?", "path style")
	assert.NotContains(t, p.URL, "x-amz-sdk-checksum-algorithm", "no checksum a browser would have to send")
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	for name := range u.Query() {
		assert.NotEqual(t, "x-amz-tagging", strings.ToLower(name), "the tags are a signed header, not in the query")
	}
	assert.NotContains(t, p.URL, "fracti-upload")

	ok := send(p, body)
	refusals := []struct {
		name string
		req  request
		code string
	}{
		{"another content type", ok.with("Content-Type", "image/png"), "SignatureDoesNotMatch"},
		{"a byte more", send(p, append(bytes.Clone(body), 0)), "SignatureDoesNotMatch"},
		{"a byte less", send(p, body[1:]), "SignatureDoesNotMatch"},
		{"no tag", ok.with("X-Amz-Tagging", ""), "SignatureDoesNotMatch"},
		{"another tag", ok.with("X-Amz-Tagging", "fracti-upload=done"), "SignatureDoesNotMatch"},
		{"a tampered signature", func() request { r := ok; r.URL = tampered(t, r.URL); return r }(), "SignatureDoesNotMatch"},
		{"another key", func() request { r := ok; r.URL = strings.Replace(r.URL, "/up1?", "/up2?", 1); return r }(), "SignatureDoesNotMatch"},
	}
	var reqs []request
	for _, r := range refusals {
		reqs = append(reqs, r.req)
	}
	for i, a := range fetch(t, reqs...) {
		assert.Equal(t, 403, a.Status, refusals[i].name)
		assert.Equal(t, refusals[i].code, a.code(), refusals[i].name)
	}
	for _, k := range []string{key, "receipts/g1/e1/up2"} {
		_, err = c.Head(ctx, k)
		require.ErrorIs(t, err, objectstore.ErrNotFound, "a refused upload writes nothing")
	}

	a := fetch(t, ok)[0]
	require.Equal(t, 200, a.Status, string(a.Body))
	o, err := c.Head(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int64(len(body)), o.Size)
	assert.Equal(t, "image/jpeg", o.ContentType)
	assert.Equal(t, 1, o.TagCount, "the pending tag")
	got, err := c.Read(ctx, key, 10<<20)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(body, got))

	// Expired: a URL good for a second, used once it has passed.
	short, err := c.PresignPut(ctx, "receipts/g1/e1/up3", "image/png", 3, "fracti-upload=pending", time.Second)
	require.NoError(t, err)
	expire(short)
	a = fetch(t, send(short, []byte("png")))[0]
	assert.Equal(t, 403, a.Status)
	assert.Equal(t, "AccessDenied", a.code())
	assert.Contains(t, string(a.Body), "expired")
	_, err = c.Head(ctx, "receipts/g1/e1/up3")
	require.ErrorIs(t, err, objectstore.ErrNotFound)
}

// TestPresignedGet: a presigned download with Node's fetch gives the bytes
// with the content type and disposition it forces; a tampered one, one for
// another key, and an expired one are refused with 403.
func TestPresignedGet(t *testing.T) {
	ctx := context.Background()
	c := s3test.Client(t)
	const key = "receipts/g1/e1/up1"
	body := []byte("%PDF-1.7 a receipt")
	require.NoError(t, c.Put(ctx, key, "application/octet-stream", body))

	disposition := objectstore.Disposition("attachment", `Чек "ужин".pdf`)
	assert.Equal(t, `attachment; filename*=utf-8''%D0%A7%D0%B5%D0%BA%20%22%D1%83%D0%B6%D0%B8%D0%BD%22.pdf`, disposition)
	p, err := c.PresignGet(ctx, key, time.Hour, objectstore.GetOptions{ContentType: "application/pdf", Disposition: disposition})
	require.NoError(t, err)
	assert.Equal(t, "GET", p.Method)
	assert.Empty(t, p.Headers, "a download needs no header")
	plain, err := c.PresignGet(ctx, key, time.Hour, objectstore.GetOptions{})
	require.NoError(t, err)
	short, err := c.PresignGet(ctx, key, time.Second, objectstore.GetOptions{})
	require.NoError(t, err)
	expire(short)

	answers := fetch(t, send(p, nil), send(plain, nil),
		request{URL: tampered(t, p.URL), Method: "GET"},
		request{URL: strings.Replace(p.URL, "/up1?", "/up2?", 1), Method: "GET"},
		send(short, nil))
	forced, asStored, tamperedGet, otherKey, expired := answers[0], answers[1], answers[2], answers[3], answers[4]
	require.Equal(t, 200, forced.Status)
	assert.Equal(t, body, forced.Body)
	assert.Equal(t, "application/pdf", forced.Headers["content-type"])
	assert.Equal(t, disposition, forced.Headers["content-disposition"])
	require.Equal(t, 200, asStored.Status)
	assert.Equal(t, "application/octet-stream", asStored.Headers["content-type"])
	assert.Empty(t, asStored.Headers["content-disposition"])
	for name, a := range map[string]answer{"tampered": tamperedGet, "another key": otherKey, "expired": expired} {
		assert.Equal(t, 403, a.Status, name)
		assert.NotEqual(t, body, a.Body, name)
	}
	assert.Equal(t, "SignatureDoesNotMatch", tamperedGet.code())
	assert.Equal(t, "AccessDenied", expired.code())
}

// TestPresignRefusesBadInput: an upload needs a type and a size.
func TestPresignRefusesBadInput(t *testing.T) {
	c := deadClient(t, "http://"+refusedAddress(t))
	_, err := c.PresignPut(context.Background(), "k", "", 1, "", time.Minute)
	require.Error(t, err)
	_, err = c.PresignPut(context.Background(), "k", "image/png", -1, "", time.Minute)
	require.Error(t, err)
}
