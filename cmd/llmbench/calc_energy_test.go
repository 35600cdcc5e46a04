package main

import (
	"strings"
	"testing"
)

// TestCalcListPrices shows every price with its date and source.
func TestCalcListPrices(t *testing.T) {
	out, err := runCmd(t, "calc", "--list", "prices")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"runpod-serverless-h200", "5.58", "2026-12-01 (read)", "https://docs.runpod.io/serverless/pricing", "lambda-h100-sxm", "2026-05-07", "--price-per-hour"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list prices lacks %q:\n%s", want, out)
		}
	}
}

// TestCalcEstimatesEnergy: a prediction carries estimated watts, J/token and $/Mtok,
// and says they are estimates.
func TestCalcEstimatesEnergy(t *testing.T) {
	out, err := runCmd(t, "calc", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--quant", "bf16", "--contexts", "0", "--concurrency", "1,8", "--format", "md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"J/token", "$/Mtok", "Energy is an estimate, not a measurement"} {
		if !strings.Contains(out, want) {
			t.Errorf("calc md lacks %q:\n%s", want, out)
		}
	}
}
