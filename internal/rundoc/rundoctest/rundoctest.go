// Package rundoctest is the one home of the run documents that the tests of several
// packages read — the report's goldens and browser tests, the site's pages and API,
// the store, the metric registry's and rundoc's own checks. (The seed page's tables
// are internal/seed's, beside the page.) Each file is embedded from docs/ and named in
// docs/README.md with where it came from, so that no test reads another package's
// testdata by a relative path. It imports nothing of llmbench, so that rundoc's own
// tests can use it too.
package rundoctest

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
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
