package e2e

import (
	"testing"

	"github.com/llmbench/llmbench/internal/stats"
)

// TestJudgement checks the rule that decides the agreement comparison, so that the
// end-to-end test is known to fail when llmbench is wrong on a steady machine.
func TestJudgement(t *testing.T) {
	steadyAgree := compare(1000, 1010, 990, 0.10)   // llmbench 1000, Ollama 1000
	steadyMiss := compare(1300, 1010, 990, 0.10)    // llmbench 30% high
	unsteadyAgree := compare(1000, 1300, 700, 0.10) // Ollama itself moved 60%
	unsteadyMiss := compare(2000, 1300, 700, 0.10)  // and llmbench is far off
	if !compare(1000, 1090, 910, 0.10).steady() {
		t.Error("Ollama at ±9% of its mean should count as steady for a ±10% comparison")
	}
	// Brackets that agree around a window whose own rate moved ±19%: the engine
	// changed speed inside it (CI: 862 and 802 around llmbench's 1,034).
	jumpedInside := compare(1034, 862, 802, 0.10).within(&stats.Interval{Low: 840, High: 1230})
	if jumpedInside.steady() {
		t.Errorf("%v: counted as steady", jumpedInside)
	}
	// A figure 30% off with a narrow window of its own is a steady miss: the interval
	// cannot excuse a bias.
	biased := compare(1300, 1010, 990, 0.10).within(&stats.Interval{Low: 1290, High: 1310})
	if !biased.steady() || biased.agrees() {
		t.Errorf("%v: want a steady disagreement", biased)
	}
	tests := []struct {
		name   string
		rounds []agreement
		want   string
	}{
		{"agrees in the first steady round", []agreement{steadyAgree}, agrees},
		{"unsteady rounds are not judged", []agreement{unsteadyMiss, unsteadyAgree, steadyAgree}, agrees},
		{"a lucky unsteady round does not pass", []agreement{unsteadyAgree, unsteadyAgree, unsteadyAgree}, inconclusive},
		{"two steady misses fail", []agreement{steadyMiss, unsteadyAgree, steadyMiss}, disagrees},
		{"the only steady round missed", []agreement{unsteadyAgree, steadyMiss, unsteadyMiss}, disagrees},
		{"a miss, then agreement", []agreement{steadyMiss, steadyAgree}, agrees},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &judgement{name: "decode"}
			for _, a := range tt.rounds {
				j.record(a, a.String())
			}
			if got := j.final(); got != tt.want {
				t.Errorf("final verdict %s, want %s (rounds: %v)", got, tt.want, j.rounds)
			}
		})
	}
}
