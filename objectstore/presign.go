package objectstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Presigned is a request anyone holding it may make until ExpiresAt, and
// only as signed: the method, the URL, and the headers with exactly these
// values (the store answers 403 otherwise).
type Presigned struct {
	// URL carries the signature in its query.
	URL string
	// Method is PUT for an upload, GET for a download.
	Method string
	// Headers are what the client must send as they are (Content-Type,
	// X-Amz-Tagging); Host and Content-Length, also signed, are left out:
	// HTTP clients set them from the URL and the body, which must be the
	// signed size.
	Headers []Header
	// ExpiresAt is when the store stops taking the URL.
	ExpiresAt time.Time
}

// Header is one header of a presigned request.
type Header struct{ Name, Value string }

// GetOptions are what a presigned download makes the store answer with
// instead of what the object was stored with ("": as stored).
type GetOptions struct {
	// ContentType overrides the object's Content-Type
	// (response-content-type).
	ContentType string
	// Disposition is the response's Content-Disposition, such as
	// Disposition("attachment", name) (response-content-disposition).
	Disposition string
}

// PresignPut is an upload of exactly size bytes of contentType to key,
// tagged with tagging (a URL query such as "fracti-upload=pending"; "": no
// tags), valid for ttl. The store refuses another type, length or tag
// set, a changed URL, and the URL after ttl.
func (c *Client) PresignPut(ctx context.Context, key, contentType string, size int64, tagging string, ttl time.Duration) (Presigned, error) {
	if contentType == "" || size < 0 {
		return Presigned{}, fmt.Errorf("objectstore: presign put %s: a content type and a size are needed", key)
	}
	in := &s3.PutObjectInput{Bucket: &c.bucket, Key: &key, ContentType: &contentType, ContentLength: &size}
	if tagging != "" {
		in.Tagging = &tagging
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	req, err := c.presign.PresignPutObject(ctx, in, s3.WithPresignExpires(ttl))
	if err != nil {
		return Presigned{}, fail("presign put", key, err)
	}
	return presigned(req)
}

// PresignGet is a download of key valid for ttl, answered as o says.
func (c *Client) PresignGet(ctx context.Context, key string, ttl time.Duration, o GetOptions) (Presigned, error) {
	in := &s3.GetObjectInput{Bucket: &c.bucket, Key: &key}
	if o.ContentType != "" {
		in.ResponseContentType = aws.String(o.ContentType)
	}
	if o.Disposition != "" {
		in.ResponseContentDisposition = aws.String(o.Disposition)
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	req, err := c.presign.PresignGetObject(ctx, in, s3.WithPresignExpires(ttl))
	if err != nil {
		return Presigned{}, fail("presign get", key, err)
	}
	return presigned(req)
}

// presigned is the SDK's presigned request as clients take it: the
// headers they must send, sorted, and when it expires (X-Amz-Date plus
// X-Amz-Expires, as the store reckons it).
func presigned(req *v4.PresignedHTTPRequest) (Presigned, error) {
	p := Presigned{URL: req.URL, Method: req.Method}
	for name, values := range req.SignedHeader {
		switch http.CanonicalHeaderKey(name) {
		case "Host", "Content-Length":
			continue
		}
		p.Headers = append(p.Headers, Header{Name: http.CanonicalHeaderKey(name), Value: strings.Join(values, ",")})
	}
	slices.SortFunc(p.Headers, func(a, b Header) int { return strings.Compare(a.Name, b.Name) })
	u, err := url.Parse(req.URL)
	if err != nil {
		return Presigned{}, fmt.Errorf("objectstore: presigned URL: %w", err)
	}
	q := u.Query()
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return Presigned{}, errors.New("objectstore: presigned URL without X-Amz-Date")
	}
	seconds, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil {
		return Presigned{}, errors.New("objectstore: presigned URL without X-Amz-Expires")
	}
	p.ExpiresAt = signed.Add(time.Duration(seconds) * time.Second)
	return p, nil
}
