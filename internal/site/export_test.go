package site

// EnglishLabels is every text of the site's own table whose Japanese differs, for the
// test that looks for English left on Japanese pages.
func EnglishLabels() map[string]string {
	out := map[string]string{}
	for k, m := range messages {
		if m[0] != m[1] {
			out[k] = m[0]
		}
	}
	return out
}
