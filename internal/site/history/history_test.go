package history

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/site/store"
)

func run(id, eng, version, quant string, day int, decode float64) store.HistoryRun {
	return store.HistoryRun{ID: id, Engine: eng, EngineVersion: version, Quantization: quant, GPUCount: 1,
		DecodeTokS: decode, CreatedAt: time.Date(2026, 12, day, 0, 0, 0, 0, time.UTC)}
}

// TestBuildSeriesByEngineAndFormat: one series per engine and weight format; each
// version's runs oldest first and its best the highest (the earliest of equals);
// SGLang's post-releases after their release, Ollama's release candidates before
// theirs; versions no rule reads (an empty one, a branch name, any version of an
// engine without a rule) after the others by their first run's date.
func TestBuildSeriesByEngineAndFormat(t *testing.T) {
	got := Build([]store.HistoryRun{
		run("s1", "sglang", "0.4.1.post3", "FP8", 5, 70), run("s2", "sglang", "0.4.1", "FP8", 6, 72),
		run("s3", "sglang", "0.4.1", "FP8", 4, 72), run("s4", "sglang", "0.4.1", "BF16", 1, 40),
		run("o1", "ollama", "0.12.4", "GGUF Q4_K_M", 3, 30), run("o2", "ollama", "0.12.4-rc1", "GGUF Q4_K_M", 1, 31),
		run("o3", "ollama", "", "GGUF Q4_K_M", 9, 29), run("o4", "ollama", "dev", "GGUF Q4_K_M", 2, 28),
		run("x1", "openai-compatible", "2.0", "FP8", 8, 10), run("x2", "openai-compatible", "10.0", "FP8", 7, 11),
	})
	type v struct {
		Version, Best string
		Runs          []string
		ByDate        bool
	}
	view := map[string][]v{}
	var series []string
	for _, se := range got {
		key := se.Engine + " " + se.Quantization
		series = append(series, key)
		for _, ver := range se.Versions {
			var ids []string
			for _, p := range ver.Runs {
				ids = append(ids, p.RunID)
			}
			view[key] = append(view[key], v{ver.Version, ver.Best.RunID, ids, ver.ByDate})
		}
	}
	if want := []string{"ollama GGUF Q4_K_M", "openai-compatible FP8", "sglang BF16", "sglang FP8"}; !cmp.Equal(series, want) {
		t.Fatalf("series %v, want %v", series, want)
	}
	want := map[string][]v{
		"ollama GGUF Q4_K_M": {{"0.12.4-rc1", "o2", []string{"o2"}, false}, {"0.12.4", "o1", []string{"o1"}, false},
			{"dev", "o4", []string{"o4"}, true}, {"", "o3", []string{"o3"}, true}},
		"openai-compatible FP8": {{"10.0", "x2", []string{"x2"}, true}, {"2.0", "x1", []string{"x1"}, true}},
		"sglang BF16":           {{"0.4.1", "s4", []string{"s4"}, false}},
		"sglang FP8":            {{"0.4.1", "s3", []string{"s3", "s2"}, false}, {"0.4.1.post3", "s1", []string{"s1"}, false}},
	}
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("versions (-want +got):\n%s", d)
	}
}
