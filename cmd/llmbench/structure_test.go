package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The budgets of issue 25: the command line only maps flags and prints, so it stays
// small, and a function anywhere reads at once.
const (
	commandLineBudget = 1200 // non-test lines of cmd/llmbench
	commandFuncBudget = 60   // lines of a function in cmd/llmbench
	funcBudget        = 100  // lines of a non-test function anywhere else
)

// TestCommandLineOnlyMapsFlags holds the tree to those budgets, counting lines as
// wc -l does (blank lines and comments included).
func TestCommandLineOnlyMapsFlags(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var files, cmdFiles, cmdLines int
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return err
		}
		files++
		inCmd := filepath.Dir(p) == filepath.Join(root, "cmd", "llmbench")
		limit := funcBudget
		if inCmd {
			cmdFiles++
			cmdLines += bytes.Count(src, []byte("\n"))
			limit = commandFuncBudget
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > limit {
					t.Errorf("%s: %s is %d lines, over %d", p, fn.Name.Name, n, limit)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || cmdFiles < 10 {
		t.Fatalf("walked %d files, %d of them in cmd/llmbench: the walk missed the tree", files, cmdFiles)
	}
	if cmdLines > commandLineBudget {
		t.Errorf("cmd/llmbench has %d non-test lines, over %d: move what is not flags or printing to the package that owns it", cmdLines, commandLineBudget)
	}
	t.Logf("%d files; cmd/llmbench: %d files, %d lines", files, cmdFiles, cmdLines)
}
