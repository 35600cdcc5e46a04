package e2e

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// checkCapacitySentences: llmbench run against the real engine ends with how many
// users it serves, one sentence per context (issue 36): the last lines of its output
// are the heading and the sentences internal/capacity derives from the document it
// wrote, and every row whose first cell is valid is answered.
func checkCapacitySentences(t *testing.T, out string, run *rundoc.Run) {
	t.Helper()
	want := report.CapacitySentences(run, report.Options{})
	if len(want) != len(run.Config.Contexts) {
		t.Fatalf("%d capacity sentences for %d contexts: %q", len(want), len(run.Config.Contexts), want)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < len(want)+1 {
		t.Fatalf("run printed %d lines, too few for the capacity answer:\n%s", len(lines), out)
	}
	tail := lines[len(lines)-len(want)-1:]
	if !strings.HasPrefix(tail[0], "How many users (--capacity tok/s=20,ttft=1s):") {
		t.Errorf("run's output does not end with the capacity answer; its last lines:\n%s", strings.Join(tail, "\n"))
	}
	for i, w := range want {
		if got := strings.TrimSpace(tail[i+1]); got != w {
			t.Errorf("capacity line %d = %q, want %q", i+1, got, w)
		}
		ctx := run.Config.Contexts[i]
		if !strings.HasPrefix(w, "At "+rundoc.FormatTokens(ctx)+" context: ") {
			t.Errorf("capacity sentence %q is not context %s's", w, rundoc.FormatTokens(ctx))
		}
		// A row whose first cell is valid has an answer (one loose cell is allowed above).
		if first := run.Cell(ctx, run.Config.Concurrency[0]); first != nil && first.Status == rundoc.StatusValid && strings.Contains(w, "not measured (") {
			t.Errorf("capacity sentence %q: context %s's first cell is valid, yet no answer", w, rundoc.FormatTokens(ctx))
		}
		t.Logf("capacity: %s", w)
	}
}
