package scalar_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/fracti/api/graph/scalar"
	"github.com/stretchr/testify/require"
)

func TestDay(t *testing.T) {
	d, err := scalar.UnmarshalDay("2028-02-29")
	require.NoError(t, err)
	require.Equal(t, time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC), d)
	var buf bytes.Buffer
	scalar.MarshalDay(d).MarshalGQL(&buf)
	require.Equal(t, `"2028-02-29"`, buf.String())

	for _, bad := range []any{"2027-02-29", "2028-2-29", "2028-02-29T00:00:00Z", 20280229, nil} {
		_, err := scalar.UnmarshalDay(bad)
		require.Error(t, err, "%v", bad)
	}
}
