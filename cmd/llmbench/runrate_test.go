package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestRunRateOnEmulator: llmbench run --rate against the built-in emulator, no GPU:
// a rate far below the tiny engine's capacity is not saturated, one far above it is,
// with the evidence; the document has the rate plan and no matrix, and the report
// printed at the end shows the rate table.
func TestRunRateOnEmulator(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rate.json")
	events := filepath.Join(t.TempDir(), "rate.events")
	got, err := runCmd(t, "run", "--no-calibrate", "--preset", "tiny", "--rate", "4,120", "--arrival", "constant", "--duration", "1s",
		"--input-len", "16", "--output-len", "40", "--slo", "ttft=100ms,tpot=20ms", "--out", out, "--no-progress", "--events", events)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Config.Rate == nil || len(doc.Rate) != 2 || len(doc.Decode) != 0 || doc.Config.DecodeTest != "request-rate" {
		t.Fatalf("document: rate plan %+v, %d rate cells, %d decode cells", doc.Config.Rate, len(doc.Rate), len(doc.Decode))
	}
	low, high := doc.Rate[0], doc.Rate[1]
	for _, c := range doc.Rate {
		if c.RateFigures == nil || c.CompletedRequests == 0 {
			t.Fatalf("rate %s: %s %s", c.RateRPS, c.Status, c.Reason)
		}
	}
	if low.Saturated() {
		t.Errorf("4 req/s on the tiny engine flagged saturated: %v", low.Saturation)
	}
	if !high.Saturated() {
		t.Errorf("120 req/s on a 4-sequence engine not flagged saturated (TTFT %v)", high.TTFTMs)
	}
	if low.SLOMetRatio == nil || high.SLOMetRatio == nil || *high.SLOMetRatio >= *low.SLOMetRatio {
		t.Errorf("SLO met: %v at 4 req/s, %v at 120", low.SLOMetRatio, high.SLOMetRatio)
	}
	for _, want := range []string{"Request rates", "saturated", "SLO: TTFT ≤ 100 ms, TPOT ≤ 20 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("the printed report lacks %q", want)
		}
	}
	// The events log re-scores to every figure of both cells.
	if got, err := runCmd(t, "report", "--rescore", events, out); err != nil || !strings.Contains(got, "2 rate cells") || !strings.Contains(got, "Every figure of") {
		t.Errorf("report --rescore of the rate run: %v\n%s", err, got)
	}
}

func TestRunFindMaxRateOnEmulator(t *testing.T) {
	out := filepath.Join(t.TempDir(), "search.json")
	got, err := runCmd(t, "run", "--no-calibrate", "--preset", "tiny", "--find-max-rate", "--rate", "10", "--arrival", "constant", "--duration", "1s",
		"--input-len", "16", "--output-len", "40", "--slo", "ttft=150ms", "--max-rate-steps", "5", "--rate-precision", "0.25",
		"--out", out, "--no-progress", "--format", "none")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := doc.MaxRate
	if m == nil || m.Steps != len(doc.Rate) || m.Steps > 5 || m.Stop == "" {
		t.Fatalf("search outcome %+v over %d cells", m, len(doc.Rate))
	}
	if doc.Rate[0].RateRPS != 10 || doc.Rate[0].SearchStep != 1 {
		t.Errorf("the search started at %s (step %d), want 10 (step 1)", doc.Rate[0].RateRPS, doc.Rate[0].SearchStep)
	}
	var tried []string
	for _, c := range doc.Rate {
		tried = append(tried, c.RateRPS.String())
	}
	t.Logf("search tried %v, stopped: %s", tried, m.Stop)
}

func TestRunRateFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slo", "ttft=1s"}, "needs --rate"},
		{[]string{"--rate", "1", "--concurrency", "4"}, "matrix flag"},
		{[]string{"--find-max-rate"}, "needs --slo"},
		{[]string{"--rate", "inf"}, "--requests"},
		{[]string{"--rate", "0"}, "not a request rate"},
		{[]string{"--rate", "1", "--arrival", "bursty"}, "arrival"},
		{[]string{"--rate", "1", "--slo", "ttft=fast"}, "not a duration"},
		{[]string{"--rate", "1", "--prefix-share", "1"}, "prefix-share"},
		// tiny's max_model_len is 512: 1024 + 256 tokens would be refused every time.
		{[]string{"--rate", "1", "--dry-run"}, "exceeds the server's max_model_len of 512"},
	} {
		got, err := runCmd(t, append([]string{"run", "--no-calibrate", "--preset", "tiny", "--no-progress"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (%s), want one saying %q", tc.args, err, got, tc.want)
		}
	}
}
