package addon

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"

	"github.com/registryd/registryd/registry"
)

// jsonDoc decodes a JSON document into generic values (map[string]any,
// []any, string, json.Number, bool, nil) token by token, so that it can
// refuse duplicate keys, bound nesting before it allocates, and record the
// line of every key and array element under its raw path.
type jsonDoc struct {
	dec        *json.Decoder
	lineStarts []int
	lines      map[string]int
	maxDepth   int
	// maxElems bounds every array and object before the field-level bounds
	// apply, so that no document allocates more than it may hold.
	maxElems int
}

func decodeJSON(b []byte, maxDepth, maxElems int) (any, map[string]int, *registry.FieldError) {
	d := &jsonDoc{
		maxElems: maxElems,
		dec:      json.NewDecoder(bytes.NewReader(b)),
		lines:    map[string]int{},
		maxDepth: maxDepth,
	}
	d.dec.UseNumber()
	d.lineStarts = append(d.lineStarts, 0)
	for i, c := range b {
		if c == '\n' {
			d.lineStarts = append(d.lineStarts, i+1)
		}
	}
	v, ferr := d.value("", 0)
	if ferr != nil {
		return nil, nil, ferr
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, nil, &registry.FieldError{Line: d.lineAt(d.dec.InputOffset()), Message: "unexpected data after the JSON document"}
	}
	return v, d.lines, nil
}

// lineAt maps a byte offset to its 1-based line.
func (d *jsonDoc) lineAt(off int64) int {
	return sort.Search(len(d.lineStarts), func(i int) bool { return int64(d.lineStarts[i]) > off })
}

func (d *jsonDoc) syntax(err error) *registry.FieldError {
	var se *json.SyntaxError
	line := d.lineAt(d.dec.InputOffset())
	if errors.As(err, &se) {
		line = d.lineAt(se.Offset - 1)
		return &registry.FieldError{Line: line, Message: "JSON syntax error: " + quietMessage(se.Error())}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &registry.FieldError{Line: line, Message: "JSON document ends unexpectedly"}
	}
	return &registry.FieldError{Line: line, Message: "JSON syntax error: " + quietMessage(err.Error())}
}

func (d *jsonDoc) value(path string, depth int) (any, *registry.FieldError) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	line := d.lineAt(d.dec.InputOffset() - 1)
	if _, ok := d.lines[path]; !ok && path != "" {
		d.lines[path] = line
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth+1 > d.maxDepth {
		return nil, &registry.FieldError{Line: line, Message: "nesting is deeper than " + strconv.Itoa(d.maxDepth) + " levels"}
	}
	switch delim {
	case '{':
		obj := map[string]any{}
		for d.dec.More() {
			if len(obj) == d.maxElems {
				return nil, &registry.FieldError{Path: printablePath(path), Line: line, Message: "has more than " + strconv.Itoa(d.maxElems) + " keys"}
			}
			ktok, err := d.dec.Token()
			if err != nil {
				return nil, d.syntax(err)
			}
			k, _ := ktok.(string)
			kp := join(path, k)
			if _, dup := obj[k]; dup {
				return nil, &registry.FieldError{Path: printablePath(path), Line: d.lineAt(d.dec.InputOffset() - 1), Message: "has a duplicate key"}
			}
			d.lines[kp] = d.lineAt(d.dec.InputOffset() - 1)
			v, ferr := d.value(kp, depth+1)
			if ferr != nil {
				return nil, ferr
			}
			obj[k] = v
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, d.syntax(err)
		}
		return obj, nil
	default: // '['
		arr := []any{}
		for i := 0; d.dec.More(); i++ {
			if i == d.maxElems {
				return nil, &registry.FieldError{Path: printablePath(path), Line: line, Message: "has more than " + strconv.Itoa(d.maxElems) + " elements"}
			}
			v, ferr := d.value(path+"["+strconv.Itoa(i)+"]", depth+1)
			if ferr != nil {
				return nil, ferr
			}
			arr = append(arr, v)
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, d.syntax(err)
		}
		return arr, nil
	}
}
