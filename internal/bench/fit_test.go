package bench

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestFitPlan: a plan shrunk to a server's limits; a plan that fits is left alone.
func TestFitPlan(t *testing.T) {
	seedPlan := rundoc.Config{Contexts: []int{0, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K}, Concurrency: []int{1, 2, 4}, PrefillContexts: []int{8 * rundoc.K, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K}, MaxOutputTokens: 8192}
	i64 := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name              string
		kv, mml           *int64
		contexts, prefill []int
		maxOutput         int
		changes           int
	}{
		{"max_model_len 512", nil, i64(512), []int{0, 256}, []int{256}, 128, 3},
		{"max_model_len 4096", i64(1 << 20), i64(4096), []int{0, 3 * rundoc.K}, []int{3 * rundoc.K}, 1024, 3},
		{"KV smaller than max_model_len", i64(2048), i64(65536), []int{0, 1 * rundoc.K}, []int{1 * rundoc.K}, 512, 3},
		{"the seed's server", i64(72000), i64(65536), seedPlan.Contexts, seedPlan.PrefillContexts, 8192, 0},
		{"no limits known", nil, nil, seedPlan.Contexts, seedPlan.PrefillContexts, 8192, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changes := FitPlan(seedPlan, rundoc.Limits{KVCacheTokens: tc.kv, MaxModelLen: tc.mml})
			if !slices.Equal(got.Contexts, tc.contexts) || !slices.Equal(got.PrefillContexts, tc.prefill) || got.MaxOutputTokens != tc.maxOutput || len(changes) != tc.changes {
				t.Errorf("contexts %v prefill %v max output %d, changes %q", got.Contexts, got.PrefillContexts, got.MaxOutputTokens, changes)
			}
			doc := &rundoc.Run{Config: got}
			Plan(doc, rundoc.Limits{KVCacheTokens: tc.kv, MaxModelLen: tc.mml})
			if f := CheckPlan(doc); f.TooSmall() {
				t.Errorf("the fitted plan still does not fit: %+v", f)
			}
		})
	}
}

// TestCheckPlan: a plan of which nothing runs, or most is over max_model_len, is too
// small for its server; one whose KV cache skips its big cells is not.
func TestCheckPlan(t *testing.T) {
	cfg := rundoc.Config{Contexts: []int{0, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K}, Concurrency: []int{1, 2, 4, 8, 16, 32, 64, 128}, PrefillContexts: []int{8 * rundoc.K, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K}, MaxOutputTokens: 8192}
	i64 := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		kv, mml  *int64
		tooSmall bool
	}{
		{nil, i64(512), true},
		{i64(72000), i64(65536), false},
		{i64(4096), nil, true},
	} {
		doc := &rundoc.Run{Config: cfg}
		Plan(doc, rundoc.Limits{KVCacheTokens: tc.kv, MaxModelLen: tc.mml})
		if f := CheckPlan(doc); f.TooSmall() != tc.tooSmall {
			t.Errorf("kv %v mml %v: %+v, too small %v, want %v", tc.kv, tc.mml, f, f.TooSmall(), tc.tooSmall)
		}
	}
}
