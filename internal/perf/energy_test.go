package perf

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestEnergyCatalogsHaveSources: every price and board power names a catalog GPU, a
// positive figure, a source, and (prices) a date and what kind of date it is.
func TestEnergyCatalogsHaveSources(t *testing.T) {
	ec, err := LoadEnergy()
	if err != nil {
		t.Fatal(err)
	}
	c := MustLoad()
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, p := range ec.Prices {
		if len(p.GPUs) == 0 || !(p.USDPerGPUHour > 0) || p.Source == "" || !date.MatchString(p.Date) ||
			(p.DateKind != "stated" && p.DateKind != "read") || (p.Billing != "instance" && p.Billing != "serverless") ||
			(p.SourceKind != "vendor page" && p.SourceKind != "article") || p.Quoted == "" {
			t.Errorf("price %+v is incomplete", p)
		}
		for _, g := range p.GPUs {
			if _, err := c.GPU(g); err != nil {
				t.Errorf("price %s: %v", p.ID, err)
			}
		}
		// A per-second quote must be the hourly figure / 3600.
		if strings.Contains(p.Quoted, "per second") {
			var perSec float64
			if _, err := fmt.Sscanf(p.Quoted, "$%g per second", &perSec); err != nil || math.Abs(perSec*3600-p.USDPerGPUHour) > 1e-9 {
				t.Errorf("price %s: %q is not $%g an hour", p.ID, p.Quoted, p.USDPerGPUHour)
			}
		}
	}
	for _, b := range ec.Power {
		if _, err := c.GPU(b.ID); err != nil || !(b.BoardPowerW > 0) || b.Source == "" {
			t.Errorf("board power %+v: %v", b, err)
		}
	}
	if !(ec.IdleShare > 0 && ec.IdleShare < 1) || ec.IdleShareSource == "" {
		t.Errorf("idle share %v (%s)", ec.IdleShare, ec.IdleShareSource)
	}
}

// TestReferencePrice prefers an instance over serverless, then the cheapest.
func TestReferencePrice(t *testing.T) {
	ec, _ := LoadEnergy()
	if p, ok := ec.ReferencePrice("h100-sxm"); !ok || p.ID != "lambda-h100-sxm" {
		t.Errorf("h100-sxm: %+v", p)
	}
	if p, ok := ec.ReferencePrice("a100-80gb"); !ok || p.ID != "modal-a100-80gb" {
		t.Errorf("a100-80gb: %+v, want the cheaper serverless listing", p)
	}
	if _, ok := ec.ReferencePrice("m2-max"); ok {
		t.Error("a Mac has a rental price")
	}
	rp := mustPrice(t, ec, "runpod-serverless-h200").RunPrice(2)
	if rp.USDPerHour != 11.16 || rp.CatalogID != "runpod-serverless-h200" || !strings.Contains(rp.Note, "2 GPUs") || !strings.Contains(rp.Note, "undated") {
		t.Errorf("2× H200: %+v", rp)
	}
}

func mustPrice(t *testing.T, ec *EnergyCatalog, id string) PriceEntry {
	t.Helper()
	p, err := ec.Price(id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEstimateEnergy: every predicted cell's estimated power lies between the idle
// share of the board power and the board power, J/token is that power over the
// cell's tok/s, the cells are marked estimates, and more streams use the GPU more.
func TestEstimateEnergy(t *testing.T) {
	s := setupFor(t, "h100-sxm", "llama-3.1-8b", "bf16", "fp16", "vllm", 0.9)
	p := DefaultPlan()
	run, err := s.PredictRun(p, testNow)
	if err != nil {
		t.Fatal(err)
	}
	price := &rundoc.Price{USDPerHour: 3.6, Source: "test"}
	if err := s.EstimateEnergy(run, p, price); err != nil {
		t.Fatal(err)
	}
	if run.Energy == nil || len(run.Energy.Notes) == 0 || !strings.Contains(run.Energy.Notes[0], "estimate") {
		t.Fatalf("energy block %+v", run.Energy)
	}
	prev := 0.0
	for _, c := range run.Decode {
		if c.Status != rundoc.StatusPredicted {
			continue
		}
		e := c.CellEnergy
		if e == nil || e.PowerWMean == nil || e.Method != rundoc.MethodEstimate {
			t.Fatalf("%d×%d: %+v", c.Context, c.Concurrency, e)
		}
		w := *e.PowerWMean
		if w < 700*0.155-0.1 || w > 700+0.1 {
			t.Errorf("%d×%d: %.1f W outside idle..limit", c.Context, c.Concurrency, w)
		}
		if math.Abs(*e.JoulesPerToken-w/c.TotalTokS) > 1e-3 || e.USDPerMTok == nil {
			t.Errorf("%d×%d: J/token %v for %.1f W at %.1f tok/s", c.Context, c.Concurrency, *e.JoulesPerToken, w, c.TotalTokS)
		}
		if c.Context == 0 {
			if w < prev-0.1 {
				t.Errorf("0×%d: %.1f W below the previous concurrency's %.1f W", c.Concurrency, w, prev)
			}
			prev = w
		}
	}
	// A GPU without a board power gets no estimate, and says so.
	m := setupFor(t, "m2-max", "llama-3.1-8b", "q4_k_m", "fp16", "llama.cpp", 0.9)
	run, _ = m.PredictRun(p, testNow)
	_ = m.EstimateEnergy(run, p, nil)
	if c := run.Decode[0]; c.CellEnergy == nil || c.PowerWMean != nil || c.CellEnergy.Reason == "" {
		t.Errorf("Mac: %+v", c.CellEnergy)
	}
}

var testNow = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
