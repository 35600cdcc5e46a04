package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// workloadData is the project's workload test data (internal/workload/testdata).
func workloadData(name string) string {
	return filepath.Join("..", "..", "internal", "workload", "testdata", name)
}

// runWorkloadCmd runs llmbench run with args, writing the document and events log to
// a temporary directory, and returns the document, the events log and the output.
func runWorkloadCmd(t *testing.T, args ...string) (*rundoc.Run, string, string) {
	t.Helper()
	dir := t.TempDir()
	out, events := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.events")
	got, err := runCmd(t, append([]string{"run", "--no-calibrate", "--no-progress", "-o", out, "--events", events}, args...)...)
	if err != nil {
		t.Fatalf("run %q: %v\n%s", args, err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := runCmd(t, "report", "--rescore", events, out); err != nil || !strings.Contains(res, "Every figure of") {
		t.Errorf("report --rescore of %q: %v\n%s", args, err, res)
	}
	return doc, events, got
}

// The workloads' figures are checked whatever a loaded shared machine does to a cell's
// verdict (a late client invalidates a window, rightly, and moves none of them).

// TestRunQuickSessionsCacheHitsRise: the README's "llmbench run --quick --turns 5"
// against the built-in emulator, no GPU: in every cell each turn finds more of its
// history cached than the turn before, the server's cache hits are the ideal within
// 2%, the report shows the turns, and the events log re-scores to every figure.
func TestRunQuickSessionsCacheHitsRise(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three 8-second cells")
	}
	doc, _, out := runWorkloadCmd(t, "--quick", "--turns", "5")
	if !strings.Contains(out, "sessions of 5 turns") || !strings.Contains(out, "Prompt (history)") {
		t.Errorf("the report has no workload section:\n%s", out)
	}
	if len(doc.Decode) != 3 {
		t.Fatalf("%d cells, want --quick's 3", len(doc.Decode))
	}
	for _, c := range doc.Decode {
		w := c.Workload
		if w == nil || w.CacheAchieved == nil || len(w.Turns) != 5 {
			t.Fatalf("cell 0×%d: %s (%s), workload %+v", c.Concurrency, c.Status, c.Reason, w)
		}
		if math.Abs(*w.CacheAchieved-1) > 0.02 {
			t.Errorf("cell 0×%d: cache hits %.4f of the ideal", c.Concurrency, *w.CacheAchieved)
		}
		prev := -1.0
		for _, tf := range w.Turns {
			if tf.Requests == 0 {
				break // the window ended before any session reached this turn
			}
			if tf.CachedTokensMean == nil || *tf.CachedTokensMean <= prev {
				t.Errorf("cell 0×%d turn %d: cached %v, not above the turn before's %.1f", c.Concurrency, tf.Turn, tf.CachedTokensMean, prev)
				break
			}
			prev = *tf.CachedTokensMean
		}
		if prev <= 0 {
			t.Errorf("cell 0×%d: no turn found anything cached", c.Concurrency)
		}
	}
}

// TestRunDatasetBothLoops: a dataset's requests in the matrix and with --rate, against
// the emulator: every request's prompt was counted by the server's tokenizer before it
// was sent and the server's usage agrees (prompt_tokens_target = prompt_tokens_mean),
// its answer the length its line asks for, and both re-score exactly.
func TestRunDatasetBothLoops(t *testing.T) {
	base := startSim(t)
	doc, _, _ := runWorkloadCmd(t, "--endpoint", base, "--dataset", workloadData("prompts.jsonl"), "--rate", "8", "--requests", "24", "--output-len", "16", "--format", "none")
	c := doc.Rate[0]
	if c.RateFigures == nil || doc.Config.Workload == nil || doc.Config.Workload.Dataset == nil {
		t.Fatalf("rate cell %s (%s); workload %+v", c.Status, c.Reason, doc.Config.Workload)
	}
	if d := doc.Config.Workload.Dataset; d.Format != "prompts" || d.Entries != 5 || len(d.SHA256) != 64 {
		t.Errorf("dataset recorded as %+v", d)
	}
	f := c.RateFigures
	if f.PromptTokensTarget != f.PromptTokensMean || f.PromptTokensMean == 0 {
		t.Errorf("prompts: %.1f tokens asked (counted before sending), %.1f by the server's usage", f.PromptTokensTarget, f.PromptTokensMean)
	}
	if f.CompletedRequests != 24 {
		t.Errorf("%d of 24 requests completed", f.CompletedRequests)
	}

	doc, _, _ = runWorkloadCmd(t, "--endpoint", base, "--dataset", workloadData("sharegpt-small.json"), "--concurrency", "2", "--duration", "2s", "--max-output", "16", "--format", "none")
	if len(doc.Decode) != 1 || doc.Decode[0].Context != 0 || doc.Decode[0].Workload == nil {
		t.Fatalf("matrix cells %+v", doc.Decode)
	}
	if d := doc.Config.Workload.Dataset; d == nil || d.Format != "sharegpt" {
		t.Errorf("dataset recorded as %+v", d)
	}
}

// TestRunPromptTextRecorded: --prompt-text fills the matrix's contexts with the file's
// text, and the document names its source.
func TestRunPromptTextRecorded(t *testing.T) {
	base := startSim(t)
	doc, _, _ := runWorkloadCmd(t, "--endpoint", base, "--prompt-text", filepath.Join("..", "..", "docs", "methodology.md"),
		"--contexts", "128", "--concurrency", "1", "--duration", "1s", "--max-output", "16", "--prefill", "", "--format", "none")
	if doc.Config.PromptSource != "text:methodology.md" {
		t.Errorf("prompt source %q, want text:methodology.md", doc.Config.PromptSource)
	}
	if len(doc.Decode) != 1 || doc.Decode[0].DecodeFigures == nil {
		t.Errorf("cells %+v: want the one measured", doc.Decode)
	}
}
