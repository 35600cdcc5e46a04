package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// longOutput is longer than a cell's window at this model's speed (~1,100 tok/s a
// stream here: ~3 s a request against a 4 s window, a second stream sharing the
// cores), as the default 8,192 tokens are on a GPU at 50 tok/s against 30 s.
const longOutput = 3000

// checkLongRequests runs a cell whose requests outlast its window, as a user's
// default plan does against Ollama: Ollama counts a request's tokens only when it
// ends, so none of the window's would be counted. The cell learns the tokens per
// chunk from short requests after its window (chunks_calibrated) and is valid. Before
// that, the same run was invalid: "nothing the server said verifies the client's
// count", which was half the tokens (one a chunk) on this model's multi-byte text.
func checkLongRequests(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	doc := filepath.Join(t.TempDir(), "long.json")
	llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", s.base, "--model", model,
		"--contexts", "0", "--concurrency", "2", "--prefill", "", "--duration", "4s",
		"--max-output", strconv.Itoa(longOutput), "--kv-capacity", strconv.Itoa(kvTokens),
		"--out", doc, "--no-progress", "--format", "none")
	run, err := rundoc.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	c := run.Cell(0, 2)
	if c == nil || c.CellDetail == nil {
		t.Fatalf("cell 0 × 2 = %+v, want a measured cell", c)
	}
	t.Logf("cell %s; %d calibration requests", cellSummary(c), c.CalibrationRequests)
	switch {
	case boundTooLoose(c):
		// A slow machine leaves the calibration fewer requests in its budget: the
		// count is bounded, and the bound stated, just beyond 3%.
		t.Logf("not valid on its stated bound (count ±%.1f%%, TPOT ±%.1f%%): see boundTooLoose", 100*deref0(c.TokenCountBound), 100*deref0(c.TPOTBound))
	case !measuredRight(c):
		t.Errorf("requests outlasting the window: status %s (%s), want valid", c.Status, c.Reason)
	}
	if !slices.Contains(c.Flags, "chunks_calibrated") || c.CalibrationRequests == 0 {
		t.Errorf("flags %v, %d calibration requests: want the count calibrated after the window", c.Flags, c.CalibrationRequests)
	}
	if r := chunkRatio(c); !(r > multiTokenChunks) {
		t.Errorf("chunks carried %.2f tokens on average, want over %.2f: the calibrated count should see the multi-byte text", r, multiTokenChunks)
	}
}
