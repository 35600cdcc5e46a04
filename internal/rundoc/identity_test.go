package rundoc

import "testing"

func TestModelName(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		path     bool
	}{
		{"/home/me/models/Qwen3-0.6B-Q8_0.gguf", "Qwen3-0.6B-Q8_0.gguf", true},
		{"../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", true},
		{"./tiny.gguf", "tiny.gguf", true},
		{"~/m/x.gguf", "x.gguf", true},
		{`C:\Users\me\models\x.gguf`, "x.gguf", true},
		{"models/x.gguf", "x.gguf", true},
		{"/srv/model", "model", true},
		{"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", false},
		{"bartowski/Qwen3-8B-GGUF", "bartowski/Qwen3-8B-GGUF", false},
		{"llama3.1:latest", "llama3.1:latest", false},
		{"x.gguf", "x.gguf", false},
		{"openrouter/replay", "openrouter/replay", false},
	} {
		got, path := ModelName(tc.in)
		if got != tc.want || path != tc.path {
			t.Errorf("ModelName(%q) = %q, %v; want %q, %v", tc.in, got, path, tc.want, tc.path)
		}
	}
}
