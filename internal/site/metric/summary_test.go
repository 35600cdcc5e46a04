package metric_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// seed is the project's copy of the seed run (internal/seed).
func seed(t *testing.T) *rundoc.Run {
	t.Helper()
	r, err := rundoc.Decode(seedcopy.RunJSON)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSummarizeSeed(t *testing.T) {
	r := seed(t)
	s := metric.Summarize(r)
	f := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	got := map[string]any{"model": s.Model, "gpu": s.GPU, "count": s.GPUCount, "profile": s.Profile, "kind": s.Kind,
		"decode": f(s.DecodeTokS), "peak": f(s.PeakTokS), "prefill32k": f(s.Prefill32KTokS), "vram": f(s.VRAMGB),
		"per_gb": fmt.Sprintf("%.2f", f(s.TokSPerGB))}
	want := map[string]any{"model": "RedHatAI/Qwen3.8-27B-INT4", "gpu": "RTX 3090", "count": 1, "profile": "speed-test",
		"kind": "measured", "decode": 48.2, "peak": 329.4, "prefill32k": 1871.0, "vram": 24.0, "per_gb": "13.72"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary of the seed (-want +got):\n%s", d)
	}
}

func TestProfileOf(t *testing.T) {
	r := seed(t)
	tests := []struct {
		name string
		edit func(c *rundoc.Config)
		want string
	}{
		{"seed", func(c *rundoc.Config) {}, "speed-test"},
		{"quick", func(c *rundoc.Config) { c.Quick = true }, "quick"},
		{"shorter", func(c *rundoc.Config) { c.DurationS = 10 }, "custom"},
		{"other order", func(c *rundoc.Config) { c.Concurrency = []int{128, 64, 32, 16, 8, 4, 2, 1} }, "speed-test"},
		{"fewer contexts", func(c *rundoc.Config) { c.Contexts = []int{0} }, "custom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := r.Config
			tt.edit(&c)
			if got := metric.ProfileOf(c); got != tt.want {
				t.Errorf("ProfileOf = %q, want %q", got, tt.want)
			}
		})
	}
}
