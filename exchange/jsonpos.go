package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JSONLines knows the line where each object and array of a JSON document
// starts, by path ("expenses[3].payers[0]"), so that a reader can name the
// line of the element a problem is in after decoding the document.
type JSONLines struct {
	data     []byte
	newlines []int
	starts   map[string]int64
}

// maxDepth is the deepest nesting IndexJSON reads (encoding/json's own
// limit): the walk recurses once per level.
const maxDepth = 10_000

// recordDepth is how deep IndexJSON records where composites start: the
// readers name lines down to "expenses[3].payers[0]" (depth 4), and a
// deeper path is on its nearest recorded ancestor's line. Recording every
// path made the index quadratic: each level's path copies its parent's, so
// 100,000 nested arrays (200 KB) took 90 s and gigabytes.
const recordDepth = 4

// maxKeyLen is the longest object key a recorded path holds: the readers'
// field names are short, and a long key repeated in every path beneath it
// would multiply the file's size.
const maxKeyLen = 64

// IndexJSON walks data once with a json.Decoder, recording where every
// object and array near the top starts. It fails with an Error problem
// (with its line) when data is not one well-formed JSON value, or nests
// deeper than encoding/json reads.
func IndexJSON(data []byte) (*JSONLines, error) {
	j := &JSONLines{data: data, starts: map[string]int64{}}
	for i, b := range data {
		if b == '\n' {
			j.newlines = append(j.newlines, i)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := j.walk(dec, "", 0, true); err != nil {
		return nil, j.Problem(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Errorf(j.LineAt(dec.InputOffset()), "", "the file holds more than one JSON value")
	}
	return j, nil
}

// walk reads one value at path (depth levels down), recording where
// composites start while record holds.
func (j *JSONLines) walk(dec *json.Decoder, path string, depth int, record bool) error {
	start := j.skipSpace(dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxDepth {
		return Errorf(j.LineAt(start), "", "the file nests deeper than %d levels", maxDepth)
	}
	record = record && depth <= recordDepth
	if record {
		j.starts[path] = start
	}
	// Children's paths are built only while they may be recorded.
	sub := func(seg string, index bool) (string, bool) {
		if !record || depth+1 > recordDepth || len(seg) > maxKeyLen {
			return "", false
		}
		if index {
			return path + "[" + seg + "]", true
		}
		if path == "" {
			return seg, true
		}
		return path + "." + seg, true
	}
	switch d {
	case '[':
		for i := 0; dec.More(); i++ {
			p, rec := sub(strconv.Itoa(i), true)
			if err := j.walk(dec, p, depth+1, rec); err != nil {
				return err
			}
		}
	case '{':
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := k.(string)
			p, rec := sub(name, false)
			if err := j.walk(dec, p, depth+1, rec); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// skipSpace moves off past whitespace and the separators a Decoder reads
// before the next value, to where that value starts.
func (j *JSONLines) skipSpace(off int64) int64 {
	for off < int64(len(j.data)) {
		switch j.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// LineAt is the 1-based line of byte offset off.
func (j *JSONLines) LineAt(off int64) int {
	return sort.SearchInts(j.newlines, int(off)) + 1
}

// Line is the line where the value at path starts, or where its nearest
// recorded ancestor does ("expenses[3].payers[0].amount" is on the line
// of "expenses[3].payers[0]" unless recorded itself); 0 if none is.
func (j *JSONLines) Line(path string) int {
	for {
		if off, ok := j.starts[path]; ok {
			return j.LineAt(off)
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			if off, ok := j.starts[""]; ok && path != "" {
				return j.LineAt(off)
			}
			return 0
		}
		path = path[:i]
	}
}

// Problem turns an error of encoding/json on this document into an Error
// problem at its line: a syntax error, or a value of the wrong type (its
// field path as encoding/json gives it, without array indices).
func (j *JSONLines) Problem(err error) *Problem {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return Errorf(j.LineAt(syn.Offset), "", "the file is not valid JSON: %s", syn.Error())
	case errors.As(err, &typ):
		return Errorf(j.LineAt(typ.Offset), typ.Field, "expected %s, found a JSON %s", typ.Type, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return Errorf(j.LineAt(int64(len(j.data))), "", "the file ends in the middle of a JSON value")
	}
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	// What else encoding/json refuses in the readers' documents is a time
	// (time.Time's own error, with no offset): find it to name it.
	if p := j.badTime(); p != nil {
		return p
	}
	return Errorf(0, "", "the file could not be read: %s", err)
}

// timeKeys are the keys of the times in the documents the readers decode
// (Fracti's export and Spliit's), matched as encoding/json matches keys.
var timeKeys = []string{"exportedAt", "createdAt", "joinedAt", "leftAt", "spentAt", "completedAt", "deletedAt", "expenseDate"}

func isTimeKey(k string) bool {
	for _, t := range timeKeys {
		if strings.EqualFold(k, t) {
			return true
		}
	}
	return false
}

// badTime is an Error problem at the first value of a time key that
// time.Time does not decode, at its line and path; nil if there is none.
// It walks the (already indexed, so well-formed) document without
// recursion, building a path only for the value it reports.
func (j *JSONLines) badTime() *Problem {
	type frame struct {
		obj, wantKey bool
		i            int
		key          string
	}
	var st []frame
	next := func() { // a value of the innermost composite was read
		if n := len(st); n > 0 {
			if st[n-1].obj {
				st[n-1].wantKey = true
			} else {
				st[n-1].i++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(j.data))
	dec.UseNumber()
	for {
		off := j.skipSpace(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		n := len(st)
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				st = append(st, frame{obj: d == '{', wantKey: d == '{'})
			} else {
				st = st[:n-1]
				next()
			}
			continue
		}
		if n > 0 && st[n-1].obj && st[n-1].wantKey {
			st[n-1].key, _ = tok.(string)
			st[n-1].wantKey = false
			continue
		}
		if n > 0 && st[n-1].obj && isTimeKey(st[n-1].key) && tok != nil {
			raw, _ := json.Marshal(tok)
			var t time.Time
			if t.UnmarshalJSON(raw) != nil {
				var path strings.Builder
				for k, f := range st {
					switch {
					case !f.obj:
						path.WriteString("[" + strconv.Itoa(f.i) + "]")
					case k == 0:
						path.WriteString(f.key)
					default:
						path.WriteString("." + f.key)
					}
				}
				return Errorf(j.LineAt(off), path.String(), "%s is not a time: write it as RFC 3339, such as 2026-02-01T18:02:11.512Z", raw)
			}
		}
		next()
	}
}

// Errorf is an Error problem at the line where path's element starts,
// naming path as the field.
func (j *JSONLines) Errorf(path, format string, args ...any) *Problem {
	return Errorf(j.Line(path), path, format, args...)
}

// Warnf is a Warning problem at the line where path's element starts.
func (j *JSONLines) Warnf(path, format string, args ...any) Problem {
	return Warnf(j.Line(path), path, format, args...)
}

// People adds the people of a JSON document to plan, given as the
// elements of the array at path ("members"), each with the file's id as
// Key and its name as the file spells it: every id present and unique,
// every name not blank. Names are trimmed and made unique (UniqueNames,
// with its warnings in plan.Problems). It returns each id's name.
func (j *JSONLines) People(plan *Plan, path string, people []Person) (map[string]string, error) {
	if len(people) > MaxPeople {
		return nil, TooManyPeople(j.Line(path + "[" + strconv.Itoa(MaxPeople) + "]"))
	}
	byID := make(map[string]string, len(people))
	raw := make([]string, len(people))
	for i, p := range people {
		el := path + "[" + strconv.Itoa(i) + "]"
		if p.Key == "" {
			return nil, j.Errorf(el+".id", "a person without an id")
		}
		if _, dup := byID[p.Key]; dup {
			return nil, j.Errorf(el+".id", "id %q appears twice", p.Key)
		}
		if strings.TrimSpace(p.Name) == "" {
			return nil, j.Errorf(el+".name", "%q has no name", p.Key)
		}
		byID[p.Key], raw[i] = "", p.Name
	}
	unique, problems := UniqueNames(raw,
		func(i int) int { return j.Line(path + "[" + strconv.Itoa(i) + "]") },
		func(i int) string { return path + "[" + strconv.Itoa(i) + "].name" })
	plan.Problems = append(plan.Problems, problems...)
	for i, p := range people {
		p.Name = unique[i]
		byID[p.Key] = p.Name
		plan.People = append(plan.People, p)
	}
	return byID, nil
}

// ReadJSON reads a JSON file of at most maxBytes (ReadAll) and indexes it
// (IndexJSON), for a reader to decode and then check element by element.
func ReadJSON(r io.Reader, maxBytes int64) ([]byte, *JSONLines, error) {
	data, err := ReadAll(r, maxBytes)
	if err != nil {
		return nil, nil, err
	}
	lines, err := IndexJSON(data)
	if err != nil {
		return nil, nil, err
	}
	return data, lines, nil
}
