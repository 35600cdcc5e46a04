// Package rundoctest is the one home of the run documents that the tests of several
// packages read — the report's goldens and browser tests, the site's pages and API,
// the store, the metric registry's and rundoc's own checks — and of the seed page's
// tables the renderers must reproduce. Each file is embedded from docs/ and named in
// docs/README.md with where it came from, so that no test reads another package's
// testdata by a relative path. It imports nothing of llmbench, so that rundoc's own
// tests can use it too.
package rundoctest

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"testing"
)

//go:embed docs/*.json
var docs embed.FS

// Read is the document name ("rate-run.json"), a copy the caller may change, as
// os.ReadFile gives it.
func Read(name string) ([]byte, error) {
	b, err := docs.ReadFile(path.Join("docs", name))
	if err != nil {
		return nil, fmt.Errorf("rundoctest: %w", err)
	}
	return b, nil
}

// Names lists the documents, in lexical order.
func Names() []string {
	entries, err := fs.ReadDir(docs, "docs")
	if err != nil {
		panic(err) // the directory is embedded: it is there
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Path is the document's file in this checkout, for tests that hand a path to a
// command or to rundoc.ReadFile. It is found from this source file, so it works from
// any package's working directory.
func Path(name string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("rundoctest: no caller information to locate docs/")
	}
	return filepath.Join(filepath.Dir(file), "docs", name)
}

// SeedTables are the seed page's tables and words (seed-tables.json, copied from
// internal/seed/seed-page.txt): the renderers must reproduce every one of them from
// the seed's run document.
type SeedTables struct {
	Header  []string   `json:"header"`
	Notes   []string   `json:"notes"`
	Prefill [][]string `json:"prefill"` // context, prompt tok/s, TTFT
	Matrix  [][]string `json:"matrix"`  // rows 0, 16K, 32K, 56K; columns 1 … 128: "48.2 (85 ms)"
	All     [][]string `json:"all"`     // All measurements, the seed's 12 columns
}

// LoadSeed reads seed-tables.json, failing t when it cannot.
func LoadSeed(t testing.TB) SeedTables {
	t.Helper()
	var s SeedTables
	b, err := Read("seed-tables.json")
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatalf("rundoctest: seed-tables.json: %v", err)
	}
	return s
}
