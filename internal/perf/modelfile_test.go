package perf

import (
	"math"
	"path/filepath"
	"testing"
)

// TestHFConfigMatchesCatalog reads config.json files and checks that the computed
// parameter counts and KV sizes agree with the catalog's published figures.
func TestHFConfigMatchesCatalog(t *testing.T) {
	c := MustLoad()
	for _, id := range []string{"qwen3-32b", "qwen3.8-27b", "deepseek-v2-lite", "gemma-3-27b"} {
		t.Run(id, func(t *testing.T) {
			got, err := ModelFromHFConfig(filepath.Join("testdata", id, "config.json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.Model(id)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(got.ParamsB-want.ParamsB) / want.ParamsB; d > 0.02 {
				t.Errorf("params %.2fB from config, catalog %.2fB (%.1f%% apart)", got.ParamsB, want.ParamsB, d*100)
			}
			if want.ActiveParamsB > 0 {
				if d := math.Abs(got.ActiveParamsB-want.ActiveParamsB) / want.ActiveParamsB; d > 0.05 {
					t.Errorf("active params %.2fB from config, catalog %.2fB", got.ActiveParamsB, want.ActiveParamsB)
				}
			}
			kv, _ := c.KVDtype("fp16")
			a, b := Setup{Model: got, KV: kv}, Setup{Model: want, KV: kv}
			if a.KVBytesPerToken() != b.KVBytesPerToken() || math.Abs(a.KVBytesPerSequence()-b.KVBytesPerSequence()) > 1 {
				t.Errorf("KV bytes per token/sequence %.0f/%.0f from config, catalog %.0f/%.0f",
					a.KVBytesPerToken(), a.KVBytesPerSequence(), b.KVBytesPerToken(), b.KVBytesPerSequence())
			}
		})
	}
}

func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(`{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}`))
	f.Add([]byte(`{"text_config": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "linear_num_value_heads": 2, "full_attention_interval": 2}}`))
	f.Add([]byte(`{"num_hidden_layers": 1, "hidden_size": 8, "num_attention_heads": 3, "kv_lora_rank": 4, "sliding_window": 2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseHFConfig(b)
		if err != nil {
			return
		}
		if m.Layers <= 0 || m.Hidden <= 0 || m.Heads <= 0 || m.KVHeads <= 0 {
			t.Fatalf("accepted a config without a usable shape: %+v", m)
		}
	})
}
