package main

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestReportRescoreReproducesAnEnergyRun: a run metered by the fake nvidia-smi, with
// its events log, re-scores to every figure of its document (prefill, decode and
// energy); a figure changed in the document is named and exits 1.
func TestReportRescoreReproducesAnEnergyRun(t *testing.T) {
	fakeNvidiaSMI(t)
	base := startSim(t)
	events := filepath.Join(t.TempDir(), "run.events")
	doc, _ := runMetered(t, "run", "--no-calibrate", "--endpoint", base, "--telemetry", "nvidia-smi", "--price-per-hour", "3.6",
		"--contexts", "0,256", "--concurrency", "1,2", "--prefill", "256", "--duration", "2s", "--max-output", "128",
		"--no-progress", "--format", "none", "--events", events)
	metered := 0
	for _, c := range doc.Decode {
		if c.CellEnergy != nil && c.CellEnergy.EnergyJ != nil {
			metered++
		}
	}
	if metered == 0 {
		t.Fatal("no cell has energy: the re-score would not compare any")
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := rundoc.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
	got, err := runCmd(t, "report", "--rescore", events, path)
	if err != nil || !strings.Contains(got, "Every figure of") || !strings.Contains(got, "1 prefill rows, 4 decode cells") {
		t.Fatalf("report --rescore: %v\n%s", err, got)
	}

	for i := range doc.Decode {
		if e := doc.Decode[i].CellEnergy; e != nil && e.EnergyJ != nil {
			*e.EnergyJ += 1
			break
		}
	}
	if err := rundoc.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
	got, err = runCmd(t, "report", "--rescore", events, path)
	var exit *exitError
	if !errors.As(err, &exit) || exit.code != 1 || !strings.Contains(got, "energy_j") {
		t.Errorf("a changed energy_j: err %v, output\n%s\nwant exit 1 naming energy_j", err, got)
	}
}

// TestRateRunEnergy: a rate run metered by the fake nvidia-smi (two GPUs at 250 W)
// gives each cell power, J/token and $/Mtok over its span, which the report shows and
// the events log re-scores to exactly.
func TestRateRunEnergy(t *testing.T) {
	fakeNvidiaSMI(t)
	base := startSim(t)
	dir := t.TempDir()
	out, events := filepath.Join(dir, "rate.json"), filepath.Join(dir, "rate.events")
	got, err := runCmd(t, "run", "--no-calibrate", "--endpoint", base, "--telemetry", "nvidia-smi", "--price-per-hour", "3.6",
		"--rate", "2,4", "--arrival", "constant", "--duration", "3s", "--input-len", "64", "--output-len", "32",
		"--no-progress", "--out", out, "--events", events)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	metered := 0
	for _, c := range doc.Rate {
		e := c.Energy
		if e == nil || c.RateFigures == nil {
			t.Fatalf("rate %s: no energy (%+v)", c.RateRPS, c)
		}
		if e.PowerWMean == nil {
			t.Logf("rate %s: no power figure: %s", c.RateRPS, e.Reason) // a loaded machine can stall the fake
			continue
		}
		metered++
		if *e.PowerWMean < 495 || *e.PowerWMean > 505 {
			t.Errorf("rate %s: %.1f W, want the fake's 500", c.RateRPS, *e.PowerWMean)
		}
		if e.EnergyJ == nil || e.JoulesPerToken == nil || math.Abs(*e.JoulesPerToken-*e.EnergyJ/float64(c.OutputTokens)) > 1e-4 {
			t.Errorf("rate %s: J/token %v, want energy %v over %d tokens", c.RateRPS, e.JoulesPerToken, e.EnergyJ, c.OutputTokens)
		}
		if e.USDPerMTok == nil {
			t.Errorf("rate %s: no $/Mtok at $3.60 an hour", c.RateRPS)
		}
	}
	if metered == 0 {
		t.Fatal("no rate cell was metered")
	}
	if !strings.Contains(got, "J/token") || !strings.Contains(got, "$/Mtok") {
		t.Errorf("the report shows no energy columns:\n%s", got)
	}
	if got, err := runCmd(t, "report", "--rescore", events, out); err != nil || !strings.Contains(got, "Every figure of") {
		t.Errorf("report --rescore: %v\n%s", err, got)
	}
}
