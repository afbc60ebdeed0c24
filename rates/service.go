package rates

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Provider is one outside source of a day's quote table.
type Provider interface {
	// Name is the provider's name, recorded as a rate's source and keyed on.
	Name() string
	// Fetch gets the provider's current table.
	Fetch(ctx context.Context) (Quotes, error)
}

// Keeper keeps one table per provider and day where every instance reads
// it (the store's RATE#<day> items).
type Keeper interface {
	// KeptRates reads the table kept for provider on day; found is false if none is.
	KeptRates(ctx context.Context, day, provider string) (q Quotes, found bool, err error)
	// KeepRates keeps q as provider q.Provider's table of day unless one is
	// kept already, and returns the kept one: the first fetch wins.
	KeepRates(ctx context.Context, day string, q Quotes) (Quotes, error)
}

// retryAfter is how long an instance waits before asking a provider that
// failed again, so that an outage does not cost every request a timeout.
const retryAfter = 30 * time.Second

// Service gives the day's rates: from the table kept for the day if there
// is one, else from the provider, keeping what it answered.
type Service struct {
	// Fiat quotes currencies per 1 EUR (the ECB); nil when not configured.
	Fiat Provider
	// Crypto quotes TON (CoinGecko); nil when not configured.
	Crypto Provider
	Keeper Keeper
	Now    func() time.Time
	// Log receives provider failures, which clients see only as
	// RATE_UNAVAILABLE (nil: not logged).
	Log *slog.Logger

	mu     sync.Mutex
	mem    map[string]*Quotes   // day + provider → kept table, read once per instance
	failed map[string]time.Time // provider → when it last failed
}

// Configured reports whether any provider is configured.
func (s *Service) Configured() bool { return s != nil && (s.Fiat != nil || s.Crypto != nil) }

// Rate is the day's rate from → to (upper-case codes, different). It is
// ErrUnavailable when a provider it needs is not configured, or is down
// with nothing kept for the day, and an *UnlistedError when the providers
// answered but do not quote one of the currencies.
func (s *Service) Rate(ctx context.Context, from, to string) (Rate, error) {
	if s == nil {
		return Rate{}, fmt.Errorf("%w: no rate provider is configured", ErrUnavailable)
	}
	var tables []*Quotes
	complete := true
	add := func(p Provider) error {
		q, err := s.quotes(ctx, p)
		if err != nil {
			if !errors.Is(err, ErrUnavailable) {
				return err
			}
			complete = false
			return nil
		}
		tables = append(tables, q)
		return nil
	}
	if from == "TON" || to == "TON" {
		if err := add(s.Crypto); err != nil {
			return Rate{}, err
		}
		if r, err := Derive(from, to, tables...); err == nil {
			return r, nil
		}
	}
	if err := add(s.Fiat); err != nil {
		return Rate{}, err
	}
	r, err := Derive(from, to, tables...)
	var unlisted *UnlistedError
	if errors.As(err, &unlisted) && !complete {
		// A provider we lack might have listed it.
		return Rate{}, fmt.Errorf("%w from %s to %s", ErrUnavailable, from, to)
	}
	return r, err
}

// quotes is p's table of today, ErrUnavailable when there is none to have.
func (s *Service) quotes(ctx context.Context, p Provider) (*Quotes, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: no provider configured", ErrUnavailable)
	}
	now := s.Now().UTC()
	day := now.Format(time.DateOnly)
	memKey := day + " " + p.Name()
	s.mu.Lock()
	q := s.mem[memKey]
	lastFail := s.failed[p.Name()]
	s.mu.Unlock()
	if q != nil {
		return q, nil
	}
	kept, found, err := s.Keeper.KeptRates(ctx, day, p.Name())
	if err != nil {
		return nil, err
	}
	if !found {
		if !lastFail.IsZero() && now.Sub(lastFail) < retryAfter {
			return nil, fmt.Errorf("%w: %s failed moments ago", ErrUnavailable, p.Name())
		}
		fetched, err := p.Fetch(ctx)
		if err != nil {
			if s.Log != nil {
				s.Log.WarnContext(ctx, "rate provider failed", "provider", p.Name(), "day", day, "error", err)
			}
			s.mu.Lock()
			if s.failed == nil {
				s.failed = map[string]time.Time{}
			}
			s.failed[p.Name()] = now
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		if kept, err = s.Keeper.KeepRates(ctx, day, fetched); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	if s.mem == nil {
		s.mem = map[string]*Quotes{}
	}
	for k := range s.mem { // only today's tables are ever asked for
		if k[:len(day)] != day {
			delete(s.mem, k)
		}
	}
	s.mem[memKey] = &kept
	s.mu.Unlock()
	return &kept, nil
}
