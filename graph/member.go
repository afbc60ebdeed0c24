package graph

import (
	"context"

	"github.com/fracti/api/freetext"
	"github.com/fracti/api/store"
)

// newMember describes the viewer joining a group, from their credentials.
func newMember(ctx context.Context) store.NewMember {
	id, _ := viewer(ctx)
	name := freetext.Sanitize(id.Name)
	switch {
	case name != "":
	case id.Username != "":
		name = id.Username
	default: // a Telegram name made only of characters we drop
		name = "User " + id.UserKey()
	}
	return store.NewMember{UserID: id.UserKey(), Name: name, Username: id.Username, AvatarURL: id.PhotoURL, Language: languageCode(id.LanguageCode)}
}
