package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// ValidateRun checks a submitted run document against schema v1 and returns it
// decoded. Extensions (fields this version does not know) are allowed — the document
// is stored as sent — but every field it knows must make sense: required fields
// present, statuses known, numbers finite and non-negative, and every cell on the
// plan's axes.
func ValidateRun(doc []byte) (*rundoc.Run, *FieldError) {
	if ferr := CheckJSON(doc, reflect.TypeOf(rundoc.Run{}), rundoc.MaxString); ferr != nil {
		return nil, ferr
	}
	var r rundoc.Run
	if err := json.Unmarshal(doc, &r); err != nil {
		return nil, DecodeError(err, doc, reflect.TypeOf(r))
	}
	if ferr := rundoc.Validate(&r); ferr != nil {
		return nil, &FieldError{Field: ferr.Field, Reason: ferr.Reason}
	}
	return &r, nil
}

// DecodeError says what encoding/json found wrong in doc (decoded into typ), naming
// the field by its JSON path with indices (decode[0].total_tok_s), as the walk of
// CheckJSON finds it at the error's offset.
func DecodeError(err error, doc []byte, typ reflect.Type) *FieldError {
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

// DecodeStrict decodes doc into v (a pointer) after CheckJSON, strings bounded by
// maxString bytes: the body of a POST other than a run document (a report).
func DecodeStrict(doc []byte, v any, maxString int) *FieldError {
	typ := reflect.TypeOf(v).Elem()
	if ferr := CheckJSON(doc, typ, maxString); ferr != nil {
		return ferr
	}
	if err := json.Unmarshal(doc, v); err != nil {
		return DecodeError(err, doc, typ)
	}
	return nil
}
