package export

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/fracti/api/store"
)

// maxTitleRunes bounds the title's part of a file name.
const maxTitleRunes = 60

// ContentDisposition is the Content-Disposition of the export's file with
// the extension ext ("json", "csv"): an attachment named
// "<title>-<YYYY-MM-DD>.<ext>" after the group's title and the day of the
// export, as RFC 6266 has it: filename with an ASCII fallback (other
// characters become "_"), and filename* with the title in UTF-8.
func (x Export) ContentDisposition(ext string) string {
	suffix := "-" + x.Now.In(x.location()).Format(store.DayLayout) + "." + ext
	title := safeTitle(x.Group.Title, false)
	ascii := safeTitle(x.Group.Title, true)
	return fmt.Sprintf(`attachment; filename="%s%s"; filename*=UTF-8''%s%s`, ascii, suffix, percentEncode(title), suffix)
}

// Filename is the name ContentDisposition gives the export's file with the
// extension ext, in ASCII: what a zip export names its entries.
func (x Export) Filename(ext string) string {
	return safeTitle(x.Group.Title, true) + "-" + x.Now.In(x.location()).Format(store.DayLayout) + "." + ext
}

// safeTitle is the title as a file name may hold it: letters, digits,
// spaces and -_.() kept (in ascii, only ASCII ones), anything else "_",
// runs of "_" made one, trimmed and bounded; "group" when nothing is left.
func safeTitle(title string, ascii bool) string {
	var b strings.Builder
	n := 0
	for _, r := range title {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" -_.()", r)
		if !ok || (ascii && r > unicode.MaxASCII) {
			r = '_'
		}
		if r == '_' && strings.HasSuffix(b.String(), "_") {
			continue
		}
		if n++; n > maxTitleRunes {
			break
		}
		b.WriteRune(r)
	}
	s := strings.Trim(b.String(), " ._")
	if s == "" {
		return "group"
	}
	return s
}

// percentEncode writes s as RFC 8187's value-chars: attr-chars as they
// are, every other byte of its UTF-8 as %XX.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.IndexByte("!#$&+-.^_`|~", c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// PathPrefix is where the server serves exports: PathPrefix + group id +
// "." + format.
const PathPrefix = "/export/groups/"

// Path is the path of a group's export in a format ("json", "csv").
func Path(groupID, format string) string { return PathPrefix + groupID + "." + format }
