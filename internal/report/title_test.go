package report

import (
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestRunTitleOnCPU (issue 34 item 7): a document without a title, measured on a
// machine without a GPU, says so in both languages, never "an unknown GPU".
func TestRunTitleOnCPU(t *testing.T) {
	run := &rundoc.Run{Model: rundoc.Model{ServedName: "tiny.gguf"}, Hardware: rundoc.Hardware{Type: "cpu", CPU: &rundoc.CPU{Model: "AMD EPYC 7B13"}}}
	for lang, want := range map[string]string{"en": "tiny.gguf on CPU (AMD EPYC 7B13)", "ja": "tiny.gguf、CPU で実行 (AMD EPYC 7B13)"} {
		if got := runTitle(run, lang); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
}
