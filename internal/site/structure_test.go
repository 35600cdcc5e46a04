package site

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// floors are the site's packages from the ground up (paths under internal/site; "."
// is this package): a package imports only packages on floors below its own, so that
// no import points up or sideways, and a new package must be given its floor here.
var floors = [][]string{
	{"metric"},
	{"store"},
	{"store/storetest", "wire", "pagecache"},
	{"guard", "client"},
	{"board", "calc", "history"},
	{"api"},
	{"ui"},
	{"."},
}

const sitePath = "github.com/llmbench/llmbench/internal/site"

// TestNoImportPointsUp (issue 39): every import of one of the site's packages by
// another, in their code (not their tests), goes to a lower floor.
func TestNoImportPointsUp(t *testing.T) {
	floor := map[string]int{}
	for i, ps := range floors {
		for _, p := range ps {
			floor[p] = i
		}
	}
	fset := token.NewFileSet()
	imports := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		from, ok := floor[pkg]
		if !ok {
			t.Errorf("package %s is on no floor of the site: give it one in floors", pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			rest, ok := strings.CutPrefix(path, sitePath)
			if !ok || path != sitePath && !strings.HasPrefix(rest, "/") {
				continue
			}
			to := strings.TrimPrefix(rest, "/")
			if to == "" {
				to = "."
			}
			imports++
			if at, known := floor[to]; !known || at >= from {
				t.Errorf("%s imports site/%s, on floor %d, from floor %d: an import must go down", p, to, at, from)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if imports < 20 {
		t.Fatalf("found %d imports between the site's packages: the walk missed them", imports)
	}
}

// siteBudget is what this package may hold: wiring (options, routes, middleware,
// serving), not pages, the API or their logic.
const siteBudget = 500

// TestSiteIsWiringOnly (issue 39): the non-test lines of this package, counted as wc -l
// does, stay within siteBudget.
func TestSiteIsWiringOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines == 0 || lines > siteBudget {
		t.Errorf("internal/site holds %d non-test lines, want 1 to %d: what is not wiring belongs in its own package", lines, siteBudget)
	}
	t.Logf("internal/site: %d non-test lines", lines)
}
