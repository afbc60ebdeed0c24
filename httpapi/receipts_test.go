package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// receiptsFixture is an API with a bucket of its own, and a group of Ann
// and Ben with one expense.
type receiptsFixture struct {
	api       *apitest.API
	objects   *objectstore.Client
	ann, ben  *apitest.User
	groupID   string
	expenseID string
}

func newReceiptsFixture(t *testing.T) receiptsFixture {
	objects := s3test.Client(t)
	api := apitest.New(t, apitest.Receipts(objects, receipts.Options{}))
	f := receiptsFixture{api: api, objects: objects, ann: api.User("1", "Ann"), ben: api.User("2", "Ben")}
	f.groupID = f.ann.CreateGroup("Trip")
	f.ben.Join(f.groupID)
	f.expenseID = f.ann.Expense(f.groupID, "30.00", "1", "2")
	return f
}

// picture is a w×h image with a gradient, so that it compresses as a photo.
func picture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	return img
}

func jpegOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, picture(w, h), &jpeg.Options{Quality: 80}))
	return b.Bytes()
}

func pngOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, picture(w, h)))
	return b.Bytes()
}

type upload struct {
	UploadID  string
	URL       string
	Method    string
	Headers   []struct{ Name, Value string }
	ExpiresAt string
}

// startUpload asks for a receipt upload of size bytes of contentType.
func (f receiptsFixture) startUpload(u *apitest.User, contentType string, size int) upload {
	var out struct{ CreateReceiptUpload upload }
	u.Must(&out, `mutation($e: ID!, $t: String!, $n: Int!) { createReceiptUpload(expenseId: $e, contentType: $t, size: $n) {
		uploadId url method headers { name value } expiresAt } }`, "e", f.expenseID, "t", contentType, "n", size)
	return out.CreateReceiptUpload
}

// put sends body to the presigned upload as a client would.
func put(t *testing.T, up upload, body []byte) int {
	req, err := http.NewRequest(up.Method, up.URL, bytes.NewReader(body))
	require.NoError(t, err)
	for _, h := range up.Headers {
		req.Header.Set(h.Name, h.Value)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

const receiptFields = `id contentType size width height pages uploadedBy { userId } uploadedAt url thumbnailUrl urlsExpireAt`

type receiptView struct {
	ID, ContentType          string
	Size                     int
	Width, Height, Pages     *int
	UploadedBy               struct{ UserID string }
	URL, ThumbnailURL        *string
	UrlsExpireAt, UploadedAt *string
}

func (f receiptsFixture) confirm(u *apitest.User, uploadID string) apitest.Result {
	return u.Do(`mutation($e: ID!, $u: ID!) { confirmReceipt(expenseId: $e, uploadId: $u) { `+receiptFields+` } }`, "e", f.expenseID, "u", uploadID)
}

// attach uploads and confirms a receipt.
func (f receiptsFixture) attach(t *testing.T, u *apitest.User, contentType string, body []byte) receiptView {
	up := f.startUpload(u, contentType, len(body))
	require.Equal(t, http.StatusOK, put(t, up, body))
	res := f.confirm(u, up.UploadID)
	require.Empty(t, res.Errors)
	var out struct{ ConfirmReceipt receiptView }
	require.NoError(t, json.Unmarshal(res.Data, &out))
	return out.ConfirmReceipt
}

func download(t *testing.T, url string) (int, string, []byte) {
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

func TestReceiptUploadConfirmDownload(t *testing.T) {
	f := newReceiptsFixture(t)
	photo := jpegOf(t, 1600, 1200)
	r := f.attach(t, f.ben, "image/jpeg", photo)
	require.Equal(t, f.expenseID, strings.Split(r.ID, ":")[0])
	require.Equal(t, "image/jpeg", r.ContentType)
	require.Equal(t, len(photo), r.Size)
	require.Equal(t, 1600, *r.Width)
	require.Equal(t, 1200, *r.Height)
	require.Nil(t, r.Pages)
	require.Equal(t, "2", r.UploadedBy.UserID)

	// The download is the very bytes, served as their type.
	status, typ, body := download(t, *r.URL)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "image/jpeg", typ)
	require.Equal(t, photo, body)
	// The thumbnail: a JPEG whose longest side is 320 px, read by Go's own
	// decoder.
	status, _, body = download(t, *r.ThumbnailURL)
	require.Equal(t, http.StatusOK, status)
	thumb, err := jpeg.DecodeConfig(bytes.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, [2]int{320, 240}, [2]int{thumb.Width, thumb.Height})
	// A tampered download is refused by the store itself.
	status, _, _ = download(t, strings.Replace(*r.URL, "X-Amz-Signature=", "X-Amz-Signature=0", 1))
	require.Equal(t, http.StatusForbidden, status)

	// The expense lists it; its history and the group's activity record it.
	var read struct {
		Expense struct {
			Receipts []receiptView
			History  []struct {
				Changes []struct{ Field string }
			}
		}
		Group struct {
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	f.ann.Must(&read, `query($e: ID!, $g: ID!) { expense(id: $e) { receipts { `+receiptFields+` } history { changes { field } } }
		group(id: $g) { activity(first: 1) { nodes { type } } } }`, "e", f.expenseID, "g", f.groupID)
	require.Len(t, read.Expense.Receipts, 1)
	require.NotNil(t, read.Expense.Receipts[0].URL, "minted for every member")
	require.Equal(t, "receipts", read.Expense.History[0].Changes[0].Field)
	require.Equal(t, "RECEIPT_ADDED", read.Group.Activity.Nodes[0].Type)

	// Confirming again answers the same receipt.
	var again struct{ ConfirmReceipt receiptView }
	res := f.confirm(f.ben, strings.Split(r.ID, ":")[1])
	require.Empty(t, res.Errors)
	require.NoError(t, json.Unmarshal(res.Data, &again))
	require.Equal(t, r.ID, again.ConfirmReceipt.ID)

	// Deleting it deletes its objects.
	f.ann.Must(nil, `mutation($id: ID!) { deleteReceipt(id: $id) }`, "id", r.ID)
	ctx := context.Background()
	_, err = f.objects.Head(ctx, store.ReceiptObjectKey(f.groupID, f.expenseID, strings.Split(r.ID, ":")[1]))
	require.True(t, objectstore.IsNotFound(err), "%v", err)
	_, err = f.objects.Head(ctx, store.ReceiptThumbnailKey(f.groupID, f.expenseID, strings.Split(r.ID, ":")[1]))
	require.True(t, objectstore.IsNotFound(err), "%v", err)
}

// What a group outside sees: nothing, and no URL to make one.
func TestReceiptsArePrivate(t *testing.T) {
	f := newReceiptsFixture(t)
	r := f.attach(t, f.ann, "image/png", pngOf(t, 200, 100))
	require.Equal(t, 200, *r.Width)

	stranger := f.api.User("9", "Eve")
	stranger.Fails("NOT_FOUND", `mutation($e: ID!) { createReceiptUpload(expenseId: $e, contentType: "image/jpeg", size: 100) { url } }`, "e", f.expenseID)
	var seen struct {
		Expense *struct{ Receipts []receiptView }
	}
	stranger.Must(&seen, `query($e: ID!) { expense(id: $e) { receipts { url } } }`, "e", f.expenseID)
	require.Nil(t, seen.Expense)

	// Cleo joins, gets URLs, and leaves: they stop being minted for her.
	cleo := f.api.User("3", "Cleo")
	cleo.Join(f.groupID)
	cleo.Must(&seen, `query($e: ID!) { expense(id: $e) { receipts { url } } }`, "e", f.expenseID)
	require.NotNil(t, seen.Expense.Receipts[0].URL)
	cleo.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", f.groupID)
	seen.Expense = nil
	cleo.Must(&seen, `query($e: ID!) { expense(id: $e) { receipts { url } } }`, "e", f.expenseID)
	require.Nil(t, seen.Expense)
	cleo.Fails("NOT_FOUND", `mutation($id: ID!) { deleteReceipt(id: $id) }`, "id", r.ID)
}

func TestReceiptRefusals(t *testing.T) {
	f := newReceiptsFixture(t)
	tooBig := 10<<20 + 1
	for _, tc := range []struct {
		name, contentType string
		size              int
		field             string
	}{
		{"zero bytes", "image/jpeg", 0, "size"},
		{"negative", "image/jpeg", -5, "size"},
		{"10 MB + 1", "application/pdf", tooBig, "size"},
		{"SVG (scripts)", "image/svg+xml", 100, "contentType"},
		{"HTML", "text/html", 100, "contentType"},
		{"GIF", "image/gif", 100, "contentType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := f.ann.Fails("BAD_USER_INPUT", `mutation($e: ID!, $t: String!, $n: Int!) { createReceiptUpload(expenseId: $e, contentType: $t, size: $n) { url } }`,
				"e", f.expenseID, "t", tc.contentType, "n", tc.size)
			require.Equal(t, tc.field, res.Field())
		})
	}

	photo := jpegOf(t, 64, 48)
	bomb := pngBombHeader()
	for _, tc := range []struct {
		name, announced string
		body            []byte
	}{
		{"a PNG announced as JPEG", "image/jpeg", pngOf(t, 32, 32)},
		{"a truncated JPEG", "image/jpeg", photo[:len(photo)/2]},
		{"a JPEG with a page of HTML after it", "image/jpeg", append(append([]byte{}, photo...), []byte("<html><script>alert(1)</script></html>")...)},
		{"a 50,000 × 50,000 PNG header", "image/png", bomb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := f.startUpload(f.ann, tc.announced, len(tc.body))
			require.Equal(t, http.StatusOK, put(t, up, tc.body))
			res := f.confirm(f.ann, up.UploadID)
			require.Equal(t, "BAD_USER_INPUT", res.Code(), "%+v", res.Errors)
			require.Equal(t, "uploadId", res.Field())
			_, err := f.objects.Head(context.Background(), store.ReceiptObjectKey(f.groupID, f.expenseID, up.UploadID))
			require.True(t, objectstore.IsNotFound(err), "a refused object is deleted: %v", err)
			// Nor can it be confirmed after.
			require.Equal(t, "BAD_USER_INPUT", f.confirm(f.ann, up.UploadID).Code())
		})
	}

	// Larger than announced, written behind the presigned URL's back.
	up := f.startUpload(f.ann, "image/jpeg", len(photo))
	key := store.ReceiptObjectKey(f.groupID, f.expenseID, up.UploadID)
	require.NoError(t, f.objects.Put(context.Background(), key, "image/jpeg", append(append([]byte{}, photo...), 0, 0)))
	res := f.confirm(f.ann, up.UploadID)
	require.Equal(t, "BAD_USER_INPUT", res.Code())
	require.Contains(t, res.Errors[0].Message, "were announced")
	_, err := f.objects.Head(context.Background(), key)
	require.True(t, objectstore.IsNotFound(err), "deleted: %v", err)

	// The store itself refuses a body other than announced (403), and
	// nothing uploaded is BAD_USER_INPUT with the upload still pending.
	up = f.startUpload(f.ann, "image/jpeg", len(photo))
	require.Equal(t, http.StatusForbidden, put(t, up, append(append([]byte{}, photo...), 0)))
	require.Equal(t, "BAD_USER_INPUT", f.confirm(f.ann, up.UploadID).Code())
	require.Equal(t, http.StatusOK, put(t, up, photo))
	require.Empty(t, f.confirm(f.ann, up.UploadID).Errors)
}

// pngBombHeader is a valid PNG signature and IHDR of 50,000 × 50,000
// pixels with a little IDAT: decoding it would take 10 GB.
func pngBombHeader() []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	_ = enc.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	out := b.Bytes()
	// IHDR's width and height are bytes 16..23; its CRC follows the chunk.
	put32 := func(at int, v uint32) {
		out[at], out[at+1], out[at+2], out[at+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	put32(16, 50000)
	put32(20, 50000)
	put32(29, crc32.ChecksumIEEE(out[12:29]))
	return out
}

func TestReceiptsWithoutStorage(t *testing.T) {
	api := apitest.New(t)
	ann := api.User("1", "Ann")
	g := ann.CreateGroup("Trip")
	e := ann.Expense(g, "10.00", "1")
	res := ann.Fails("UNAVAILABLE", `mutation($e: ID!) { createReceiptUpload(expenseId: $e, contentType: "image/jpeg", size: 100) { url } }`, "e", e)
	require.Equal(t, "STORAGE_NOT_CONFIGURED", res.Errors[0].Extensions["reason"])
	var read struct {
		Expense struct{ Receipts []receiptView }
	}
	ann.Must(&read, `query($e: ID!) { expense(id: $e) { receipts { id } } }`, "e", e)
	require.Empty(t, read.Expense.Receipts, "everything else works")
}

// The zip export holds the JSON, the CSV and every receipt, byte for byte.
func TestZipExport(t *testing.T) {
	f := newReceiptsFixture(t)
	photo := jpegOf(t, 300, 200)
	r := f.attach(t, f.ann, "image/jpeg", photo)
	res := f.ann.Get("/export/groups/" + f.groupID + ".zip")
	require.Equal(t, http.StatusOK, res.Code)
	require.Equal(t, "application/zip", res.Header().Get("Content-Type"))
	body := res.Body.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, zf := range zr.File {
		rc, err := zf.Open()
		require.NoError(t, err)
		files[zf.Name], err = io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
	}
	receiptID := strings.Split(r.ID, ":")[1]
	require.Equal(t, photo, files["receipts/"+f.expenseID+"/"+receiptID+".jpg"])
	var doc struct {
		Expenses []struct {
			Receipts []struct {
				Key, File, ContentType string
				Size                   int
			}
		}
	}
	var jsonName string
	for name := range files {
		if strings.HasSuffix(name, ".json") {
			jsonName = name
		}
	}
	require.NoError(t, json.Unmarshal(files[jsonName], &doc))
	require.Len(t, doc.Expenses[0].Receipts, 1)
	require.Equal(t, store.ReceiptObjectKey(f.groupID, f.expenseID, receiptID), doc.Expenses[0].Receipts[0].Key)
	require.Equal(t, len(photo), doc.Expenses[0].Receipts[0].Size)
	require.Len(t, files, 3, "the JSON, the CSV and the receipt")
}

// A placeholder's picture: uploaded, re-encoded square, minted for members.
func TestPlaceholderAvatar(t *testing.T) {
	f := newReceiptsFixture(t)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	f.ann.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Cleo") { userId } }`, "g", f.groupID)
	pic := pngOf(t, 900, 600)
	var up struct{ CreateAvatarUpload upload }
	f.ann.Must(&up, `mutation($g: ID!, $m: ID, $n: Int!) { createAvatarUpload(groupId: $g, memberId: $m, contentType: "image/png", size: $n) {
		uploadId url method headers { name value } expiresAt } }`, "g", f.groupID, "m", ph.AddPlaceholderMember.UserID, "n", len(pic))
	require.Equal(t, http.StatusOK, put(t, up.CreateAvatarUpload, pic))
	var out struct {
		ConfirmAvatar struct {
			Members struct {
				Nodes []struct {
					UserID    string
					AvatarURL *string
				}
			}
		}
	}
	f.ann.Must(&out, `mutation($g: ID!, $u: ID!) { confirmAvatar(groupId: $g, uploadId: $u) { members { nodes { userId avatarUrl } } } }`,
		"g", f.groupID, "u", up.CreateAvatarUpload.UploadID)
	var url string
	for _, m := range out.ConfirmAvatar.Members.Nodes {
		if m.UserID == ph.AddPlaceholderMember.UserID {
			require.NotNil(t, m.AvatarURL)
			url = *m.AvatarURL
		}
	}
	status, typ, body := download(t, url)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "image/jpeg", typ)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, [2]int{512, 512}, [2]int{cfg.Width, cfg.Height})
}

// Real files from phones and PDF writers (media/testdata): a PDF's page
// count, a HEIC's size without a thumbnail, a phone's rotated JPEG as
// displayed.
func TestReceiptsOfRealFiles(t *testing.T) {
	f := newReceiptsFixture(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "media", "testdata", name))
		require.NoError(t, err)
		return b
	}
	pdf := f.attach(t, f.ann, "application/pdf", read("imagemagick-6-pages.pdf"))
	require.Equal(t, 6, *pdf.Pages)
	require.Nil(t, pdf.Width)
	require.Nil(t, pdf.ThumbnailURL, "no thumbnail for a PDF")
	status, typ, _ := download(t, *pdf.URL)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "application/pdf", typ)

	heic := f.attach(t, f.ann, "image/heic", read("iphone7-IMG_7702_small.heic"))
	require.NotNil(t, heic.Width)
	require.Nil(t, heic.ThumbnailURL, "HEVC is not decoded")

	rotated := f.attach(t, f.ann, "image/jpeg", read("samsung-galaxy-s-orientation6.jpg"))
	require.Less(t, *rotated.Width, *rotated.Height, "orientation 6: portrait as displayed")
	_, _, body := download(t, *rotated.ThumbnailURL)
	thumb, err := jpeg.DecodeConfig(bytes.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, 320, thumb.Height)
	require.Less(t, thumb.Width, thumb.Height)
}

// After a deleted group's 30 days, and a deleted expense's, the purge
// leaves nothing of theirs in the bucket.
func TestPurgeLeavesNothingInTheBucket(t *testing.T) {
	f := newReceiptsFixture(t)
	ctx := context.Background()
	other := f.ann.Expense(f.groupID, "8.00", "1", "2")
	f.attach(t, f.ann, "image/png", pngOf(t, 64, 64))
	f.attach(t, f.ann, "image/jpeg", jpegOf(t, 64, 64))
	f.expenseID = other
	f.attach(t, f.ann, "image/jpeg", jpegOf(t, 80, 60))
	f.ann.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", other)
	count := func() int {
		n := 0
		for _, err := range f.objects.List(ctx, "") {
			require.NoError(t, err)
			n++
		}
		return n
	}
	require.Equal(t, 6, count(), "three receipts, three thumbnails")

	// The store and the service as they will be, d from now.
	later := func(d time.Duration) (*store.Store, *receipts.Service) {
		s := store.New(dynamotest.Client(t), f.api.Store.Table(), store.Options{Now: func() time.Time { return time.Now().Add(d) }})
		return s, receipts.New(s, f.objects, receipts.Options{})
	}
	_, svc := later(store.RestoreWindow + time.Hour)
	n, err := svc.PurgeDeletedReceipts(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 4, count(), "the deleted expense's receipt and thumbnail went")

	f.ann.Must(nil, `mutation($g: ID!) { deleteGroup(id: $g) }`, "g", f.groupID)
	s, svc := later(store.GroupRestoreWindow + time.Hour)
	run, err := s.PurgeDeletedGroupsWith(ctx, svc.PurgeTarget())
	require.NoError(t, err)
	require.Equal(t, 1, run.Groups)
	require.Zero(t, count(), "nothing is left in the bucket")
}
