package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/golden"
)

// seedFigure is one number from the seed page (RTX 3090, Qwen3.8-27B INT4, vLLM).
type seedFigure struct {
	what     string
	prefill  bool
	context  int
	streams  int
	seedTokS float64
}

var seedFigures = []seedFigure{
	{"decode, 1 stream, context 0", false, 0, 1, 48.2},
	{"decode, 2 streams, context 0", false, 0, 2, 89.4},
	{"decode, 4 streams, context 0", false, 0, 4, 172.1},
	{"decode, 8 streams, context 0", false, 0, 8, 329.4},
	{"decode, 1 stream, context 16K", false, 16384, 1, 46.6},
	{"decode, 2 streams, context 16K", false, 16384, 2, 86.2},
	{"decode, 1 stream, context 32K", false, 32768, 1, 45.3},
	{"decode, 1 stream, context 56K", false, 57344, 1, 43.5},
	{"prefill, 8K", true, 8192, 1, 2163},
	{"prefill, 16K", true, 16384, 1, 2039},
	{"prefill, 32K", true, 32768, 1, 1871},
	{"prefill, 56K", true, 57344, 1, 1664},
}

func predict(cfg Config, f seedFigure) float64 {
	if f.prefill {
		return PredictPrefill(cfg.Cost, f.context, cfg.MaxBatchedTokens)
	}
	return PredictDecode(cfg.Cost, f.streams, f.context)
}

// TestPresetMatchesSeed recomputes, from the default preset's cost model, every figure
// of the seed page it was fitted to, and keeps the table in docs/sim.md in step with it
// (go test ./internal/sim -run TestPresetMatchesSeed -update rewrites it).
func TestPresetMatchesSeed(t *testing.T) {
	cfg, err := PresetConfig(DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| Seed figure | Seed tok/s | Emulator tok/s | Error |\n|---|---:|---:|---:|\n")
	for _, f := range seedFigures {
		got := predict(cfg, f)
		errPct := math.Round((got/f.seedTokS-1)*1000) / 10
		if errPct == 0 {
			errPct = 0 // not -0
		}
		fmt.Fprintf(&table, "| %s | %.1f | %.1f | %+.1f%% |\n", f.what, f.seedTokS, got, errPct)
		if math.Abs(errPct) > 2.5 {
			t.Errorf("%s: model %.1f tok/s, seed %.1f (%+.1f%%), want within 2.5%%", f.what, got, f.seedTokS, errPct)
		}
	}
	const path = "../../docs/sim.md"
	const begin, end = "<!-- fit:begin -->\n", "<!-- fit:end -->"
	golden.Section(t, path, begin, end, table.String())
}

func TestParametricShape(t *testing.T) {
	cfg, err := PresetConfig(DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Cost
	if c.StepTime(Step{}) != 0 {
		t.Error("an empty step should cost nothing")
	}
	// Per-stream speed falls with batch and with context; total speed rises with batch.
	prevTotal, prevPer := 0.0, math.Inf(1)
	for _, n := range []int{1, 2, 4, 8, 16, 32, 53} {
		total := PredictDecode(c, n, 0)
		if total <= prevTotal || total/float64(n) >= prevPer {
			t.Errorf("batch %d: total %.1f (prev %.1f), per stream %.1f (prev %.1f)", n, total, prevTotal, total/float64(n), prevPer)
		}
		prevTotal, prevPer = total, total/float64(n)
	}
	if PredictDecode(c, 1, 60000) >= PredictDecode(c, 1, 1000) {
		t.Error("decode should slow down with context")
	}
	if PredictPrefill(c, 60000, 2048) >= PredictPrefill(c, 4096, 2048) {
		t.Error("prefill should slow down with context")
	}
}
