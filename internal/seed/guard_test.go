package seed

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A fresh clone has nothing beside it, so a path that climbs out of the repository works
// on the team's machines and in CI (which have ../shared) and fails for every user. This
// test finds such paths statically: in Go string literals, in shell scripts, and in
// Markdown links. .ci/run also runs the README's test command in a clone with nothing
// beside it, which catches what a static look cannot (a path assembled at run time).
func TestNothingReachesOutsideTheRepository(t *testing.T) {
	root := moduleRoot(t)
	var escapes []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") && name != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		var found []string
		switch {
		case path == filepath.Join(root, "internal", "seed", "guard_test.go"):
			// Its literals are the guard's own test inputs.
		case strings.HasSuffix(path, ".go"):
			found = goPathLiterals(t, path)
		case strings.HasSuffix(path, ".sh") || strings.HasSuffix(path, ".md") || filepath.Base(filepath.Dir(path)) == ".ci":
			found = textPaths(t, path)
		}
		for _, p := range found {
			if leaves(root, filepath.Dir(path), p) {
				rel, _ := filepath.Rel(root, path)
				escapes = append(escapes, rel+": "+p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the repository: %v", err)
	}
	for _, e := range escapes {
		t.Errorf("reaches outside the repository (a fresh clone has nothing there): %s", e)
	}
}

func TestTheGuardSeesAnEscape(t *testing.T) {
	root := moduleRoot(t)
	dir := filepath.Join(root, "internal", "seed")
	// Split so that this file does not itself match a search for such paths.
	for _, p := range []string{"../../../" + "shared/seed/seed-run.json", "../../../../x", "/work/" + "shared/seed/seed-run.json"} {
		if !leaves(root, dir, p) {
			t.Errorf("leaves(%q) = false, want true", p)
		}
	}
	for _, p := range []string{"../report/testdata/x.json", "testdata/seed-tables.json", "seed-run.json", "../../docs/run.md"} {
		if leaves(root, dir, p) {
			t.Errorf("leaves(%q) = true, want false", p)
		}
	}
}

// leaves says whether p, a path written in a file in dir, names something outside root.
// Absolute paths count when they name the team's shared folder; other absolute paths
// (/proc, /sys, /usr/bin) are the machine's, not a sibling checkout's.
func leaves(root, dir, p string) bool {
	if filepath.IsAbs(p) {
		return strings.Contains(p, "/shared/seed/") || strings.Contains(p, "/shared/reference/")
	}
	rel, err := filepath.Rel(root, filepath.Join(dir, p))
	return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
}

// goPathLiterals returns the file's string literals that look like file paths climbing
// out of their folder, or naming the team's shared folder.
func goPathLiterals(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && (strings.HasPrefix(s, "../") || strings.Contains(s, "/shared/")) && !strings.ContainsAny(s, " \n") {
			out = append(out, s)
		}
		return true
	})
	return out
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)#\s]+)`)
	shellPath = regexp.MustCompile(`(?:^|[\s"'=])((?:\.\./)+[^\s"';)]*)`)
)

func textPaths(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	var out []string
	re := shellPath
	if strings.HasSuffix(path, ".md") {
		re = mdLink
	}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(m[1], "://") {
			out = append(out, m[1])
		}
	}
	return out
}

func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Dir(RunPath()))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above internal/seed")
		}
		dir = parent
	}
}
