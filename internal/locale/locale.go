// Package locale is llmbench's one catalogue of texts, in every language it speaks
// (English and Japanese): the reports', the site's, and the Japanese of the
// sentences llmbench writes into run documents in English. Each language's table is
// one file (translations/en.json, ja.json), read by one loader that refuses a key
// defined twice; TestEveryKeyInBothLanguages fails on a key either table lacks. It
// also says those sentences in a language (sentences.go) and finds the reader's
// language on the web (web.go).
package locale

import (
	"fmt"
	"maps"
	"strings"
)

// The languages every text exists in.
const (
	EN = "en"
	JA = "ja"
)

// Languages lists the languages every text exists in, English first.
func Languages() []string { return []string{EN, JA} }

// Norm maps a language tag to one the catalogue speaks: "ja", "ja-JP" → "ja";
// anything else → "en".
func Norm(lang string) string {
	if strings.HasPrefix(strings.ToLower(lang), JA) {
		return JA
	}
	return EN
}

// T returns the text key in lang, formatted with args when there are any. An unknown
// key comes back as itself, so that a missing text shows instead of vanishing.
func T(lang, key string, args ...any) string {
	s, ok := catalogue()[Norm(lang)][key]
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// Has reports whether the catalogue has a text for key.
func Has(key string) bool {
	_, ok := catalogue()[EN][key]
	return ok
}

// Texts is a copy of lang's table, text by key, for tests that look at every text.
func Texts(lang string) map[string]string { return maps.Clone(catalogue()[Norm(lang)]) }
