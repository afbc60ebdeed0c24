package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServeRefusesAManifestThatDoesNotFit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted.json")
	const doc = `{ me { shoeSize } }`
	sum := sha256.Sum256([]byte(doc))
	require.NoError(t, os.WriteFile(path, []byte(`{"`+hex.EncodeToString(sum[:])+`": "`+doc+`"}`), 0o600))
	t.Setenv("TRUSTED_DOCUMENTS", path)
	t.Setenv("PORT", "0")
	err := run("serve")
	require.ErrorContains(t, err, "trusted documents "+path)
	require.ErrorContains(t, err, "not valid against this server's schema")
}
