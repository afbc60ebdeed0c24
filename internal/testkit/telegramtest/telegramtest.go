// Package telegramtest is a fake Telegram Bot API for tests: an httptest
// server answering getChatMember and sendMessage at /bot<token>/<method> as
// Telegram does, including its refusals (400 chat not found, 403 for a bot
// that left a chat or a user who never started it, 400 with
// migrate_to_chat_id, 429 with retry_after), and recording what was sent
// so that tests can check Telegram's sending limits.
//
// Ids are written into its JSON as integers, never floats, exactly as
// Telegram writes them.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/telegram"
)

// Sent is one sendMessage call: the chat, the text, the buttons of its
// inline keyboard (all rows, in order) and when it arrived.
type Sent struct {
	ChatID  int64
	Text    string
	Buttons []telegram.Button
	At      time.Time
}

// Server is the fake Bot API. Its zero chats are unknown: a chat becomes
// known with SetMember or SetBotIn, and the bot is in a known chat unless
// SetBotIn says otherwise. sendMessage to a group chat it does not know is
// accepted, so that tests of sending need no setup; to a private chat
// (positive id) it is accepted unless NeverStarted.
type Server struct {
	srv *httptest.Server

	mu         sync.Mutex
	now        func() time.Time
	members    map[int64]map[int64]telegram.ChatMember // chat → user → standing
	botOut     map[int64]bool                          // chats the bot is not in
	blocked    map[int64]bool                          // users who never started the bot
	migrated   map[int64]int64
	rateLimits []int // retry_after of the next refused sends, in order
	sent       []Sent
	refused    []Sent
	messageID  int64
}

// New starts a fake Bot API, closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{
		now:     time.Now,
		members: map[int64]map[int64]telegram.ChatMember{}, botOut: map[int64]bool{},
		blocked: map[int64]bool{}, migrated: map[int64]int64{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL to give telegram.New (TELEGRAM_API_URL).
func (s *Server) URL() string { return s.srv.URL }

// SetNow makes the server stamp sends with now (a test clock) instead of time.Now.
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// SetMember gives userID the status (creator, administrator, member, left,
// kicked, restricted: restricted members are still in the chat) in chatID,
// which becomes known.
func (s *Server) SetMember(chatID, userID int64, status string) {
	s.setMember(chatID, userID, telegram.ChatMember{Status: status, IsMember: status == telegram.StatusRestricted})
}

// SetRestricted makes userID a restricted member of chatID who is, or is
// no longer, in the chat.
func (s *Server) SetRestricted(chatID, userID int64, isMember bool) {
	s.setMember(chatID, userID, telegram.ChatMember{Status: telegram.StatusRestricted, IsMember: isMember})
}

func (s *Server) setMember(chatID, userID int64, m telegram.ChatMember) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members[chatID] == nil {
		s.members[chatID] = map[int64]telegram.ChatMember{}
	}
	m.User = telegram.User{ID: userID, FirstName: "User " + strconv.FormatInt(userID, 10)}
	s.members[chatID][userID] = m
}

// SetBotIn puts the bot in chatID or takes it out (which the chat's
// getChatMember and sendMessage then refuse with 403); the chat becomes known.
func (s *Server) SetBotIn(chatID int64, in bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members[chatID] == nil {
		s.members[chatID] = map[int64]telegram.ChatMember{}
	}
	s.botOut[chatID] = !in
}

// NeverStarted makes sendMessage to userID's private chat a 403.
func (s *Server) NeverStarted(userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[userID] = true
}

// Migrate makes chatID a basic group that became the supergroup toChatID:
// sendMessage to chatID is a 400 with parameters.migrate_to_chat_id.
func (s *Server) Migrate(chatID, toChatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.migrated[chatID] = toChatID
}

// RateLimitNext refuses the next n sendMessage calls with 429, naming
// parameters.retry_after retryAfter seconds (none when 0).
func (s *Server) RateLimitNext(n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.rateLimits = append(s.rateLimits, retryAfter)
	}
}

// Sent lists the accepted sendMessage calls in the order they arrived.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Refused lists the refused sendMessage calls in the order they arrived.
func (s *Server) Refused() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.refused...)
}

// LimitViolations describes every accepted send beyond Telegram's limits:
// more than telegram.GroupPerMinute within a minute to one group chat
// (negative id), or more than telegram.GlobalPerSecond within a second in all.
func (s *Server) LimitViolations() []string {
	sent := s.Sent()
	var out []string
	for i, m := range sent {
		inSecond, inMinute := 0, 0
		for _, p := range sent[:i+1] {
			if m.At.Sub(p.At) < time.Second {
				inSecond++
			}
			if p.ChatID == m.ChatID && m.At.Sub(p.At) < time.Minute {
				inMinute++
			}
		}
		if inSecond > telegram.GlobalPerSecond {
			out = append(out, fmt.Sprintf("send %d (chat %d at %s): %d sends within a second", i, m.ChatID, m.At.Format(time.RFC3339Nano), inSecond))
		}
		if m.ChatID < 0 && inMinute > telegram.GroupPerMinute {
			out = append(out, fmt.Sprintf("send %d (chat %d at %s): %d sends to the chat within a minute", i, m.ChatID, m.At.Format(time.RFC3339Nano), inMinute))
		}
	}
	return out
}

// refusal is a Bot API error answer.
type refusal struct {
	code        int
	description string
	retryAfter  int
	migrateTo   int64
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, found := strings.Cut(path, "/")
	if !ok || !found || r.Method != http.MethodPost {
		write(w, nil, &refusal{code: http.StatusNotFound, description: "Not Found"})
		return
	}
	botID, _ := strconv.ParseInt(strings.SplitN(token, ":", 2)[0], 10, 64)
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		write(w, nil, &refusal{code: http.StatusBadRequest, description: "Bad Request: unreadable body"})
		return
	}
	switch method {
	case "getChatMember":
		var p struct {
			ChatID json.Number `json:"chat_id"`
			UserID json.Number `json:"user_id"`
		}
		chatID, userID, err := decodeIDs(body, &p, &p.ChatID, &p.UserID)
		if err != nil {
			write(w, nil, &refusal{code: http.StatusBadRequest, description: "Bad Request: " + err.Error()})
			return
		}
		result, ref := s.getChatMember(botID, chatID, userID)
		write(w, result, ref)
	case "sendMessage":
		s.sendMessage(w, body)
	default:
		write(w, nil, &refusal{code: http.StatusNotFound, description: "Not Found"})
	}
}

// decodeIDs reads a JSON body's integer ids exactly.
func decodeIDs(body []byte, into any, ids ...*json.Number) (int64, int64, error) {
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(into); err != nil {
		return 0, 0, err
	}
	var out [2]int64
	for i, id := range ids {
		n, err := strconv.ParseInt(id.String(), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("invalid id %q", id)
		}
		out[i] = n
	}
	return out[0], out[1], nil
}

func (s *Server) getChatMember(botID, chatID, userID int64) (any, *refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	members, known := s.members[chatID]
	switch {
	case !known:
		return nil, &refusal{code: http.StatusBadRequest, description: "Bad Request: chat not found"}
	case s.botOut[chatID]:
		return nil, &refusal{code: http.StatusForbidden, description: "Forbidden: bot is not a member of the supergroup chat"}
	case userID == botID:
		return chatMemberJSON(telegram.ChatMember{User: telegram.User{ID: botID, IsBot: true, FirstName: "Fracti"}, Status: telegram.StatusAdministrator}), nil
	}
	m, ok := members[userID]
	if !ok {
		m = telegram.ChatMember{User: telegram.User{ID: userID, FirstName: "User " + strconv.FormatInt(userID, 10)}, Status: telegram.StatusLeft}
	}
	return chatMemberJSON(m), nil
}

// chatMemberJSON is a ChatMember as Telegram writes one: is_member only
// for restricted members, and then always.
func chatMemberJSON(m telegram.ChatMember) map[string]any {
	out := map[string]any{"user": m.User, "status": m.Status}
	if m.Status == telegram.StatusRestricted {
		out["is_member"] = m.IsMember
	}
	return out
}

func (s *Server) sendMessage(w http.ResponseWriter, body []byte) {
	var p struct {
		ChatID      json.Number `json:"chat_id"`
		Text        string      `json:"text"`
		ReplyMarkup *struct {
			InlineKeyboard [][]telegram.Button `json:"inline_keyboard"`
		} `json:"reply_markup"`
	}
	chatID, _, err := decodeIDs(body, &p, &p.ChatID)
	if err != nil {
		write(w, nil, &refusal{code: http.StatusBadRequest, description: "Bad Request: " + err.Error()})
		return
	}
	s.mu.Lock()
	msg := Sent{ChatID: chatID, Text: p.Text, At: s.now()}
	if p.ReplyMarkup != nil {
		for _, row := range p.ReplyMarkup.InlineKeyboard {
			msg.Buttons = append(msg.Buttons, row...)
		}
	}
	ref := s.refuseSend(chatID)
	if ref != nil {
		s.refused = append(s.refused, msg)
		s.mu.Unlock()
		write(w, nil, ref)
		return
	}
	s.sent = append(s.sent, msg)
	s.messageID++
	id := s.messageID
	s.mu.Unlock()
	chatType := "private"
	if chatID < 0 {
		chatType = "supergroup"
	}
	write(w, map[string]any{
		"message_id": id, "date": msg.At.Unix(), "text": p.Text,
		"chat": map[string]any{"id": chatID, "type": chatType},
	}, nil)
}

// refuseSend is why a send to chatID is refused, or nil; s.mu is held.
func (s *Server) refuseSend(chatID int64) *refusal {
	if len(s.rateLimits) > 0 {
		after := s.rateLimits[0]
		s.rateLimits = s.rateLimits[1:]
		return &refusal{code: http.StatusTooManyRequests, description: fmt.Sprintf("Too Many Requests: retry after %d", after), retryAfter: after}
	}
	if to, ok := s.migrated[chatID]; ok {
		return &refusal{code: http.StatusBadRequest, description: "Bad Request: group chat was upgraded to a supergroup chat", migrateTo: to}
	}
	if chatID < 0 && s.botOut[chatID] {
		return &refusal{code: http.StatusForbidden, description: "Forbidden: bot is not a member of the supergroup chat"}
	}
	if chatID > 0 && s.blocked[chatID] {
		return &refusal{code: http.StatusForbidden, description: "Forbidden: bot can't initiate conversation with a user"}
	}
	return nil
}

// write answers with the Bot API's envelope: the result, or the refusal
// with its HTTP status and parameters.
func write(w http.ResponseWriter, result any, ref *refusal) {
	w.Header().Set("Content-Type", "application/json")
	if ref == nil {
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
		return
	}
	answer := map[string]any{"ok": false, "error_code": ref.code, "description": ref.description}
	params := map[string]any{}
	if ref.retryAfter > 0 {
		params["retry_after"] = ref.retryAfter
	}
	if ref.migrateTo != 0 {
		params["migrate_to_chat_id"] = ref.migrateTo
	}
	if len(params) > 0 {
		answer["parameters"] = params
	}
	w.WriteHeader(ref.code)
	_ = json.NewEncoder(w).Encode(answer)
}
