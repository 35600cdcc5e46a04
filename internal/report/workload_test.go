package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/golden"
	"github.com/llmbench/llmbench/internal/locale"
)

// TestWorkloadGolden: the workload section of runs recorded against the built-in
// emulator (llmbench run --turns 5 --concurrency 4; --turns 5 --rate 4 --requests 4;
// --trace synthetic-trace-2k.jsonl --trace-speed 50 against llmbench sim --preset
// h100-8b-fp16 --speed 20) in every format and both languages.
func TestWorkloadGolden(t *testing.T) {
	for _, c := range []struct {
		run  string
		opts Options
		file string
	}{
		{"workload-sessions-run.json", Options{Format: "text"}, "workload-sessions.txt.golden"},
		{"workload-sessions-run.json", Options{Format: "md"}, "workload-sessions.md.golden"},
		{"workload-sessions-run.json", Options{Format: "html"}, "workload-sessions.html.golden"},
		{"workload-sessions-run.json", Options{Format: "html", Lang: "ja"}, "workload-sessions.ja.html.golden"},
		{"workload-rate-sessions-run.json", Options{Format: "text"}, "workload-rate-sessions.txt.golden"},
		{"workload-trace-run.json", Options{Format: "text", Lang: "ja"}, "workload-trace.ja.txt.golden"},
	} {
		t.Run(c.file, func(t *testing.T) {
			golden.File(t, filepath.Join("testdata", c.file), []byte(render(t, readFixture(t, c.run), c.opts)))
		})
	}
}

// TestWorkloadSection: what the section must say of a sessions run — each turn's
// history and cache against the ideal, the achieved share, and the sessions'
// throughput — and that a run without a workload has no section.
func TestWorkloadSection(t *testing.T) {
	got := render(t, readFixture(t, "workload-sessions-run.json"), Options{Format: "text"})
	for _, want := range []string{
		"sessions of 5 turns (64-token user messages, think 0s)",
		"cache hits 68% of 8,945 prompt tokens, ideal 68% (100% of the ideal) from usage's cached_tokens",
		"4 of 8 sessions answered every turn, 0.67 sessions/s",
		"   5         8             445.0   368.0         368.0        83%          83%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the sessions report lacks %q", want)
		}
	}
	rate := render(t, readFixture(t, "workload-rate-sessions-run.json"), Options{Format: "text"})
	if !strings.Contains(rate, "a rate is sessions a second, each of 5 turns") || strings.Contains(rate, "1,024 → 24 tokens") {
		t.Errorf("the rate plan line of a sessions run does not say its rates are sessions:\n%s", rate)
	}
	for _, f := range []string{"text", "md", "html"} {
		if plain := render(t, readFixture(t, "rate-run.json"), Options{Format: f}); strings.Contains(plain, locale.T("en", "workload_sub")) {
			t.Errorf("%s: a run of random words has a workload section", f)
		}
	}
}
