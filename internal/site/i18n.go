package site

import "net/url"

// withLang returns the request's URL (path and query) with lang set to l.
func withLang(u *url.URL, l string) string { return withParam(u, "lang", l) }
