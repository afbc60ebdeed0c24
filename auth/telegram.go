package auth

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/freetext"
)

// DefaultMaxAge is how old init data may be when no maximum age is configured.
const DefaultMaxAge = 24 * time.Hour

const (
	// maxClockSkew tolerates a server clock slightly behind Telegram's.
	maxClockSkew = 30 * time.Second
	// maxInitDataLen bounds the work an unauthenticated caller can cause;
	// real init data is well under 2 KiB.
	maxInitDataLen = 16 << 10
	// hashHexLen is the length of a hex-encoded HMAC-SHA256.
	hashHexLen = 2 * sha256.Size
)

// Sentinel errors of ValidateInitData; returned errors wrap them with details.
var (
	// ErrInitDataMalformed means the init data is not a well-formed, signed query string.
	ErrInitDataMalformed = errors.New("init data is malformed")
	// ErrInitDataSignature means the hash does not match the data and the bot token.
	ErrInitDataSignature = errors.New("init data signature is invalid (was it signed with this bot's token?)")
	// ErrInitDataExpired means auth_date is older than the allowed maximum age.
	ErrInitDataExpired = errors.New("init data expired")
	// ErrInitDataFuture means auth_date lies further in the future than clock skew explains.
	ErrInitDataFuture = errors.New("init data auth_date is in the future")
	// ErrInitDataNoUser means the init data does not name a user with a valid id.
	ErrInitDataNoUser = errors.New("init data has no user")
	// ErrTelegramNotConfigured means the server has neither a bot token nor a
	// bot id to check init data with.
	ErrTelegramNotConfigured = errors.New("Telegram sign-in is not configured on this server")
)

// The Ed25519 keys with which Telegram signs init data's signature field
// (core.telegram.org/bots/webapps, "Validating data for Third-Party Use").
var (
	// TelegramPublicKey is the key of Telegram's production environment.
	TelegramPublicKey = mustPublicKey("e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d")
	// TelegramTestPublicKey is the key of Telegram's test environment.
	TelegramTestPublicKey = mustPublicKey("40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec")
)

// signatureLen is the length of a base64url (unpadded) Ed25519 signature.
var signatureLen = base64.RawURLEncoding.EncodedLen(ed25519.SignatureSize)

// TelegramUser is the user object Telegram puts in the init data's user field.
type TelegramUser struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	Username     string `json:"username"`
	PhotoURL     string `json:"photo_url"`
	LanguageCode string `json:"language_code"`
}

// DisplayName returns the first and last name joined by a space, cleaned
// of control characters and bidirectional overrides (which Telegram allows
// in names, and which would garble other members' screens); "" when nothing
// visible is left.
func (u TelegramUser) DisplayName() string {
	first := freetext.Sanitize(u.FirstName)
	last := freetext.Sanitize(u.LastName)
	if first != "" && last != "" {
		return first + " " + last
	}
	return first + last
}

// InitData is the validated content of Telegram Mini App init data.
type InitData struct {
	User         TelegramUser
	AuthDate     time.Time
	QueryID      string
	ChatInstance string
	ChatType     string
	StartParam   string
}

// ValidateInitData checks raw init data against botToken as Telegram specifies
// (the hash field: an HMAC-SHA256 keyed with the token) and returns its
// content; maxAge <= 0 means DefaultMaxAge.
func ValidateInitData(raw, botToken string, maxAge time.Duration, now time.Time) (InitData, error) {
	// An empty token would make the secret key public, so anyone could sign.
	if botToken == "" {
		return InitData{}, ErrTelegramNotConfigured
	}
	return validate(raw, maxAge, now, func(fields map[string]string) error { return checkHash(fields, botToken) })
}

// ValidateSignedInitData checks raw init data's signature field, Telegram's
// Ed25519 signature made with key for the bot botID ("Validating data for
// Third-Party Use"), and returns its content; maxAge <= 0 means
// DefaultMaxAge. It needs no secret: the hash field, which only the bot
// token can check, is ignored.
func ValidateSignedInitData(raw string, botID int64, key ed25519.PublicKey, maxAge time.Duration, now time.Time) (InitData, error) {
	if botID <= 0 || len(key) != ed25519.PublicKeySize {
		return InitData{}, ErrTelegramNotConfigured
	}
	return validate(raw, maxAge, now, func(fields map[string]string) error { return checkSignature(fields, botID, key) })
}

// validate parses raw, checks it with check (which removes the fields its
// signature does not cover), and reads its content.
func validate(raw string, maxAge time.Duration, now time.Time, check func(fields map[string]string) error) (InitData, error) {
	fields, err := parseInitData(raw)
	if err == nil {
		err = check(fields)
	}
	if err != nil {
		return InitData{}, err
	}
	return initDataContent(fields, maxAge, now)
}

// checkHash removes the hash from fields and checks it against the rest
// (signature included) with botToken.
func checkHash(fields map[string]string, botToken string) error {
	gotHash, err := takeHash(fields)
	if err != nil {
		return err
	}
	if !hmac.Equal(gotHash, initDataMAC(fields, botToken)) {
		return ErrInitDataSignature
	}
	return nil
}

// checkSignature removes the signature and the hash from fields and checks
// the signature against the rest, for the bot botID, with key.
func checkSignature(fields map[string]string, botID int64, key ed25519.PublicKey) error {
	sig, err := takeSignature(fields)
	if err != nil {
		return err
	}
	if !ed25519.Verify(key, signedMessage(botID, fields), sig) {
		return &authError{ErrInitDataSignature, "init data signature is invalid (was it signed by Telegram for this server's bot?)"}
	}
	return nil
}

// initDataContent checks the auth_date of fields known to come from Telegram
// (their signature checked) against maxAge (<= 0: DefaultMaxAge) at now,
// and reads the user and the launch's details.
func initDataContent(fields map[string]string, maxAge time.Duration, now time.Time) (InitData, error) {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	authDate, err := parseAuthDate(fields)
	if err != nil {
		return InitData{}, err
	}
	if authDate.After(now.Add(maxClockSkew)) {
		return InitData{}, fmt.Errorf("%w (is the server clock right?)", ErrInitDataFuture)
	}
	if now.Sub(authDate) > maxAge {
		return InitData{}, fmt.Errorf("%w: auth_date is older than %s", ErrInitDataExpired, maxAge)
	}

	rawUser, ok := fields["user"]
	if !ok {
		return InitData{}, fmt.Errorf("%w: the user field is missing", ErrInitDataNoUser)
	}
	var user TelegramUser
	if err := json.Unmarshal([]byte(rawUser), &user); err != nil {
		return InitData{}, fmt.Errorf("%w: user is not a valid JSON object", ErrInitDataMalformed)
	}
	if user.ID <= 0 {
		return InitData{}, fmt.Errorf("%w: user.id is missing", ErrInitDataNoUser)
	}

	return InitData{
		User:         user,
		AuthDate:     authDate,
		QueryID:      fields["query_id"],
		ChatInstance: fields["chat_instance"],
		ChatType:     fields["chat_type"],
		StartParam:   fields["start_param"],
	}, nil
}

// SignInitData adds a correct hash for botToken to fields and returns the
// encoded query string; only the first value of each key is used.
func SignInitData(fields url.Values, botToken string) string {
	flat := make(map[string]string, len(fields))
	for k, vs := range fields {
		if k == "hash" || len(vs) == 0 {
			continue
		}
		flat[k] = vs[0]
	}
	out := make(url.Values, len(flat)+1)
	for k, v := range flat {
		out.Set(k, v)
	}
	out.Set("hash", hex.EncodeToString(initDataMAC(flat, botToken)))
	return out.Encode()
}

// parseInitData splits raw into its decoded fields, rejecting anything that
// could make the data-check-string ambiguous.
func parseInitData(raw string) (map[string]string, error) {
	if raw == "" {
		return nil, fmt.Errorf("%w: it is empty (send Telegram.WebApp.initData unchanged)", ErrInitDataMalformed)
	}
	if len(raw) > maxInitDataLen {
		return nil, fmt.Errorf("%w: it is longer than %d bytes", ErrInitDataMalformed, maxInitDataLen)
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: not a URL query string: %v", ErrInitDataMalformed, err)
	}
	fields := make(map[string]string, len(values))
	for k, vs := range values {
		switch {
		case len(vs) > 1:
			return nil, fmt.Errorf("%w: field %s appears more than once", ErrInitDataMalformed, quoteShort(k))
		case k == "":
			return nil, fmt.Errorf("%w: a field has an empty name", ErrInitDataMalformed)
		// A line break or "=" inside a field would let two different field
		// sets produce the same data-check-string; Telegram never sends them.
		case strings.ContainsAny(k, "=\n"), strings.Contains(vs[0], "\n"):
			return nil, fmt.Errorf("%w: field %s contains a line break or \"=\"", ErrInitDataMalformed, quoteShort(k))
		}
		fields[k] = vs[0]
	}
	return fields, nil
}

// takeHash removes the hash from fields and returns it decoded; the rest
// (signature included) is what the hash covers.
func takeHash(fields map[string]string) ([]byte, error) {
	hexHash, ok := fields["hash"]
	if !ok || hexHash == "" {
		return nil, fmt.Errorf("%w: hash is missing", ErrInitDataMalformed)
	}
	delete(fields, "hash")
	if !isLowerHex(hexHash, hashHexLen) {
		return nil, fmt.Errorf("%w: hash must be %d lowercase hex characters", ErrInitDataMalformed, hashHexLen)
	}
	hash, err := hex.DecodeString(hexHash)
	if err != nil { // unreachable after isLowerHex, kept as a guard
		return nil, fmt.Errorf("%w: hash is not hex", ErrInitDataMalformed)
	}
	return hash, nil
}

// takeSignature removes the signature and the hash from fields and returns
// the signature decoded; the rest is what the signature covers.
func takeSignature(fields map[string]string) ([]byte, error) {
	encoded, ok := fields["signature"]
	if !ok || encoded == "" {
		return nil, fmt.Errorf("%w: signature is missing (this server checks Telegram's Ed25519 signature, "+
			"which Telegram clients send since Bot API 8.0)", ErrInitDataMalformed)
	}
	delete(fields, "signature")
	delete(fields, "hash")
	sig, err := base64.RawURLEncoding.Strict().DecodeString(encoded)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: signature must be %d base64url characters without padding", ErrInitDataMalformed, signatureLen)
	}
	return sig, nil
}

// parseAuthDate reads the signed auth_date field.
func parseAuthDate(fields map[string]string) (time.Time, error) {
	v, ok := fields["auth_date"]
	if !ok {
		return time.Time{}, fmt.Errorf("%w: auth_date is missing", ErrInitDataMalformed)
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}, fmt.Errorf("%w: auth_date must be a unix time in seconds", ErrInitDataMalformed)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// dataCheckString is fields as Telegram signs them: key=value sorted by key,
// one a line.
func dataCheckString(fields map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(fields)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(fields[k])
	}
	return b.String()
}

// initDataMAC computes Telegram's init data hash over fields (which must not contain hash).
func initDataMAC(fields map[string]string, botToken string) []byte {
	secret := hmacSHA256([]byte("WebAppData"), []byte(botToken))
	return hmacSHA256(secret, []byte(dataCheckString(fields)))
}

// signedMessage is what Telegram's Ed25519 signature covers for the bot
// botID: "<botID>:WebAppData", a line feed, and the data-check-string of
// fields (which must contain neither hash nor signature).
func signedMessage(botID int64, fields map[string]string) []byte {
	return []byte(strconv.FormatInt(botID, 10) + ":WebAppData\n" + dataCheckString(fields))
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// isLowerHex reports whether s is exactly n lowercase hex digits; Telegram
// always sends lowercase, so anything else is a client bug worth surfacing.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// quoteShort quotes client-supplied text for an error message, cut short so
// a hostile client cannot make us echo (or log) large payloads.
func quoteShort(s string) string {
	const maxRunes = 32
	if r := []rune(s); len(r) > maxRunes {
		return strconv.Quote(string(r[:maxRunes])) + "…"
	}
	return strconv.Quote(s)
}

// mustPublicKey decodes a hex Ed25519 public key written in this file.
func mustPublicKey(h string) ed25519.PublicKey {
	k, err := hex.DecodeString(h)
	if err != nil || len(k) != ed25519.PublicKeySize {
		panic("auth: bad Ed25519 public key " + h)
	}
	return k
}
