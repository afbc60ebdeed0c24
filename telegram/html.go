package telegram

import "strings"

// htmlEscaper escapes the three characters Telegram's HTML parse mode
// requires escaped (it accepts these entities and the numeric ones only).
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeHTML makes text people wrote (a description, a name) safe to put in
// a message sent with parse_mode HTML.
func EscapeHTML(s string) string { return htmlEscaper.Replace(s) }
