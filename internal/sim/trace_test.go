package sim

import (
	"context"
	"testing"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/workload"
)

// TestTraceReplayHitsTheIdeal: the project's Mooncake-format test trace, its prompts
// built from its hash ids (token ids on the completions route), sent in time order to
// an emulator whose cache holds everything: every request's cached tokens are the
// trace's ideal (workload.Trace.IdealCached in the emulator's blocks of 16), so equal
// hash ids reached the server as equal token blocks and nothing else was shared.
func TestTraceReplayHitsTheIdeal(t *testing.T) {
	full, err := workload.LoadMooncake("../workload/testdata/synthetic-trace-2k.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 150
	tr := &workload.Trace{Name: full.Name, BlockSize: full.BlockSize, Requests: full.Requests[:n]}
	cfg := tinyConfig(t)
	cfg.NumBlocks, cfg.MaxModelLen, cfg.MaxBatchedTokens, cfg.Speed = 40000, 8192, 8192, 1000
	_, base := testServer(t, cfg)
	c := openai.NewClient(base+"/v1", "", 1)
	ideal, ratio := tr.IdealCached(workload.CacheModel{Block: cfg.BlockSize})
	var cachedSum, promptSum int
	for i := range tr.Requests {
		ids := tr.Tokens(i, VocabSize-firstWordToken, 3)
		for j := range ids {
			ids[j] += firstWordToken // ordinary words, never EOS or a template token
		}
		var out openai.Chunk
		err := c.PostJSON(context.Background(), base+"/v1/completions", openai.CompletionRequest{
			Model: "tiny", Prompt: ids, MaxTokens: openai.Ptr(1),
		}, &out)
		if err != nil || out.Usage == nil || out.Usage.PromptTokensDetails == nil {
			t.Fatalf("request %d: %v", i, err)
		}
		got := *out.Usage.PromptTokensDetails.CachedTokens
		if got != ideal[i] || out.Usage.PromptTokens != tr.Requests[i].InputLength {
			t.Errorf("request %d (%s): %d of %d prompt tokens cached, ideal %d", i, tr.Requests[i].Where, got, out.Usage.PromptTokens, ideal[i])
		}
		cachedSum += got
		promptSum += out.Usage.PromptTokens
	}
	t.Logf("%d requests: %d of %d prompt tokens cached (%.4f; ideal %.4f)", n, cachedSum, promptSum, float64(cachedSum)/float64(promptSum), ratio)
	if ratio < 0.3 {
		t.Errorf("the first %d requests' ideal ratio is %.2f: too little sharing to test anything", n, ratio)
	}
}
