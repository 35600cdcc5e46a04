package bench

import (
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// TestCellFigures checks each figure's definition on a hand-made cell: two streams, a
// token every 20 ms on one and a 3-token chunk every 60 ms on the other, a window of
// exactly 1 s.
func TestCellFigures(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	a := &openai.StreamResult{Sent: at(0), FirstToken: at(100), End: at(1200), Cancelled: true}
	for m := 100; m <= 1200; m += 20 {
		a.Chunks = append(a.Chunks, openai.TokenChunk{At: at(m), N: 1})
	}
	b := &openai.StreamResult{Sent: at(0), FirstToken: at(200), End: at(700), FinishReason: "length"}
	for m := 200; m <= 700; m += 60 {
		b.Chunks = append(b.Chunks, openai.TokenChunk{At: at(m), N: 3})
	}
	// b's replacement, sent at 700 ms: first token 100 ms later.
	c := &openai.StreamResult{Sent: at(700), FirstToken: at(800), End: at(1200), Cancelled: true}
	for m := 800; m <= 1200; m += 60 {
		c.Chunks = append(c.Chunks, openai.TokenChunk{At: at(m), N: 3})
	}
	w := Window{Open: at(200), Close: at(1200)}
	fig, stats, detail := CellFigures([]*openai.StreamResult{a, b, c}, w)

	// Tokens after 200 ms up to 1200 ms: a has 50 (220..1200), b 8 chunks × 3 (260..680),
	// c 7 chunks × 3 (800..1160).
	if stats.OutputTokens != 50+24+21 {
		t.Errorf("output tokens = %d, want 95", stats.OutputTokens)
	}
	if fig.TotalTokS != 95 {
		t.Errorf("total tok/s = %v, want 95", fig.TotalTokS)
	}
	// a in flight the whole second, b 200–700, c 700–1200: 2 on average.
	if stats.AvgActiveRequests != 2 {
		t.Errorf("avg active = %v, want 2", stats.AvgActiveRequests)
	}
	if fig.PerRequestTokS != 47.5 {
		t.Errorf("per request = %v, want 47.5", fig.PerRequestTokS)
	}
	if fig.TBTMs != 20 {
		t.Errorf("TBT = %v, want 20 (60 ms chunks of 3 count as three 20 ms gaps)", fig.TBTMs)
	}
	// TTFTs 100, 200, 100: median 100.
	if fig.TTFTMs != 100 {
		t.Errorf("TTFT = %v, want 100", fig.TTFTMs)
	}
	if stats.CompletedRequests != 1 || stats.MeasuredS != 1 {
		t.Errorf("completed = %d, measured = %v", stats.CompletedRequests, stats.MeasuredS)
	}
	if detail.TTFTP90Ms != nil || detail.TBTP99Ms != nil {
		t.Error("tail percentiles reported from too few samples")
	}
}

// TestPlanSeed: the seed page's over-capacity pattern follows from its KV cache (any
// size in [65,536, 81,919] tokens: 8 × 8K fits, 2 × 40K does not), max_model_len 65,536 and 8,192 output tokens.
func TestPlanSeed(t *testing.T) {
	seed, err := ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	for _, kv := range []int64{65536, 72000, 81919} {
		doc := &Run{Config: seed.Config}
		mml := int64(65536)
		Plan(doc, &kv, &mml)
		for _, c := range doc.Decode {
			want := seed.Cell(c.Context, c.Concurrency).Status
			got := c.Status
			if got == StatusPending {
				got = StatusValid
			}
			if got != want {
				t.Errorf("kv %d: %s × %d is %s, the seed says %s", kv, FormatTokens(c.Context), c.Concurrency, got, want)
			}
		}
	}
}

func TestParseTokens(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "8K": 8192, "56k": 57344, "8192": 8192, "0.5K": 512, " 16K ": 16384} {
		got, err := ParseTokens(in)
		if err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "K", "-1", "1.5", "abc", "8KB"} {
		if _, err := ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
}

func TestSeedRoundTrip(t *testing.T) {
	seed, err := ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	c := seed.Cell(0, 1)
	if c.TotalTokS != 48.2 || c.OutputTokens != 1445 || c.TTFTMs != 85 {
		t.Errorf("seed cell 0×1 decoded as %+v %+v", c.DecodeFigures, c.WindowStats)
	}
	if seed.Cell(0, 16).DecodeFigures != nil {
		t.Error("an over-capacity cell got figures")
	}
}
