package guard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// What a request's address may hold: every query value and every path segment is a
// name, an id or a number, so none needs more than rundoc.MaxName characters; a longer one
// is refused before any handler looks it up (a fuzzy catalog lookup of a 400 KB name
// costs seconds of CPU).
const (
	maxPathBytes   = 1024
	maxQueryParams = 64
)

// CheckRequest refuses a request whose address the site cannot use as text: a path or
// query value that is not UTF-8, holds NUL, or is longer than a name may be. It
// returns the field at fault ("path", or the query parameter's name).
func CheckRequest(r *http.Request) *FieldError {
	if len(r.URL.Path) > maxPathBytes {
		return &FieldError{Field: "path", Reason: "the address is too long"}
	}
	for _, seg := range strings.Split(r.URL.Path, "/") {
		if err := CheckText("path", seg, rundoc.MaxName); err != nil {
			return err
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &FieldError{Field: "query", Reason: "the query string cannot be read: " + err.Error()}
	}
	if len(q) > maxQueryParams {
		return &FieldError{Field: "query", Reason: "too many query parameters"}
	}
	for k, vs := range q {
		if err := CheckText("query", k, rundoc.MaxName); err != nil {
			return err
		}
		if len(vs) > maxQueryParams {
			return &FieldError{Field: k, Reason: "given too many times"}
		}
		for _, v := range vs {
			if err := CheckText(k, v, rundoc.MaxName); err != nil {
				return err
			}
		}
	}
	return nil
}
