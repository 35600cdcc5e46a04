package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEveryFlagIsDocumented: every flag that a command's --help lists appears in
// README.md or docs/ as --name, so a newcomer reading --help finds it explained. The
// list comes from the command tree itself, not from a hand-kept list.
func TestEveryFlagIsDocumented(t *testing.T) {
	docs := readDocs(t)
	var missing []string
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			checked++
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(docs) {
				missing = append(missing, c.CommandPath()+" --"+f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	if checked < 50 {
		t.Fatalf("only %d flags found in the command tree: the walk is broken", checked)
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d flags appear in no doc (README.md, docs/*.md):\n  %s", len(missing), checked, strings.Join(missing, "\n  "))
	}
}

// readDocs is README.md and every docs/*.md, together.
func readDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range docFiles(t, filepath.Join("..", "..")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// docFiles are the docs a newcomer reads: every docs/*.md and README.md.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found under %s: %v", root, err)
	}
	return append(files, filepath.Join(root, "README.md"))
}

// TestCalcFlagsTable: docs/calc.md's flag table has a row for every flag of llmbench
// calc (issue 26: --n-cpu-moe and --host-bandwidth were explained in prose only).
func TestCalcFlagsTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "calc.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| `--") {
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
			rows.WriteString(cell + "\n")
		}
	}
	calc, _, err := newRootCmd().Find([]string{"calc"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	calc.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		checked++
		if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(rows.String()) {
			t.Errorf("docs/calc.md's flag table has no row for --%s", f.Name)
		}
	})
	if checked < 20 {
		t.Fatalf("only %d calc flags found: the lookup is broken", checked)
	}
}
