package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
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
	if err := bench.WriteFile(path, doc); err != nil {
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
	if err := bench.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
	got, err = runCmd(t, "report", "--rescore", events, path)
	var exit *exitError
	if !errors.As(err, &exit) || exit.code != 1 || !strings.Contains(got, "energy_j") {
		t.Errorf("a changed energy_j: err %v, output\n%s\nwant exit 1 naming energy_j", err, got)
	}
}
