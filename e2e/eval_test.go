package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// checkEval runs llmbench eval's 20-item quick subset (--limit 20 of a 40-item,
// project-written arithmetic set) against the real engine. The model has random
// weights, so its score is near 0 and not checked: the plumbing is — chat requests at
// temperature 0 through Ollama's chat template, the server's completion token counts,
// a record per item, the answers file, and a re-score that reproduces the document.
func checkEval(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	dir := t.TempDir()
	set := filepath.Join(dir, "arith.jsonl")
	var b strings.Builder
	for k := range 40 {
		fmt.Fprintf(&b, `{"id": "a%d", "question": "What is %d + %d? End with a line \"#### N\".", "answer": "%d", "scorer": "number"}`+"\n", k, k, 7, k+7)
	}
	if err := os.WriteFile(set, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "eval.json")
	printed := llmbenchCmd(t, ctx, llmbench, "eval", "--endpoint", s.base, "--model", model, "--set", set,
		"--limit", "20", "--concurrency", "4", "--max-tokens", "32", "--no-progress", "-o", out)
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if ferr := rundoc.Validate(doc); ferr != nil {
		t.Errorf("the eval document does not validate: %v", ferr)
	}
	if len(doc.Accuracy) != 1 {
		t.Fatalf("%d accuracy entries", len(doc.Accuracy))
	}
	a := doc.Accuracy[0]
	t.Logf("scored %d of %d (a random-weight model), the document's own summary:\n%s", a.Correct, a.Scored, printed)
	if a.Status != rundoc.AccuracyComplete || a.Planned != 20 || a.Scored != 20 || len(a.Items) != 20 || a.Errors != 0 {
		t.Fatalf("status %s, planned %d, scored %d, items %d, errors %d", a.Status, a.Planned, a.Scored, len(a.Items), a.Errors)
	}
	for i, it := range a.Items {
		// --limit 20 of 40 asks every other item: a1, a3, … a39.
		if want := fmt.Sprintf("a%d", 2*i+1); it.ID != want {
			t.Errorf("item %d is %s, want %s", i, it.ID, want)
		}
		if it.CompletionTokens < 1 || it.CompletionTokens > 32 || (it.Finish != "stop" && it.Finish != "length") || it.Expected != fmt.Sprint(2*i+1+7) {
			t.Errorf("item %s: %d completion tokens, finish %q, expected %q", it.ID, it.CompletionTokens, it.Finish, it.Expected)
		}
	}
	lines := countLines(t, filepath.Join(dir, a.Config.Answers))
	if lines != 20 {
		t.Errorf("the answers file has %d lines, want 20", lines)
	}
	llmbenchCmd(t, ctx, llmbench, "eval", "--rescore", out)
}

func countLines(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
	}
	return n
}
