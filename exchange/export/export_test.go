package export

import (
	"testing"
	"time"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2":            "'=1+2",
		"+33 6 12":        "'+33 6 12",
		"-2 beers":        "'-2 beers",
		"@SUM(A1)":        "'@SUM(A1)",
		"\tTab":           "'\tTab",
		"\rCR":            "'\rCR",
		"Dinner":          "Dinner",
		"":                "",
		" =not first":     " =not first",
		"Total = 3":       "Total = 3",
		"'already quoted": "'already quoted",
	} {
		require.Equal(t, want, Cell(in), "%q", in)
	}
}

func TestContentDisposition(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)
	for title, want := range map[string]string{
		"Trip: Rome / 2026": `attachment; filename="Trip_ Rome _ 2026-2026-11-26.csv"; filename*=UTF-8''Trip_%20Rome%20_%202026-2026-11-26.csv`,
		"Рим 2026":          `attachment; filename="2026-2026-11-26.csv"; filename*=UTF-8''%D0%A0%D0%B8%D0%BC%202026-2026-11-26.csv`,
		`"; x=1 \..`:        `attachment; filename="x_1-2026-11-26.csv"; filename*=UTF-8''x_1-2026-11-26.csv`,
		"🎉":                 `attachment; filename="group-2026-11-26.csv"; filename*=UTF-8''group-2026-11-26.csv`,
	} {
		x := Export{Group: &store.Group{Title: title, Currency: money.MustCurrency("USD")}, Now: now}
		require.Equal(t, want, x.ContentDisposition("csv"), title)
	}
	// The day is the group's: past midnight in Tokyo.
	x := Export{Group: &store.Group{Title: "T", TimeZone: "Asia/Tokyo"}, Now: now}
	require.Contains(t, x.ContentDisposition("json"), `filename="T-2026-11-27.json"`)
}

func TestPath(t *testing.T) {
	require.Equal(t, "/export/groups/g1.csv", Path("g1", "csv"))
}
