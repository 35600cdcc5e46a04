package locale

import "testing"

// TestAcceptLanguage: the page language follows the header's quality values as RFC
// 9110 reads them, not the order the tags are written in (issue 25: "en;q=0.1, ja"
// gave English when the header split by hand took the first tag it knew).
func TestAcceptLanguage(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"", EN},
		{"ja", JA},
		{"ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", JA},
		{"en;q=0.1, ja", JA},
		{"en-GB, ja;q=0.9", EN},
		{"fr-CH, fr;q=0.9, ja;q=0.5", JA},
		{"fr-CH, fr;q=0.9, en;q=0.8, ja;q=0.5", EN},
		{"de", EN},
		{"ja;q=0, en;q=0.5", EN},
		{"*", EN},
		{"JA-jp", JA},
		{"not a header ;;; q=x", EN},
	} {
		if got := Accepted(tt.header); got != tt.want {
			t.Errorf("Accept-Language %q: %s, want %s", tt.header, got, tt.want)
		}
	}
}
