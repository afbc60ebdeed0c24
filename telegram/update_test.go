package telegram_test

import (
	"testing"

	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

// Updates as the Bot API posts them to a webhook (the shapes of its
// documentation and of public bots' recorded updates).
const (
	updateBotKicked = `{"update_id":912345678,"my_chat_member":{"chat":{"id":-1001234567890,"title":"Flat 5","type":"supergroup"},` +
		`"from":{"id":5000000001,"is_bot":false,"first_name":"Ann","username":"ann","language_code":"es"},"date":1764000100,` +
		`"old_chat_member":{"user":{"id":7123456789,"is_bot":true,"first_name":"Fracti","username":"FractiBot"},"status":"member"},` +
		`"new_chat_member":{"user":{"id":7123456789,"is_bot":true,"first_name":"Fracti","username":"FractiBot"},"status":"kicked","until_date":0}}}`
	updateStart = `{"update_id":912345679,"message":{"message_id":1,"from":{"id":5000000001,"is_bot":false,"first_name":"Ann","language_code":"ru"},` +
		`"chat":{"id":5000000001,"first_name":"Ann","type":"private"},"date":1764000200,"text":"/start","entities":[{"offset":0,"length":6,"type":"bot_command"}]}}`
	updateMigrated = `{"update_id":912345680,"message":{"message_id":55,"from":{"id":5000000001,"is_bot":false,"first_name":"Ann"},` +
		`"chat":{"id":-4987654321,"title":"Flat 5","type":"group","all_members_are_administrators":true},"date":1764000300,"migrate_to_chat_id":-1004487366646}}`
)

func TestParseUpdate(t *testing.T) {
	u, err := telegram.ParseUpdate([]byte(updateBotKicked))
	require.NoError(t, err)
	require.EqualValues(t, 912345678, u.UpdateID)
	require.NotNil(t, u.MyChatMember)
	require.EqualValues(t, -1001234567890, u.MyChatMember.Chat.ID)
	require.Equal(t, telegram.StatusKicked, u.MyChatMember.NewChatMember.Status)
	require.False(t, u.MyChatMember.NewChatMember.InChat())

	u, err = telegram.ParseUpdate([]byte(updateStart))
	require.NoError(t, err)
	require.Equal(t, "/start", u.Message.Command())
	require.True(t, u.Message.Chat.IsPrivate())
	require.EqualValues(t, 5000000001, u.Message.From.ID)
	require.Equal(t, "ru", u.Message.From.LanguageCode)

	u, err = telegram.ParseUpdate([]byte(updateMigrated))
	require.NoError(t, err)
	require.EqualValues(t, -4987654321, u.Message.Chat.ID, "a basic group's id below -2^31")
	require.EqualValues(t, -1004487366646, u.Message.MigrateToChatID)

	for text, cmd := range map[string]string{"/start": "/start", "/start@FractiBot": "/start", "/START abc": "/start", "hello": ""} {
		require.Equal(t, cmd, (&telegram.Message{Text: text}).Command(), text)
	}
	_, err = telegram.ParseUpdate([]byte(`{"update_id":`))
	require.Error(t, err)
}
