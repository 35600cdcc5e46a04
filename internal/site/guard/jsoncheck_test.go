package guard

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// FuzzCheckJSON: whatever checkJSON accepts is UTF-8, and decodes (when it decodes)
// without NUL in any string and without a key that another key of its object equals
// when case is ignored.
func FuzzCheckJSON(f *testing.F) {
	f.Add([]byte(`{"id":"a","ID":"b"}`))
	f.Add([]byte(`{"title":"a\u0000b"}`))
	f.Add([]byte("{\"model\":{\"id\":\"\xff\"}}"))
	f.Add([]byte(`{"decode":[{"total_tok_s":1,"Total_Tok_S":2}]}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if CheckJSON(doc, reflect.TypeOf(rundoc.Run{}), rundoc.MaxString) != nil {
			return
		}
		if !utf8.Valid(doc) {
			t.Fatalf("accepted bytes that are not UTF-8: %q", doc)
		}
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if strings.ContainsRune(x, 0) {
					t.Fatalf("accepted a NUL: %q", doc)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				seen := map[string]bool{}
				for k, e := range x {
					if seen[strings.ToLower(k)] || strings.ContainsRune(k, 0) {
						t.Fatalf("accepted keys equal but for case, or a NUL key: %q", doc)
					}
					seen[strings.ToLower(k)] = true
					walk(e)
				}
			}
		}
		walk(v)
	})
}

// TestObjectKeyLimitIsAboveTheSchema: the limit on an object's keys leaves room for
// every field a run document's largest object has, twice over (extensions, and what
// later versions add).
func TestObjectKeyLimitIsAboveTheSchema(t *testing.T) {
	if n := schemaKeys(); n < 40 || MaxObjectKeys < 2*n {
		t.Errorf("the largest object of a run document has %d keys; the limit %d must be at least twice that (and the count is broken under 40)", n, MaxObjectKeys)
	}
}

// TestLoneSurrogates: a \u escape of half a surrogate pair is seen, a whole pair or an
// escaped backslash is not.
func TestLoneSurrogates(t *testing.T) {
	for _, s := range []string{`\udc00`, `\ud800\u0041`, `a\ud83d`} {
		if loneSurrogate([]byte(`"`+s+`"`)) != true {
			t.Errorf("%s: not seen as a lone surrogate", s)
		}
	}
	for _, s := range []string{`\ud83d\ude00`, `\\ud800`, `\u00e9`, `plain`} {
		if loneSurrogate([]byte(`"` + s + `"`)) {
			t.Errorf("%s: taken for a lone surrogate", s)
		}
	}
}
