package config

import (
	"strings"
)

// Page markers: docs/configuration.md holds Markdown() between them.
const (
	PageBegin = "<!-- settings: generated from config/settings.go by `go test ./config -update`; edit them there -->"
	PageEnd   = "<!-- end of the generated settings -->"
)

// Markdown is the settings' reference as docs/configuration.md shows it: a
// heading, a sentence and a table (variable, default, meaning) per section.
func Markdown() string {
	var b strings.Builder
	for i, sec := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("## " + sec.Title + "\n\n" + sec.About + "\n\n")
		b.WriteString("| variable | default | meaning |\n| --- | --- | --- |\n")
		for _, s := range sec.Settings {
			b.WriteString("| `" + s.Name + "` | " + s.DocumentedDefault() + " | " + s.Meaning + " |\n")
		}
	}
	return b.String()
}
