package locale

import (
	"net/http"

	"golang.org/x/text/language"
)

// Cookie is the cookie that remembers a reader's language once chosen with ?lang=.
const Cookie = "llmbench_lang"

// FromRequest is the language of a page asked for by r: ?lang=, the cookie, then
// Accept-Language; English by default.
func FromRequest(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == EN || l == JA {
		return l
	}
	if c, err := r.Cookie(Cookie); err == nil && (c.Value == EN || c.Value == JA) {
		return c.Value
	}
	return Accepted(r.Header.Get("Accept-Language"))
}

// pageLangs are the languages pages are written in, the default first.
var pageLangs = language.NewMatcher([]language.Tag{language.English, language.Japanese})

// Accepted is the language an Accept-Language header prefers, by its quality values
// (RFC 9110: "en;q=0.1, ja" prefers Japanese, "ja;q=0" refuses it); English where it
// names neither or cannot be read.
func Accepted(header string) string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return EN
	}
	_, i, conf := pageLangs.Match(tags...)
	if conf == language.No || i != 1 {
		return EN
	}
	return JA
}

// Remember sets the cookie that keeps a language chosen with ?lang= for later pages.
// Only a page's rendering calls it, so a page sets the cookie once.
func Remember(w http.ResponseWriter, r *http.Request) {
	if l := r.URL.Query().Get("lang"); l == EN || l == JA {
		http.SetCookie(w, &http.Cookie{Name: Cookie, Value: l, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, HttpOnly: true})
	}
}

// CookieOnly says whether every cookie an answer to r sets is the language cookie
// that r's own ?lang= asks for (Remember): an answer that sets it may be kept for
// other readers of the same URL, since it is theirs too. Without this, every page
// reached through a link or form that carries ?lang= — all of them after a switch —
// was computed again for each reader.
func CookieOnly(h http.Header, r *http.Request) bool {
	for _, line := range h.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil || c.Name != Cookie || c.Value != r.URL.Query().Get("lang") {
			return false
		}
	}
	return true
}
