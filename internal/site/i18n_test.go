package site

import "testing"

// TestAcceptLanguage: the page language follows the header's quality values as RFC
// 9110 reads them, not the order the tags are written in (issue 25: "en;q=0.1, ja"
// gave English when the header split by hand took the first tag it knew).
func TestAcceptLanguage(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"", LangEN},
		{"ja", LangJA},
		{"ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", LangJA},
		{"en;q=0.1, ja", LangJA},
		{"en-GB, ja;q=0.9", LangEN},
		{"fr-CH, fr;q=0.9, ja;q=0.5", LangJA},
		{"fr-CH, fr;q=0.9, en;q=0.8, ja;q=0.5", LangEN},
		{"de", LangEN},
		{"ja;q=0, en;q=0.5", LangEN},
		{"*", LangEN},
		{"JA-jp", LangJA},
		{"not a header ;;; q=x", LangEN},
	} {
		if got := acceptedLang(tt.header); got != tt.want {
			t.Errorf("Accept-Language %q: %s, want %s", tt.header, got, tt.want)
		}
	}
}
