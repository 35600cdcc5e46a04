package rundoctest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
)

// TestEveryDocumentIsNamedWithItsSource: README.md has a row for every document here,
// and names none that is not; every run document reads as one, from Read and from Path.
func TestEveryDocumentIsNamedWithItsSource(t *testing.T) {
	readme, err := os.ReadFile("docs/README.md")
	if err != nil {
		t.Fatal(err)
	}
	names := rundoctest.Names()
	if len(names) < 7 {
		t.Fatalf("%d documents embedded, want the 7 or more README.md names", len(names))
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | "); ok && strings.HasPrefix(line, "| `") {
			for _, n := range strings.Split(first, ", ") {
				rows[strings.Trim(n, "`")] = true
			}
		}
	}
	for _, n := range names {
		if !rows[n] {
			t.Errorf("%s has no row in docs/README.md saying where it came from", n)
		}
		delete(rows, n)
		b, err := rundoctest.Read(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rundoc.Decode(b); err != nil {
			t.Errorf("%s (Read): %v", n, err)
		}
		if _, err := rundoc.ReadFile(rundoctest.Path(n)); err != nil {
			t.Errorf("%s (Path): %v", n, err)
		}
	}
	for n := range rows {
		t.Errorf("docs/README.md names %s, which is not here", n)
	}
	if _, err := rundoctest.Read("no-such-run.json"); err == nil {
		t.Error("Read of a document not here gave no error")
	}
}
