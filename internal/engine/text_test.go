package engine

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextSaysUnknown: what the server did not say is "unknown", optional lines
// appear only when set, and the notes follow the facts.
func TestWriteTextSaysUnknown(t *testing.T) {
	build, kv := "b123", int64(1024)
	var b bytes.Buffer
	WriteText(&b, "http://h:1", &Info{Engine: VLLM, Build: &build, KVCacheTokens: &kv, Notes: []string{"a note"}})
	out := b.String()
	for _, want := range []string{"endpoint:         http://h:1\n", "build:            b123\n", "KV cache tokens:  1024\n",
		"version:          unknown\n", "tokenize:         none found", "\nnotes:\n  - a note\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "preset:") || strings.Contains(out, "models:") {
		t.Errorf("unset optional lines shown:\n%s", out)
	}
}
