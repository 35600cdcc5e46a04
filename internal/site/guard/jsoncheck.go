package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// CheckJSON refuses what encoding/json would read one way and a strict parser (or the
// database) another, naming the field at fault: bytes that are not UTF-8 (Go turns
// them into U+FFFD, PostgreSQL refuses them), NUL characters (PostgreSQL cannot store
// them in text), a key given twice, or in two spellings that differ only in case
// ({"id":"a","ID":"b"} is "b" to Go, "a" to others), a key that matches a field of typ
// only by ignoring case, strings over maxString bytes, nesting over maxDepth, a lone
// UTF-16 surrogate escape (\ud800: Go reads U+FFFD, other parsers refuse it), an
// array longer than the largest plan allows (arrayBound), an object of more than
// MaxObjectKeys keys, a time that is not RFC 3339
// text, and anything after the first JSON value (a stray ] or } that json.Decoder's
// More does not see). It walks the document once, in time linear in its size.
func CheckJSON(doc []byte, typ reflect.Type, maxString int) *FieldError {
	bad := -1
	if !utf8.Valid(doc) {
		bad = firstInvalidUTF8(doc)
	}
	w := newWalker(doc, bad, maxString)
	if err := w.value("", typ, 0); err != nil {
		return err
	}
	if bad >= 0 {
		return &FieldError{Reason: fmt.Sprintf("byte %d is not UTF-8", bad)}
	}
	if !w.broken {
		rest := doc[w.dec.InputOffset():]
		if more := bytes.TrimLeft(rest, " \t\r\n"); len(more) > 0 {
			at := len(doc) - len(more)
			return &FieldError{Reason: fmt.Sprintf("the body holds more after its JSON value (from byte %d): send one document", at)}
		}
	}
	return nil
}

// pathAt names the value of doc that ends at byte offset (where encoding/json reports
// a type error), with array indices (decode[3].total_tok_s), or "" when none does.
func pathAt(doc []byte, typ reflect.Type, offset int64) string {
	w := newWalker(doc, -1, 0)
	w.target = offset
	w.value("", typ, 0)
	return w.found
}

func newWalker(doc []byte, bad, maxString int) *jsonWalker {
	w := &jsonWalker{doc: doc, dec: json.NewDecoder(bytes.NewReader(doc)), bad: bad, maxString: maxString}
	w.dec.UseNumber()
	return w
}

const maxDepth = 32

// MaxObjectKeys bounds the keys of any one object, as arrayBound bounds arrays: an
// extension object of 150,000 keys was accepted and served back whole (issue 37). The
// largest object of schema v1 (a decode cell with its figures and extensions) has
// about a hundred (schemaKeys), so 256 leaves room for what later versions add. A
// longer object is refused at its 257th key, before the rest is read.
const MaxObjectKeys = 256

// schemaKeys is how many keys the largest object of a run document can have: the most
// JSON fields of any struct that rundoc.Run holds.
var schemaKeys = sync.OnceValue(func() int { return mostFields(reflect.TypeOf(rundoc.Run{}), map[reflect.Type]bool{}) })

func mostFields(t reflect.Type, seen map[reflect.Type]bool) int {
	t = deref(t)
	switch {
	case t == nil || seen[t]:
		return 0
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map:
		return mostFields(t.Elem(), seen)
	case t.Kind() != reflect.Struct:
		return 0
	}
	seen[t] = true
	fields := jsonFields(t)
	most := len(fields)
	for _, ft := range fields {
		most = max(most, mostFields(ft, seen))
	}
	return most
}

type jsonWalker struct {
	doc       []byte
	dec       *json.Decoder
	bad       int // offset of the first byte that is not UTF-8, or -1
	maxString int
	// broken is set when the decoder met what is not JSON: the walk stops, and the
	// decoder that reads the document for real says what is wrong.
	broken bool
	// target, when > 0, asks for the path of the first value that ends at or after
	// that offset (pathAt); found is it.
	target int64
	found  string
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
	var ferr *FieldError
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			ferr = w.object(path, typ, depth)
		case '[':
			ferr = w.array(path, typ, depth)
		}
	case string:
		ferr = w.text(path, t, start)
		if ferr == nil && typ == timeType {
			if _, err := time.Parse(time.RFC3339Nano, t); err != nil {
				ferr = &FieldError{Field: path, Reason: timeReason}
			}
		}
	case nil:
	default:
		if typ == timeType {
			ferr = &FieldError{Field: path, Reason: timeReason}
		}
	}
	if w.target > 0 && w.found == "" && w.dec.InputOffset() >= w.target {
		w.found = path
	}
	return ferr
}

var timeType = reflect.TypeOf(time.Time{})

const timeReason = "must be an RFC 3339 time in a JSON string, like \"2026-11-29T00:00:00Z\""

// array reads an array's elements, refusing one longer than arrayBound allows before
// reading further.
func (w *jsonWalker) array(path string, typ reflect.Type, depth int) *FieldError {
	var elem reflect.Type
	if typ != nil && typ.Kind() == reflect.Slice {
		elem = typ.Elem()
	}
	limit, why := arrayBound(path)
	for i := 0; w.more(); i++ {
		if i == limit {
			return &FieldError{Field: path, Reason: fmt.Sprintf("has more than %d elements (%s)", limit, why)}
		}
		if err := w.value(fmt.Sprintf("%s[%d]", path, i), elem, depth+1); err != nil {
			return err
		}
	}
	w.dec.Token() // ]
	return nil
}

// arrayBound is the most elements the array at path may hold, and why: the largest
// plan bounds every array of a run document (rundoc.MaxAxis values per axis, so MaxAxis² decode
// cells), and no array of any document the site reads is longer than that.
func arrayBound(path string) (int, string) {
	switch stripIndices(path) {
	case "prefill":
		return 2 * rundoc.MaxAxis, fmt.Sprintf("a row per context of config.prefill_contexts and config.contexts, at most %d each", rundoc.MaxAxis)
	case "rate":
		return rundoc.MaxRateCells, "the most cells an open-loop run measures"
	case "notes":
		return rundoc.MaxNotes, "the most notes a run keeps"
	}
	return rundoc.MaxAxis * rundoc.MaxAxis, fmt.Sprintf("the largest plan, %d contexts × %d concurrency levels, has %d decode cells", rundoc.MaxAxis, rundoc.MaxAxis, rundoc.MaxAxis*rundoc.MaxAxis)
}

// stripIndices turns decode[3].x into decode.x.
func stripIndices(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	depth := 0
	for _, c := range path {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (w *jsonWalker) object(path string, typ reflect.Type, depth int) *FieldError {
	var fields map[string]reflect.Type
	if typ != nil && typ.Kind() == reflect.Struct {
		fields = jsonFields(typ)
	}
	seen := map[string]string{} // folded key → key as written
	for w.more() {
		if len(seen) == MaxObjectKeys {
			return &FieldError{Field: path, Reason: fmt.Sprintf("has more than %d keys (the largest object of a run document has %d)", MaxObjectKeys, schemaKeys())}
		}
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
	if loneSurrogate(w.doc[start:w.dec.InputOffset()]) {
		return &FieldError{Field: path, Reason: "holds a lone UTF-16 surrogate escape (like \\ud800): it is no character, and parsers read it differently"}
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

// fieldsOf caches jsonFields by type: the walk asks for them at every object, and
// reflecting over a struct's tags each time made a 4 MB document cost a minute.
var fieldsOf sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields, those of embedded structs
// promoted as encoding/json promotes them, to their types. The map is shared: callers
// only read it.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldsOf.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := reflectFields(t)
	fieldsOf.Store(t, m)
	return m
}

func reflectFields(t reflect.Type) map[string]reflect.Type {
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
				for k, v := range reflectFields(et) {
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

// CheckText refuses a form or query value that is not UTF-8, holds NUL, or is longer
// than max characters (0: any length).
func CheckText(field, s string, max int) *FieldError {
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

// loneSurrogate reports whether raw JSON text (one string token and what precedes it
// in the document: a comma, a colon, spaces) holds a \uD800–\uDFFF escape that is
// not half of a high-low pair.
func loneSurrogate(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // \\ \" \n …: the escaped byte is not the start of another escape
			continue
		}
		u, ok := hex4(raw, i+2)
		switch {
		case !ok:
		case u >= 0xD800 && u <= 0xDBFF:
			if lo, ok := hex4(raw, i+8); ok && i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return true
		case u >= 0xDC00 && u <= 0xDFFF:
			return true
		}
		i += 5
	}
	return false
}

// hex4 reads the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(n), err == nil
}
