package config

import (
	"strings"
	"time"
)

// A Setting is one environment variable the server reads: its name, its
// default and what it means, declared once (settings.go). The loader reads
// it through the declaration, and docs/configuration.md is written from it.
type Setting struct {
	// Name is the environment variable.
	Name string
	// Default is the value the server uses when the variable is unset or
	// empty, in the variable's own syntax; "" when the default is worked out
	// (Shown says how) or there is none.
	Default string
	// Shown is how the documentation states the default when it is not the
	// literal Default ("unset: AWS", "the value of INTROSPECTION").
	Shown string
	// Meaning says what the setting does, in Markdown.
	Meaning string
	// Section is the part of the configuration the setting belongs to.
	Section *Section
}

// DocumentedDefault is the default as docs/configuration.md shows it.
func (s *Setting) DocumentedDefault() string {
	switch {
	case s.Shown != "":
		return s.Shown
	case s.Default != "":
		return "`" + s.Default + "`"
	}
	return "unset"
}

// A Section is one part of the configuration, a field of Config: the
// settings of one subsystem.
type Section struct {
	// Title heads the section in docs/configuration.md.
	Title string
	// About is the sentence under the title.
	About string
	// Settings are the section's settings in the order they are documented.
	Settings []*Setting
}

// sections are every section in the order they are documented.
var sections []*Section

// section declares a section; its settings follow it.
func section(title, about string) *Section {
	s := &Section{Title: title, About: about}
	sections = append(sections, s)
	return s
}

// declare declares one setting of sec.
func (sec *Section) declare(s Setting) *Setting {
	s.Section = sec
	sec.Settings = append(sec.Settings, &s)
	return &s
}

// Sections are the configuration's sections, each with its settings, in
// the order docs/configuration.md lists them.
func Sections() []*Section { return sections }

// Settings are every setting the server reads, in documented order.
func Settings() []*Setting {
	var all []*Setting
	for _, sec := range sections {
		all = append(all, sec.Settings...)
	}
	return all
}

// durationText writes d as a setting would: 24h, 5m, 30s, 250ms (without
// time.Duration's trailing zero units).
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
