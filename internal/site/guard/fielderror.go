// Package guard is what stands between the site and what comes in: the verdict on a
// field (FieldError), strict JSON (a run document checked against schema v1, and for
// what parsers read differently), a request's address checked as text, rate limits
// (in memory, or in the database across instances), bounded body reading, API tokens,
// and a report's publication. Pages and the API share it; it renders nothing.
package guard

import (
	"slices"

	"github.com/llmbench/llmbench/internal/locale"
)

// FieldError says which field of a submitted document or a query is wrong and why. It
// is the body of every 400 the API returns, so a client can point at the exact field.
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// Key and Args give Reason in the catalogue (Refuse), for pages that show it in
	// their language; Reason is its English, which the API answers.
	Key  string `json:"-"`
	Args []any  `json:"-"`
}

// Refuse is a FieldError whose reason is the catalogue's text key.
func Refuse(field, key string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: locale.T(locale.EN, key, args...), Key: key, Args: args}
}

// ReasonIn is the reason in lang: the catalogue's text where it has one, with any
// argument that is a sentence llmbench writes in lang too (locale.DocText: why an SLO
// cannot be read), else the English.
func (e *FieldError) ReasonIn(lang string) string {
	if e.Key == "" {
		return e.Reason
	}
	args := slices.Clone(e.Args)
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = locale.DocText(lang, s)
		}
	}
	return locale.T(lang, e.Key, args...)
}

// In is the error as a page in lang shows it: the parameter, then the reason in lang.
func (e *FieldError) In(lang string) string {
	if e.Field == "" {
		return e.ReasonIn(lang)
	}
	return locale.T(lang, "qerr_field", e.Field, e.ReasonIn(lang))
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}
