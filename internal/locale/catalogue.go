package locale

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/internal/rundoc"
)

//go:embed translations/*.json
var translations embed.FS

// catalogue is every language's table, read once from translations/. The English of
// a sentence llmbench writes from a few parts (rundoc.Sentences) is the sentence's
// own; only its Japanese is in a table.
var catalogue = sync.OnceValue(func() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, lang := range Languages() {
		t, err := load(lang)
		if err != nil {
			panic(err) // the tables are part of the binary: TestCatalogueLoads
		}
		out[lang] = t
	}
	for _, s := range rundoc.Sentences() {
		if _, dup := out[EN][s.Key]; dup {
			panic("locale: " + s.Key + " is rundoc's sentence; translations/en.json must not define it")
		}
		out[EN][s.Key] = s.English
	}
	return out
})

// load reads one language's table: a JSON object of texts by key, each key once.
func load(lang string) (map[string]string, error) {
	f, err := translations.Open("translations/" + lang + ".json")
	if err != nil {
		return nil, fmt.Errorf("locale: reading the %s table: %w", lang, err)
	}
	defer f.Close()
	t, err := decodeTable(f)
	if err != nil {
		return nil, fmt.Errorf("locale: the %s table: %w", lang, err)
	}
	return t, nil
}

// decodeTable reads a JSON object of strings, refusing a key given twice (which
// encoding/json would let the last one win).
func decodeTable(r io.Reader) (map[string]string, error) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	out := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // an object's member starts with its name
		var text string
		if err := dec.Decode(&text); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s is defined twice", key)
		}
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("%s is empty", key)
		}
		out[key] = text
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}
