package engine

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func readSpec(t *testing.T, name string) SpecCounters {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "specdecode", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpecCounters(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestSpecDecodeFixtures: the pages written from vLLM's and SGLang's source
// (testdata/specdecode/README.md) give the window's figures worked out by hand there.
func TestSpecDecodeFixtures(t *testing.T) {
	d, ok := SpecDecodeBetween(readSpec(t, "vllm-before.txt"), readSpec(t, "vllm-after.txt"))
	if !ok {
		t.Fatal("no spec decoding read from vLLM's counters")
	}
	if d.Source != SpecSourceVLLM || d.Drafts != 1000 || d.DraftTokens != 3000 || d.AcceptedTokens != 1620 {
		t.Errorf("vLLM window: %+v, want 1000 drafts, 3000 drafted, 1620 accepted", d)
	}
	if d.AcceptanceRate == nil || !near(*d.AcceptanceRate, 0.54) {
		t.Errorf("acceptance rate %v, want 0.54", d.AcceptanceRate)
	}
	if d.MeanAcceptedLength == nil || !near(*d.MeanAcceptedLength, 2.62) {
		t.Errorf("mean acceptance length %v, want 2.62", d.MeanAcceptedLength)
	}
	want := []float64{0.75, 0.53, 0.34}
	if len(d.PerPosition) != len(want) {
		t.Fatalf("per position %v, want %v", d.PerPosition, want)
	}
	for i := range want {
		if !near(d.PerPosition[i], want[i]) {
			t.Errorf("position %d: %v, want %v", i, d.PerPosition[i], want[i])
		}
	}

	s, ok := SpecDecodeBetween(readSpec(t, "sglang-before.txt"), readSpec(t, "sglang-after.txt"))
	if !ok {
		t.Fatal("no spec decoding read from SGLang's counters")
	}
	if s.Source != SpecSourceSGLang || s.Drafts != 800 || s.MeanAcceptedLength == nil || !near(*s.MeanAcceptedLength, 3) {
		t.Errorf("SGLang window: %+v, want 800 verify steps, accept length 3", s)
	}
	if s.AcceptanceRate != nil || s.GaugeAcceptRate == nil || !near(*s.GaugeAcceptRate, 0.58) {
		t.Errorf("SGLang rate: counters %v (want none), gauge %v (want 0.58, the ranks' value)", s.AcceptanceRate, s.GaugeAcceptRate)
	}
}

// TestSpecDecodeAbsentOrBroken: a page without draft counters, a window without a
// draft, and a counter that went down (a restart) give no figure.
func TestSpecDecodeAbsentOrBroken(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "probe", "vllm-0.26", "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	none, err := ParseSpecCounters(plain)
	if err != nil {
		t.Fatal(err)
	}
	before, after := readSpec(t, "vllm-before.txt"), readSpec(t, "vllm-after.txt")
	for name, pair := range map[string][2]SpecCounters{
		"no counters":       {none, none},
		"no draft":          {after, after},
		"counter went down": {after, before},
		"one side missing":  {none, after},
	} {
		if d, ok := SpecDecodeBetween(pair[0], pair[1]); ok {
			t.Errorf("%s: got %+v", name, d)
		}
	}
}

// TestSamplerSpecDecode: the sampler's window over a server whose counters move
// between its first and last reading gives the same figures as the two pages.
func TestSamplerSpecDecode(t *testing.T) {
	pages := [][]byte{}
	for _, f := range []string{"vllm-before.txt", "vllm-after.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "specdecode", f))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := min(int(served.Add(1))-1, 1) // the first scrape, then the later page
		w.Write(pages[i])
	}))
	defer srv.Close()
	s := NewSampler(srv.Client(), srv.URL, &Info{Engine: VLLM, Metrics: str("/metrics"), MetricsFormat: "prometheus"})
	s.sample(context.Background(), 5*time.Second) // the cell's first reading (Start's)
	s.Stop()                                      // and its closing one
	d, ok := s.SpecDecode()
	if !ok || d.AcceptanceRate == nil || !near(*d.AcceptanceRate, 0.54) || !near(*d.MeanAcceptedLength, 2.62) {
		t.Fatalf("sampler spec decode %+v (ok %v), want rate 0.54, length 2.62", d, ok)
	}
	var nilSampler *Sampler
	if _, ok := nilSampler.SpecDecode(); ok {
		t.Error("a nil sampler read spec decoding")
	}
}
