// Package telegram is a small client of the Telegram Bot API: the calls
// Fracti makes (getChatMember, sendMessage), the updates its webhook
// receives, the errors Telegram answers with, and its sending limits.
//
// Telegram's ids are 64-bit integers (user ids are past 2^32, supergroup
// chat ids are -100…): they are int64 here and decoded from the JSON text
// exactly, never through a float64.
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultAPIURL is Telegram's own Bot API server.
const DefaultAPIURL = "https://api.telegram.org"

// maxAnswerBytes bounds what is read of one answer (Bot API answers are
// small; a proxy's error page should not fill memory).
const maxAnswerBytes = 1 << 20

// Client calls the Bot API at one base URL with one bot token.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New is a client of the Bot API at apiURL (DefaultAPIURL when empty) for
// the bot with token; hc nil is http.DefaultClient.
func New(apiURL, token string, hc *http.Client) *Client {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(apiURL, "/"), token: token, http: hc}
}

// answer is the envelope of every Bot API answer.
type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter      int   `json:"retry_after"`
		MigrateToChatID int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

// call posts params as JSON to method and decodes the result into out. A
// refusal is an *Error; a failure to reach Telegram is returned as it is.
func (c *Client) call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/bot"+c.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		// The URL holds the token: say what failed without it.
		return fmt.Errorf("telegram: %s: %w", method, redact(err, c.token))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return fmt.Errorf("telegram: %s: reading the answer: %w", method, err)
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil || (!a.OK && a.ErrorCode == 0 && a.Description == "") {
		// Not the Bot API's JSON (a proxy's page, a gateway error): the
		// HTTP status is all there is.
		return &Error{Method: method, Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode)}
	}
	if !a.OK {
		e := &Error{Method: method, Code: a.ErrorCode, Description: a.Description}
		if e.Code == 0 {
			e.Code = resp.StatusCode
		}
		if a.Parameters != nil {
			e.RetryAfter = secondsOf(a.Parameters.RetryAfter)
			e.MigrateToChatID = a.Parameters.MigrateToChatID
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(a.Result, out); err != nil {
		return fmt.Errorf("telegram: %s: unexpected result: %w", method, err)
	}
	return nil
}

// redact removes the bot token from an error's text.
func redact(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return redactedError{msg: strings.ReplaceAll(err.Error(), token, "<token>"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
