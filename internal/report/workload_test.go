package report

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
)

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
