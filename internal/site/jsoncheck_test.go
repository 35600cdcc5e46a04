package site

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
		if checkJSON(doc, reflect.TypeOf(rundoc.Run{}), maxString) != nil {
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
