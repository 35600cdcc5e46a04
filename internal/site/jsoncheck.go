package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkJSON refuses what encoding/json would read one way and a strict parser (or the
// database) another, naming the field at fault: bytes that are not UTF-8 (Go turns
// them into U+FFFD, PostgreSQL refuses them), NUL characters (PostgreSQL cannot store
// them in text), a key given twice, or in two spellings that differ only in case
// ({"id":"a","ID":"b"} is "b" to Go, "a" to others), a key that matches a field of typ
// only by ignoring case, strings over maxString bytes, and nesting over maxDepth.
func checkJSON(doc []byte, typ reflect.Type, maxString int) *FieldError {
	bad := -1
	if !utf8.Valid(doc) {
		bad = firstInvalidUTF8(doc)
	}
	w := jsonWalker{dec: json.NewDecoder(bytes.NewReader(doc)), bad: bad, maxString: maxString}
	w.dec.UseNumber()
	if err := w.value("", typ, 0); err != nil {
		return err
	}
	if bad >= 0 {
		return &FieldError{Reason: fmt.Sprintf("byte %d is not UTF-8", bad)}
	}
	return nil
}

const maxDepth = 32

type jsonWalker struct {
	dec       *json.Decoder
	bad       int // offset of the first byte that is not UTF-8, or -1
	maxString int
	// broken is set when the decoder met what is not JSON: the walk stops, and the
	// decoder that reads the document for real says what is wrong.
	broken bool
}

func (w *jsonWalker) more() bool { return !w.broken && w.dec.More() }

// value reads one JSON value at path, whose Go type is typ (nil when the schema does
// not know it).
func (w *jsonWalker) value(path string, typ reflect.Type, depth int) *FieldError {
	if depth > maxDepth {
		return &FieldError{Field: path, Reason: fmt.Sprintf("nested more than %d deep", maxDepth)}
	}
	start := w.dec.InputOffset()
	tok, err := w.dec.Token()
	if err != nil {
		w.broken = true // an empty, cut or malformed document: ValidateRun's decoder says which
		return nil
	}
	typ = deref(typ)
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return w.object(path, typ, depth)
		case '[':
			var elem reflect.Type
			if typ != nil && typ.Kind() == reflect.Slice {
				elem = typ.Elem()
			}
			for i := 0; w.more(); i++ {
				if err := w.value(fmt.Sprintf("%s[%d]", path, i), elem, depth+1); err != nil {
					return err
				}
			}
			w.dec.Token() // ]
		}
	case string:
		return w.text(path, t, start)
	}
	return nil
}

func (w *jsonWalker) object(path string, typ reflect.Type, depth int) *FieldError {
	var fields map[string]reflect.Type
	if typ != nil && typ.Kind() == reflect.Struct {
		fields = jsonFields(typ)
	}
	seen := map[string]string{} // folded key → key as written
	for w.more() {
		start := w.dec.InputOffset()
		tok, err := w.dec.Token()
		if err != nil {
			w.broken = true
			return nil
		}
		key, _ := tok.(string)
		field := key
		if path != "" {
			field = path + "." + key
		}
		if err := w.text(field, key, start); err != nil {
			return err
		}
		folded := strings.ToLower(key)
		if prev, dup := seen[folded]; dup {
			if prev == key {
				return &FieldError{Field: field, Reason: "the key is given twice"}
			}
			return &FieldError{Field: field, Reason: fmt.Sprintf("the key is also given as %q: keys that differ only in case are read differently by different parsers", prev)}
		}
		seen[folded] = key
		var sub reflect.Type
		if fields != nil {
			var ok bool
			if sub, ok = fields[key]; !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return &FieldError{Field: field, Reason: fmt.Sprintf("write the key as %q: a key that matches a field only when case is ignored is read differently by different parsers", name)}
					}
				}
			}
		}
		if err := w.value(field, sub, depth+1); err != nil {
			return err
		}
	}
	w.dec.Token() // }
	return nil
}

// text checks a string (a key or a value) that started at offset start.
func (w *jsonWalker) text(path, s string, start int64) *FieldError {
	if w.bad >= 0 && int64(w.bad) >= start && int64(w.bad) < w.dec.InputOffset() {
		return &FieldError{Field: path, Reason: "is not UTF-8 text"}
	}
	if strings.ContainsRune(s, 0) {
		return &FieldError{Field: path, Reason: "holds a NUL character (\\u0000)"}
	}
	if w.maxString > 0 && len(s) > w.maxString {
		return &FieldError{Field: path, Reason: fmt.Sprintf("is %d bytes long; at most %d", len(s), w.maxString)}
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonFields maps the JSON names of a struct's fields, those of embedded structs
// promoted as encoding/json promotes them, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := deref(f.Type); et.Kind() == reflect.Struct {
				for k, v := range jsonFields(et) {
					if _, taken := out[k]; !taken {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// checkText refuses a form or query value that is not UTF-8, holds NUL, or is longer
// than max characters (0: any length).
func checkText(field, s string, max int) *FieldError {
	switch {
	case !utf8.ValidString(s):
		return &FieldError{Field: field, Reason: "is not UTF-8 text"}
	case strings.ContainsRune(s, 0):
		return &FieldError{Field: field, Reason: "holds a NUL character"}
	case max > 0 && utf8.RuneCountInString(s) > max:
		return &FieldError{Field: field, Reason: "is over " + strconv.Itoa(max) + " characters"}
	}
	return nil
}
