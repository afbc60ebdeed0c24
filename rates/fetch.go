package rates

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// maxBody bounds a provider's answer: the ECB's daily file is about 1.5 KB,
// a price answer less; a larger body is a wrong URL, not rates.
const maxBody = 1 << 20

// StatusError is a provider's answer other than 200 OK, such as CoinGecko's
// 429 when rate limited or 422 for a missing parameter.
type StatusError struct {
	Provider string
	Status   int
}

// Error names the provider and the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d", e.Provider, e.Status)
}

// Get fetches url with client and returns the body of a 200 answer; any
// other status is a *StatusError. The caller's context bounds it, besides
// the client's own timeout.
func Get(ctx context.Context, client *http.Client, provider, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, &StatusError{Provider: provider, Status: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", provider, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s: answer larger than %d bytes", provider, maxBody)
	}
	return body, nil
}
