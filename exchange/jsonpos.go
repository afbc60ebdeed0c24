package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// JSONLines knows the line where each object and array of a JSON document
// starts, by path ("expenses[3].payers[0]"), so that a reader can name the
// line of the element a problem is in after decoding the document.
type JSONLines struct {
	data     []byte
	newlines []int
	starts   map[string]int64
}

// IndexJSON walks data once with a json.Decoder, recording where every
// object and array starts. It fails with an Error problem (with its line)
// when data is not one well-formed JSON value.
func IndexJSON(data []byte) (*JSONLines, error) {
	j := &JSONLines{data: data, starts: map[string]int64{}}
	for i, b := range data {
		if b == '\n' {
			j.newlines = append(j.newlines, i)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := j.walk(dec, ""); err != nil {
		return nil, j.Problem(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Errorf(j.LineAt(dec.InputOffset()), "", "the file holds more than one JSON value")
	}
	return j, nil
}

// walk reads one value at path, recording where composites start.
func (j *JSONLines) walk(dec *json.Decoder, path string) error {
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
	j.starts[path] = start
	switch d {
	case '[':
		for i := 0; dec.More(); i++ {
			if err := j.walk(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
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
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			if err := j.walk(dec, sub); err != nil {
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
	return Errorf(0, "", "the file is not valid JSON: %s", err)
}

// Errorf is an Error problem at the line where path's element starts,
// naming path as the field.
func (j *JSONLines) Errorf(path, format string, args ...any) *Problem {
	return &Problem{Line: j.Line(path), Field: path, Message: fmt.Sprintf(format, args...), Severity: Error}
}

// Warnf is a Warning problem at the line where path's element starts.
func (j *JSONLines) Warnf(path, format string, args ...any) Problem {
	return Problem{Line: j.Line(path), Field: path, Message: fmt.Sprintf(format, args...), Severity: Warning}
}

// People adds the people of a JSON document to plan, given as the
// elements of the array at path ("members"), each with the file's id as
// Key and its name as the file spells it: every id present and unique,
// every name not blank. Names are trimmed and made unique (UniqueNames,
// with its warnings in plan.Problems). It returns each id's name.
func (j *JSONLines) People(plan *Plan, path string, people []Person) (map[string]string, error) {
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
