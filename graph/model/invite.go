package model

import "github.com/fracti/api/store"

// Invite is an invite as the API shows it: the store's, plus its secret and
// Telegram link, which only the answer to createInvite carries.
type Invite struct {
	store.Invite
	// Secret is the invite's secret; nil everywhere but createInvite's answer.
	Secret *string
	// Link is the Telegram link that carries Secret, when configured.
	Link *string
}
