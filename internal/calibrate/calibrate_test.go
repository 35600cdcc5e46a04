package calibrate

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// A short calibration reads tokens, splits the CPU between client and server, and
// derives the ceiling from the client's share. No speed is asserted: the machine may be
// loaded; the figures must only be consistent with each other.
func TestMeasure(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs per-thread CPU time")
	}
	c, err := Measure(context.Background(), Options{Streams: 16, Duration: 300 * time.Millisecond, Settle: 50 * time.Millisecond, MaxTokens: 500})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tokens <= 0 || c.ClientCPUS <= 0 || c.ServerCPUS <= 0 {
		t.Fatalf("nothing measured: %+v", c)
	}
	if c.Cores != runtime.GOMAXPROCS(0) {
		t.Errorf("cores %d, GOMAXPROCS %d", c.Cores, runtime.GOMAXPROCS(0))
	}
	if got := float64(c.Tokens) / c.ClientCPUS * float64(c.Cores); !near(got, c.TokS) {
		t.Errorf("ceiling %.0f, want tokens / client CPU × cores = %.0f", c.TokS, got)
	}
	if got := float64(c.Tokens) / c.WindowS; !near(got, c.ReadTokS) {
		t.Errorf("read rate %.0f, want %.0f", c.ReadTokS, got)
	}
	if c.String() == "" {
		t.Error("no summary")
	}
}

func TestMeasureStopsWithItsContext(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs per-thread CPU time")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Measure(ctx, Options{Streams: 4, Duration: time.Minute}); err == nil {
		t.Fatal("a cancelled calibration returned no error")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s to stop", d)
	}
}

func near(a, b float64) bool { return a >= b*0.999 && a <= b*1.001 }
