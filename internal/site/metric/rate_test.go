package metric_test

import (
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
)

func ms(v float64) *float64 { return &v }

// TestRateCondKey: a key names its conditions canonically (those of the report
// package's fixture rate-run.json here) and reads back as the same conditions.
func TestRateCondKey(t *testing.T) {
	c := metric.RateCond{OutputLen: 64, Arrival: "poisson", LenDist: "fixed", MaxConcurrency: 8, Requests: 20,
		SLO: &rundoc.SLO{TTFTMs: ms(1000), TPOTMs: ms(60)}}
	noSLO := c
	noSLO.SLO = nil
	if got, want := c.Key(), "out=64;arrival=poisson;len=fixed;maxconc=8;requests=20;slo=ttft:1000ms,tpot:60ms"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	for _, c := range []metric.RateCond{c, noSLO,
		{OutputLen: 256, Arrival: "gamma:0.5", LenDist: "uniform:0.2", PrefixShare: 0.25, Requests: 100, SLO: &rundoc.SLO{E2EMs: ms(12.5)}, Target: 0.9},
		{OutputLen: 1, Arrival: "constant", LenDist: "normal:0.1", DurationS: 60}} {
		back, err := metric.ParseCondKey(c.Key())
		if err != nil || back.Key() != c.Key() {
			t.Errorf("ParseCondKey(%q) = %q, %v", c.Key(), back.Key(), err)
		}
	}
	// The same targets however they are written give one key; different ones differ.
	same := []string{"ttft:1000ms,tpot:60ms", "ttft=1s,tpot=60ms", "tpot:0.06s,ttft:1000", " ttft = 1000ms , tpot = 60ms "}
	for _, text := range same {
		slo, err := metric.ParseSLOText(text)
		if err != nil {
			t.Fatalf("ParseSLOText(%q): %v", text, err)
		}
		if got := metric.SLOText(slo); got != "ttft:1000ms,tpot:60ms" {
			t.Errorf("ParseSLOText(%q) writes back as %q", text, got)
		}
	}
	for _, bad := range []string{"", "ttft", "ttft:fast", "speed:1s", "ttft:-1s"} {
		if _, err := metric.ParseSLOText(bad); err == nil {
			t.Errorf("ParseSLOText(%q) read it", bad)
		}
	}
}
