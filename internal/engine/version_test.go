package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Each engine's versions in the order the engine released them, as its release tags
// and the versions its servers report spell them: vLLM's and SGLang's GitHub release
// tags (v0.10.1, v0.10.1.1, v0.4.1.post3; /version says them without the v), llama.cpp's
// b-numbered builds (build_info b6609-…; b10587 is after b6700 though it sorts
// before it as text), Ollama's tags with their release candidates (v0.12.4-rc1;
// /api/version), TGI's /info versions, TensorRT-LLM's pip versions (1.0.0rc4).
var releaseOrder = map[string][]string{
	VLLM: {"0.6.3", "0.6.3.post1", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2rc1", "0.10.2", "0.10.2+cu128", "0.10.2.post1",
		"0.11.0rc1", "0.11.0rc2", "0.11.0", "v0.11.1.dev12+g1234abc", "0.11.1rc1", "0.11.1"},
	SGLang:   {"0.4.1", "0.4.1.post3", "0.4.6.post5", "0.4.10", "0.5.0rc2", "0.5.0", "0.5.3"},
	TRTLLM:   {"0.9.0", "0.21.0", "1.0.0rc4", "1.0.0", "1.1.0rc2", "1.1.0rc2.post1", "1.2.0rc1"},
	LlamaCpp: {"b1", "b999", "b6609", "b6700", "b7312-ab12cd3", "b10587"},
	Ollama:   {"0.6.5", "0.9.6", "0.9.7-rc1", "0.9.7", "0.12.3", "v0.12.4-rc1", "0.12.4-rc9", "0.12.4-rc10", "0.12.4", "0.12.10"},
	TGI:      {"2.0.1", "2.4.1", "3.0.0", "3.3.4-dev0", "3.3.4", "3.3.6"},
}

func TestVersionsOrderAsTheirEngines(t *testing.T) {
	for eng, want := range releaseOrder {
		for seed := range uint64(20) {
			got := slices.Clone(want)
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
			slices.SortStableFunc(got, func(a, b string) int {
				c, ok := CompareVersions(eng, a, b)
				if !ok {
					t.Fatalf("%s: %q or %q does not parse", eng, a, b)
				}
				return c
			})
			if !slices.Equal(got, want) {
				t.Fatalf("%s versions sorted as\n%q, want\n%q", eng, got, want)
			}
		}
		// Each is strictly after the one before (none is taken for another).
		for i := 1; i < len(want); i++ {
			if c, _ := CompareVersions(eng, want[i-1], want[i]); c != -1 {
				t.Errorf("%s: %q vs %q = %d, want -1", eng, want[i-1], want[i], c)
			}
		}
	}
}

func TestVersionSpellingsOfOneRelease(t *testing.T) {
	if c, ok := CompareVersions("llama.cpp", "b6700", "b10587"); !ok || c != -1 {
		t.Errorf("llama.cpp (an alias): b6700 vs b10587 = %d, %v; want -1", c, ok)
	}
	for _, tc := range []struct{ eng, a, b string }{
		{VLLM, "0.11", "0.11.0"}, {VLLM, "v0.10.2", "0.10.2"}, {VLLM, "0.11.0-rc1", "0.11.0rc1"}, {SGLang, "0.4.1-post3", "0.4.1.post3"}, {TRTLLM, "1.0.0RC4", "1.0.0rc4"},
		{Ollama, "v0.12.3", "0.12.3"}, {"vLLM", "0.10.2", "v0.10.2"}, {"llama.cpp", "b6609", "b6609-1a2b3c4"}, {"TensorRT-LLM", "1.0.0rc4", "1.0.0RC4"}, {TGI, "3.3.6+sha-0a4bd5e", "3.3.6"}, {LlamaCpp, "b6609-1a2b3c4", "b6609"},
	} {
		if c, ok := CompareVersions(tc.eng, tc.a, tc.b); !ok || c != 0 {
			t.Errorf("%s: %q vs %q = %d, %v; want one release", tc.eng, tc.a, tc.b, c, ok)
		}
	}
}

func TestVersionsNoRuleReads(t *testing.T) {
	for _, tc := range []struct{ eng, v string }{
		{VLLM, ""}, {VLLM, "main"}, {VLLM, "abc1234"}, {VLLM, "0.10.1 (custom)"},
		{LlamaCpp, "b0-unknown"}, {LlamaCpp, "b0"}, {LlamaCpp, "6609"}, {LlamaCpp, "0.0.6609"},
		{Ollama, "dev"}, {Ollama, "0"}, {TGI, "latest"},
		{OpenAICompatible, "1.2.3"}, {"", "0.10.1"}, {"someengine", "b6609"},
	} {
		if _, ok := ParseVersion(tc.eng, tc.v); ok {
			t.Errorf("ParseVersion(%q, %q) read it; want no rule", tc.eng, tc.v)
		}
	}
}
