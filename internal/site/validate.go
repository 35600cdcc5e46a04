package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// FieldError says which field of a submitted document is wrong and why. It is the
// body of every 400 the API returns, so a client can point at the exact field.
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// key and args give Reason in the site's texts, for pages that show it in their
	// language (fieldErrorT); Reason is its English, which the API answers.
	key  string
	args []any
}

// fieldErrorT is a FieldError whose reason is the site's text key.
func fieldErrorT(field, key string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: T(LangEN, key, args...), key: key, args: args}
}

// ReasonIn is the reason in lang: the site's text where it has one, with any
// argument that is a sentence llmbench writes in lang too (docText: why an SLO cannot
// be read), else the English.
func (e *FieldError) ReasonIn(lang string) string {
	if e.key == "" {
		return e.Reason
	}
	args := slices.Clone(e.args)
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = docText(lang, s)
		}
	}
	return T(lang, e.key, args...)
}

// In is the error as a page in lang shows it: the parameter, then the reason in lang.
func (e *FieldError) In(lang string) string {
	if e.Field == "" {
		return e.ReasonIn(lang)
	}
	return T(lang, "qerr_field", e.Field, e.ReasonIn(lang))
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// The limits of a document's fields are the run document's own (rundoc.Validate);
// the site bounds its queries and its JSON walk by the same.
const (
	maxAxis      = rundoc.MaxAxis
	maxTokens    = rundoc.MaxTokens
	maxConc      = rundoc.MaxConc
	maxName      = rundoc.MaxName
	maxString    = rundoc.MaxString
	maxNotes     = rundoc.MaxNotes
	maxSeconds   = rundoc.MaxSeconds
	maxRateCells = rundoc.MaxRateCells
	maxRPS       = rundoc.MaxRPS
)

// ValidateRun checks a submitted run document against schema v1 and returns it
// decoded. Extensions (fields this version does not know) are allowed — the document
// is stored as sent — but every field it knows must make sense: required fields
// present, statuses known, numbers finite and non-negative, and every cell on the
// plan's axes.
func ValidateRun(doc []byte) (*rundoc.Run, *FieldError) {
	if ferr := checkJSON(doc, reflect.TypeOf(rundoc.Run{}), maxString); ferr != nil {
		return nil, ferr
	}
	var r rundoc.Run
	if err := json.Unmarshal(doc, &r); err != nil {
		return nil, jsonError(err, doc, reflect.TypeOf(r))
	}
	if ferr := rundoc.Validate(&r); ferr != nil {
		return nil, &FieldError{Field: ferr.Field, Reason: ferr.Reason}
	}
	return &r, nil
}

// jsonError says what encoding/json found wrong in doc (decoded into typ), naming the
// field by its JSON path with indices (decode[0].total_tok_s), as the walk of
// checkJSON finds it at the error's offset.
func jsonError(err error, doc []byte, typ reflect.Type) *FieldError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(doc)) == 0:
		return &FieldError{Reason: "empty body: send a JSON document"}
	case errors.As(err, &te):
		field := pathAt(doc, typ, te.Offset)
		if field == "" {
			field = goFieldPath(te.Field)
		}
		want := jsonKind(te.Type.Kind().String())
		if want == "number" && strings.HasPrefix(te.Value, "number") && strings.HasPrefix(te.Type.Kind().String(), "int") && strings.ContainsAny(te.Value, ".eE") {
			return &FieldError{Field: field, Reason: fmt.Sprintf("must be a whole number, not %s", strings.TrimPrefix(te.Value, "number "))}
		}
		if want == "number" && strings.HasPrefix(te.Value, "number") {
			return &FieldError{Field: field, Reason: fmt.Sprintf("%s is out of range", te.Value)}
		}
		return &FieldError{Field: field, Reason: fmt.Sprintf("must be a JSON %s, not %s", want, te.Value)}
	case errors.As(err, &se):
		return &FieldError{Reason: fmt.Sprintf("not valid JSON (at byte %d: %v)", se.Offset, err)}
	case errors.Is(err, io.EOF):
		return &FieldError{Reason: "empty body: send a JSON document"}
	default:
		var pe *time.ParseError
		if errors.As(err, &pe) {
			return &FieldError{Field: "created_at", Reason: "must be an RFC 3339 time like 2026-11-29T00:00:00Z"}
		}
		return &FieldError{Reason: "not a run document: " + err.Error()}
	}
}

// goFieldPath is encoding/json's name of a field without the Go names of embedded
// structs (decode.DecodeFigures.total_tok_s → decode.total_tok_s).
func goFieldPath(field string) string {
	var parts []string
	for _, p := range strings.Split(field, ".") {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "number"
	case goKind == "slice":
		return "array"
	case goKind == "struct", goKind == "map", goKind == "ptr":
		return "object"
	default:
		return goKind
	}
}
