package bench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// constantMeter is a telemetry source that reports known watts on every device,
// sampled every interval from when it was made.
type constantMeter struct {
	watts    float64
	devices  []int
	interval time.Duration
	born     time.Time
	mu       sync.Mutex
	calls    int
}

func (m *constantMeter) Summary(ctx context.Context, start, end time.Time) power.Trace {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	tr := power.Trace{Source: "constant", Devices: m.devices, Interval: m.interval}
	for at := m.born; !at.After(end.Add(m.interval)); at = at.Add(m.interval) {
		if at.Before(start.Add(-m.interval)) {
			continue
		}
		for _, d := range m.devices {
			tr.Samples = append(tr.Samples, power.Sample{At: at, Device: d, PowerW: ptr(m.watts)})
		}
	}
	return tr
}

// TestRunnerEnergyAgainstExactServer: against a server whose every token's send time is
// known, with a meter that reports 2 GPUs at 250 W, every cell's energy is 500 W × its
// window, its J/token that energy over the tokens the server really sent in the
// window, and its $/Mtok the price over the server's real rate — within 1%, the
// runner's own tolerance on tok/s. The prefill row's energy is 500 W × its TTFT.
func TestRunnerEnergyAgainstExactServer(t *testing.T) {
	fs := newFakeServer()
	fs.prefillRate = 2000 // a 2K prompt takes ~1 s cold: enough samples to score
	srv := fs.start(t)
	// 4 and 8 streams: ±1 token at the window's edges stays under 1% of a 2 s window.
	doc := newTestRun([]int{2048}, []int{4, 8}, []int{2048}, 2*time.Second, 4096)
	Plan(doc, rundoc.Limits{})
	meter := &constantMeter{watts: 250, devices: []int{0, 1}, interval: 50 * time.Millisecond, born: time.Now().Add(-time.Second)}
	price := &rundoc.Price{USDPerHour: 3.6, Source: "--price-per-hour"}
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 8), Opts: measure.Options{Nonce: "e", Telemetry: meter, Price: price}}
	windows, err := runWithWindows(t, context.Background(), r, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusValid || c.CellEnergy == nil {
			t.Fatalf("cell %d×%d: %s %s, energy %+v", c.Context, c.Concurrency, c.Status, c.Reason, c.CellEnergy)
		}
		w := windows[[2]int{c.Context, c.Concurrency}]
		truthTokS, _ := fs.truth(w, c.PromptTokens)
		truthTokens := truthTokS * w.Length().Seconds()
		energy := 500 * w.Length().Seconds()
		if c.EnergyJ == nil {
			t.Fatalf("%d streams: no energy (%s)", c.Concurrency, c.CellEnergy.Reason)
		}
		within(t, "energy vs 500 W × window", *c.EnergyJ, energy, 0.001)
		within(t, "mean power", *c.PowerWMean, 500, 0.001)
		within(t, "J/token vs server", *c.JoulesPerToken, energy/truthTokens, 0.01)
		within(t, "tok/s/W vs server", *c.TokSPerW, truthTokS/500, 0.01)
		within(t, "$/Mtok vs server", *c.USDPerMTok, 3.6/3600/truthTokS*1e6, 0.01)
		t.Logf("%d streams: %.1f J over %.3f s, %.4f J/token (server %.4f), $%.4f/Mtok", c.Concurrency, *c.EnergyJ, w.Length().Seconds(), *c.JoulesPerToken, energy/truthTokens, *c.USDPerMTok)
	}
	p := doc.Prefill[0]
	if p.PrefillEnergy == nil || p.PrefillEnergy.EnergyJ == nil {
		t.Fatalf("prefill row: %+v", p.PrefillEnergy)
	}
	within(t, "prefill J/prompt token", *p.JoulesPerPromptToken, 500*p.TTFTMs/1000/float64(p.PromptTokens), 0.01)
	if meter.calls != 3 {
		t.Errorf("the meter was read %d times, want once per window (2 cells + 1 prefill row)", meter.calls)
	}
}
