package s3test

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Permission is one IAM action on one resource, as S3 authorizes a call:
// an object's ARN (arn:aws:s3:::bucket/key) or the bucket's; for
// s3:ListBucket, Prefix is the request's s3:prefix condition key.
type Permission struct {
	Action   string
	Resource string
	Prefix   string
}

// Call is one S3 request a Recorder passed on.
type Call struct {
	// Operation is the API's name for it: PutObject, HeadObject,
	// DeleteObjects, ListObjectsV2, …; "" when the Recorder does not know
	// it (then Permissions is empty, and Recorder.Permissions fails the test).
	Operation string
	// Method, Bucket and Key are the request's (path style); Query its raw query.
	Method, Bucket, Key, Query string
	// Presigned: the signature came in the query (a presigned URL).
	Presigned bool
	// Status is the store's answer (403 for a refused presigned request).
	Status int
	// Permissions are what IAM checks for it: DeleteObjects needs
	// s3:DeleteObject on each key it names, a PutObject with tags
	// s3:PutObjectTagging too, HeadObject s3:GetObject.
	Permissions []Permission
}

// Recorder is a proxy in front of the local S3 server that records every
// request passing through it. A test gives its URL as the endpoint
// (S3_ENDPOINT, or Options.Endpoint) to whatever builds a client, such as
// the server's serve; presigned URLs that client mints point at the
// Recorder too, so the uploads and downloads made with them are recorded
// as well. Path style only.
type Recorder struct {
	// URL is the proxy's address.
	URL string

	t     testing.TB
	mu    sync.Mutex
	calls []Call
}

// NewRecorder starts a recording proxy to the local S3 server until the test ends.
func NewRecorder(t testing.TB) *Recorder {
	t.Helper()
	target, err := url.Parse(Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	r := &Recorder{t: t}
	// The Host header passes unchanged (the signature covers it), and
	// bodies byte for byte.
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{DisableCompression: true}
	proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		c := classify(req, body)
		// Recorded as the answer starts, before the client can have it.
		sw := &statusWriter{ResponseWriter: w, record: func(status int) {
			c.Status = status
			r.mu.Lock()
			r.calls = append(r.calls, c)
			r.mu.Unlock()
		}}
		proxy.ServeHTTP(sw, req)
		sw.WriteHeader(http.StatusOK) // if nothing was written
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Calls returns the calls recorded since the last Reset, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Reset forgets the calls recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}

// Permissions are every permission the recorded calls needed, in order;
// a call the Recorder does not know fails the test.
func (r *Recorder) Permissions() []Permission {
	r.t.Helper()
	var perms []Permission
	for _, c := range r.Calls() {
		if c.Operation == "" {
			r.t.Errorf("s3test.Recorder: a request it does not know: %s /%s/%s?%s", c.Method, c.Bucket, c.Key, c.Query)
		}
		perms = append(perms, c.Permissions...)
	}
	return perms
}

// statusWriter records the call with the status the store answered, once.
type statusWriter struct {
	http.ResponseWriter
	record  func(status int)
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	if code < 200 { // 100 Continue: the answer is still to come
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if w.written {
		return
	}
	w.written = true
	w.record(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Flush passes the proxy's flushes on.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// objectARN and bucketARN are S3's resource names.
func objectARN(bucket, key string) string { return "arn:aws:s3:::" + bucket + "/" + key }
func bucketARN(bucket string) string      { return "arn:aws:s3:::" + bucket }

// classify names a request's operation and the permissions IAM checks for
// it (the Service Authorization Reference's table for Amazon S3).
func classify(req *http.Request, body []byte) Call {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	q := req.URL.Query()
	c := Call{Method: req.Method, Bucket: bucket, Key: key, Query: req.URL.RawQuery, Presigned: q.Has("X-Amz-Signature")}
	op := func(name string, actions ...string) {
		c.Operation = name
		for _, a := range actions {
			res := bucketARN(bucket)
			if key != "" {
				res = objectARN(bucket, key)
			}
			c.Permissions = append(c.Permissions, Permission{Action: a, Resource: res})
		}
	}
	switch {
	case bucket == "":
		if req.Method == http.MethodGet {
			c.Operation = "ListBuckets"
			c.Permissions = []Permission{{Action: "s3:ListAllMyBuckets", Resource: "*"}}
		}
	case key != "":
		classifyObject(req, q, op)
		if c.Operation == "PutObject" && req.Header.Get("X-Amz-Tagging") != "" {
			c.Permissions = append(c.Permissions, Permission{Action: "s3:PutObjectTagging", Resource: objectARN(bucket, key)})
		}
		if src := req.Header.Get("X-Amz-Copy-Source"); src != "" && (c.Operation == "PutObject" || c.Operation == "UploadPart") {
			if c.Operation == "PutObject" {
				c.Operation = "CopyObject"
			} else {
				c.Operation = "UploadPartCopy"
			}
			if s, err := url.PathUnescape(src); err == nil {
				src = s
			}
			src, _, _ = strings.Cut(strings.TrimPrefix(src, "/"), "?")
			c.Permissions = append(c.Permissions, Permission{Action: "s3:GetObject", Resource: "arn:aws:s3:::" + src})
		}
	case req.Method == http.MethodPost && q.Has("delete"):
		c.Operation = "DeleteObjects"
		var d struct {
			Objects []struct{ Key string } `xml:"Object"`
		}
		_ = xml.Unmarshal(body, &d)
		for _, o := range d.Objects {
			c.Permissions = append(c.Permissions, Permission{Action: "s3:DeleteObject", Resource: objectARN(bucket, o.Key)})
		}
	default:
		classifyBucket(req, q, op)
		if c.Operation == "ListObjects" && q.Get("list-type") == "2" {
			c.Operation = "ListObjectsV2"
		}
		if c.Operation == "ListObjects" || c.Operation == "ListObjectsV2" {
			c.Permissions[0].Prefix = q.Get("prefix")
		}
	}
	return c
}

// classifyObject names a request on an object.
func classifyObject(req *http.Request, q url.Values, op func(string, ...string)) {
	m := req.Method
	switch {
	case q.Has("versionId"):
		// Versions: the server never names one.
	case q.Has("tagging"):
		switch m {
		case http.MethodGet:
			op("GetObjectTagging", "s3:GetObjectTagging")
		case http.MethodPut:
			op("PutObjectTagging", "s3:PutObjectTagging")
		case http.MethodDelete:
			op("DeleteObjectTagging", "s3:DeleteObjectTagging")
		}
	case q.Has("uploads") && m == http.MethodPost:
		op("CreateMultipartUpload", "s3:PutObject")
	case q.Has("uploadId"):
		switch m {
		case http.MethodPut:
			op("UploadPart", "s3:PutObject")
		case http.MethodPost:
			op("CompleteMultipartUpload", "s3:PutObject")
		case http.MethodDelete:
			op("AbortMultipartUpload", "s3:AbortMultipartUpload")
		case http.MethodGet:
			op("ListParts", "s3:ListMultipartUploadParts")
		}
	case q.Has("acl"):
		switch m {
		case http.MethodGet:
			op("GetObjectAcl", "s3:GetObjectAcl")
		case http.MethodPut:
			op("PutObjectAcl", "s3:PutObjectAcl")
		}
	case q.Has("attributes") && m == http.MethodGet:
		op("GetObjectAttributes", "s3:GetObjectAttributes")
	case m == http.MethodPut:
		op("PutObject", "s3:PutObject")
	case m == http.MethodGet:
		op("GetObject", "s3:GetObject")
	case m == http.MethodHead:
		op("HeadObject", "s3:GetObject")
	case m == http.MethodDelete:
		op("DeleteObject", "s3:DeleteObject")
	}
}

// classifyBucket names a request on a bucket, other than listing its
// objects and deleting them.
func classifyBucket(req *http.Request, q url.Values, op func(string, ...string)) {
	m := req.Method
	sub := func(name, get, put, del string) {
		switch m {
		case http.MethodGet:
			op("GetBucket"+name, get)
		case http.MethodPut:
			op("PutBucket"+name, put)
		case http.MethodDelete:
			op("DeleteBucket"+name, del)
		}
	}
	switch {
	case q.Has("cors"):
		sub("Cors", "s3:GetBucketCORS", "s3:PutBucketCORS", "s3:PutBucketCORS")
	case q.Has("lifecycle"):
		sub("Lifecycle", "s3:GetLifecycleConfiguration", "s3:PutLifecycleConfiguration", "s3:PutLifecycleConfiguration")
	case q.Has("tagging"):
		sub("Tagging", "s3:GetBucketTagging", "s3:PutBucketTagging", "s3:PutBucketTagging")
	case q.Has("policy"):
		sub("Policy", "s3:GetBucketPolicy", "s3:PutBucketPolicy", "s3:DeleteBucketPolicy")
	case q.Has("versioning") || q.Has("acl") || q.Has("ownershipControls") || q.Has("encryption") || q.Has("publicAccessBlock"):
		// Bucket settings the server never reads or writes: unknown.
	case q.Has("uploads"):
		if m == http.MethodGet {
			op("ListMultipartUploads", "s3:ListBucketMultipartUploads")
		}
	case q.Has("versions"):
		if m == http.MethodGet {
			op("ListObjectVersions", "s3:ListBucketVersions")
		}
	case q.Has("location"):
		if m == http.MethodGet {
			op("GetBucketLocation", "s3:GetBucketLocation")
		}
	case m == http.MethodGet:
		op("ListObjects", "s3:ListBucket")
	case m == http.MethodHead:
		op("HeadBucket", "s3:ListBucket")
	case m == http.MethodPut:
		op("CreateBucket", "s3:CreateBucket")
	case m == http.MethodDelete:
		op("DeleteBucket", "s3:DeleteBucket")
	}
}
