package exchange

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fracti/api/money"
)

// DefaultMaxBytes is the largest file a reader accepts unless told
// otherwise: far above any real group's export (a 5,000-expense Fracti
// export is about 3 MB), and small enough to hold in memory while reading.
const DefaultMaxBytes = 32 << 20

// DefaultMaxRows is the most expenses, settlements and comments together a
// reader accepts unless told otherwise.
const DefaultMaxRows = 100_000

// MaxPeople is the most people (Splitwise member columns, Spliit
// participants, Fracti members) a reader accepts: far above any real
// group, and a bound on the placeholders an import can create.
const MaxPeople = 10_000

// TooManyPeople is the problem of a file naming more than MaxPeople
// people, at the line of the first one too many.
func TooManyPeople(line int) *Problem {
	return TooManyPeopleOf(line, MaxPeople)
}

// TooManyPeopleOf is the problem of a file naming more than max people.
func TooManyPeopleOf(line, max int) *Problem {
	return &Problem{Line: line, Message: fmt.Sprintf("the file names more than the %d people an import reads", max), Severity: Error}
}

// ReadAll reads r whole, refusing more than maxBytes (DefaultMaxBytes when
// maxBytes <= 0) with an Error problem, so that a reader never holds more
// than its bound.
func ReadAll(r io.Reader, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, &Problem{Message: "the file could not be read: " + err.Error(), Severity: Error}
	}
	if int64(len(data)) > maxBytes {
		return nil, TooLarge(maxBytes)
	}
	return data, nil
}

// TooLarge is the problem of a file above maxBytes.
func TooLarge(maxBytes int64) *Problem {
	return &Problem{Message: fmt.Sprintf("the file is larger than the %d bytes an import reads", maxBytes), Severity: Error}
}

// TooManyRows is the problem of a file with more than maxRows rows, at the
// line of the first one too many.
func TooManyRows(line, maxRows int) *Problem {
	return &Problem{Line: line, Message: fmt.Sprintf("the file has more than the %d rows an import reads", maxRows), Severity: Error}
}

// Errorf is an Error problem at line and field.
func Errorf(line int, field, format string, args ...any) *Problem {
	return &Problem{Line: line, Field: field, Message: fmt.Sprintf(format, args...), Severity: Error}
}

// Warnf is a Warning problem at line and field.
func Warnf(line int, field, format string, args ...any) Problem {
	return Problem{Line: line, Field: field, Message: fmt.Sprintf(format, args...), Severity: Warning}
}

// AsProblem returns err as the *Problem it is or wraps, or else a Problem
// at no line with err's text: whatever a reader fails with, the importer
// gets a Problem to report.
func AsProblem(err error) *Problem {
	if err == nil {
		return nil
	}
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	return &Problem{Message: err.Error(), Severity: Error}
}

// UniqueNames returns names trimmed and made unique, in order: a name seen
// before becomes "Name (2)", "Name (3)"… (skipping any that the file itself
// uses), because the Plan names people by Name. It returns a warning for
// each name it changed, at line (0 when the file has none) and the field
// that field(i) names.
func UniqueNames(names []string, line func(i int) int, field func(i int) string) ([]string, []Problem) {
	out := make([]string, len(names))
	taken := make(map[string]bool, len(names))
	for i, n := range names {
		taken[strings.TrimSpace(n)] = true
		out[i] = strings.TrimSpace(n)
	}
	seen := make(map[string]bool, len(names))
	// next is where the search for a free "n (k)" resumes for each name:
	// every candidate below it is taken for good, so restarting at 2 for
	// each duplicate would make a file of one repeated name quadratic (a
	// 64 KB header of "a,a,a…" took minutes).
	next := map[string]int{}
	var problems []Problem
	for i, n := range out {
		if !seen[n] {
			seen[n] = true
			continue
		}
		for k := max(next[n], 2); ; k++ {
			c := n + " (" + strconv.Itoa(k) + ")"
			if !taken[c] && !seen[c] {
				out[i] = c
				seen[c] = true
				taken[c] = true
				next[n] = k + 1
				break
			}
		}
		problems = append(problems, Warnf(line(i), field(i),
			"%q is the name of someone earlier in the file too: this one is imported as %q", n, out[i]))
	}
	return out, problems
}

// ParseAmount parses s as an amount of c written with at least c's
// decimals: decimals beyond c's are accepted only when they are zeros
// ("1500.00" JPY is 1500), since some exports write every currency with two
// decimals, and are otherwise an error (the amount is not exact in c).
func ParseAmount(s string, c money.Currency) (money.Amount, error) {
	d, err := money.ParseDecimal(s)
	if err != nil {
		return money.Amount{}, err
	}
	if extra := int(d.Scale()) - c.Digits(); extra > 0 {
		tail := s[len(s)-extra:]
		if strings.Trim(tail, "0") != "" {
			return money.Amount{}, fmt.Errorf("%w: %s has %d decimals but %s has %d", money.ErrTooManyDecimals, s, d.Scale(), c.Code(), c.Digits())
		}
		s = strings.TrimSuffix(s[:len(s)-extra], ".")
	}
	return money.ParseAmount(s, c)
}

// RowKeys makes keys for rows that have no id of their own: a hash of the
// row's content and its place among rows with the same content, so that
// the same file always gives the same keys. It maps a content hash to how
// many times it has been seen.
type RowKeys map[string]int

// Next is the key of the next row with this content: prefix, the hex of the
// first 12 bytes of the content's SHA-256, "-" and how many times (from 1)
// that hash has been seen.
func (k RowKeys) Next(prefix string, content []byte) string {
	h := sha256.Sum256(content)
	s := hex.EncodeToString(h[:12])
	k[s]++
	return prefix + s + "-" + strconv.Itoa(k[s])
}
