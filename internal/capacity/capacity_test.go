package capacity

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// TestSeedCapacity is the hand computation docs/capacity.md shows, from the seed's
// own cells (internal/seed/seed-run.json, the published page's numbers): at 0 context,
// 48.2/44.7/43.1/41.3 tok/s per request at 1/2/4/8 with first tokens at 85/133/283/496
// ms all meet 20 tok/s and 1 s, and 16 is over capacity: 8 users, limited by the KV
// cache. 16K: 46.6 and 42.9 at 1 and 2, 4 over capacity. 32K: 45.3 at 1, 2 over
// capacity. 56K: 43.6 tok/s but a first token at 1,310 ms: no user within 1 s.
func TestSeedCapacity(t *testing.T) {
	run, err := rundoc.ReadFile(filepath.Join("..", "seed", "seed-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		context, users, next int
		limit                Limit
	}{
		{0, 8, 16, LimitKVCache},
		{16 * rundoc.K, 2, 4, LimitKVCache},
		{32 * rundoc.K, 1, 2, LimitKVCache},
		{56 * rundoc.K, 0, 1, LimitTTFT},
	}
	for _, speed := range TableSpeeds { // every seed cell streams above 40 tok/s
		a := Of(run, DefaultTargets().WithSpeed(speed))
		if len(a.Rows) != len(want) {
			t.Fatalf("%v tok/s: %d rows, want %d", speed, len(a.Rows), len(want))
		}
		for i, w := range want {
			r := a.Rows[i]
			if r.Context != w.context || r.Users != w.users || r.Limit != w.limit || r.Next != w.next || r.Interpolated {
				t.Errorf("%v tok/s, context %d: got %d users (limit %s, next %d, interpolated %v), want %d (limit %s, next %d)",
					speed, r.Context, r.Users, r.Limit, r.Next, r.Interpolated, w.users, w.limit, w.next)
			}
			if r.PerGPU == nil || *r.PerGPU != float64(w.users) {
				t.Errorf("context %d: per GPU %v, want %d (one RTX 3090)", r.Context, r.PerGPU, w.users)
			}
			if r.PerKW != nil || r.PerUSDHour != nil {
				t.Errorf("context %d: the seed has no power or price, yet per kW %v, per $/h %v", r.Context, r.PerKW, r.PerUSDHour)
			}
		}
	}
	if r := Of(run, DefaultTargets()).Rows[3]; r.NextTTFTMs == nil || *r.NextTTFTMs != 1310 {
		t.Errorf("56K: the failing cell's TTFT is %v, want the seed's 1310 ms", r.NextTTFTMs)
	}
}

// cell is a valid decode cell at context 0 with per-request speed tokS and TTFT ttft.
func cell(n int, tokS, ttft float64) rundoc.DecodeCell {
	return rundoc.DecodeCell{Context: 0, Concurrency: n, Status: rundoc.StatusValid,
		DecodeFigures: &rundoc.DecodeFigures{PerRequestTokS: tokS, TotalTokS: tokS * float64(n), TTFTMs: ttft, TBTMs: 1000 / tokS}}
}

func overCap(n int) rundoc.DecodeCell {
	return rundoc.DecodeCell{Context: 0, Concurrency: n, Status: rundoc.StatusOverCapacity, Reason: "exceeds the KV cache"}
}

func doc(cells ...rundoc.DecodeCell) *rundoc.Run {
	return &rundoc.Run{SchemaVersion: 1, Config: rundoc.Config{Contexts: []int{0}}, Decode: cells,
		Hardware: rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "H100", Count: 2}}}}
}

func only(t *testing.T, run *rundoc.Run, tg Targets) Row {
	t.Helper()
	a := Of(run, tg)
	if len(a.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(a.Rows))
	}
	return a.Rows[0]
}

// TestInterpolation: 8 meets 20 tok/s at 30, 16 does not at 15: on log₂ N the crossing
// is 3 + (30−20)/(30−15) = 3.667, N = 2^3.667 = 12.7, so 12 users, interpolated; the
// TTFT crossing works the same way, and the earlier crossing names the limit.
func TestInterpolation(t *testing.T) {
	r := only(t, doc(cell(1, 50, 100), cell(2, 45, 120), cell(4, 40, 150), cell(8, 30, 200), cell(16, 15, 300)), DefaultTargets())
	if r.Users != 12 || !r.Interpolated || r.Measured != 8 || r.Next != 16 || r.Limit != LimitSpeed {
		t.Errorf("got %+v, want 12 users interpolated between 8 and 16, limit speed", r)
	}
	// TTFT crosses 1 s first: 400 ms at 8, 1,600 ms at 16: 3 + 600/1200 = 3.5, N = 11.3.
	r = only(t, doc(cell(8, 30, 400), cell(16, 15, 1600)), DefaultTargets())
	if r.Users != 11 || !r.Interpolated || r.Limit != LimitTTFT {
		t.Errorf("got %+v, want 11 users interpolated, limit TTFT", r)
	}
	// A crossing just past the passing column rounds down to it: not interpolated.
	r = only(t, doc(cell(8, 20.5, 100), cell(16, 10, 100)), DefaultTargets())
	if r.Users != 8 || r.Interpolated || r.Limit != LimitSpeed {
		t.Errorf("got %+v, want 8 users, not interpolated, limit speed", r)
	}
	// Never below b: a crossing at 15.99 is 15 users, not 16.
	r = only(t, doc(cell(8, 100, 100), cell(16, 19.99, 100)), DefaultTargets())
	if r.Users != 15 || r.Next != 16 {
		t.Errorf("got %+v, want 15 users", r)
	}
}

// TestNeverExtrapolates: every measured column meets the targets: the answer is the
// last column, "not measured beyond", whatever the trend says.
func TestNeverExtrapolates(t *testing.T) {
	r := only(t, doc(cell(1, 100, 50), cell(2, 99, 50), cell(4, 98, 50)), DefaultTargets())
	if r.Users != 4 || r.Limit != LimitNotMeasured || r.Next != 0 || r.Interpolated {
		t.Errorf("got %+v, want 4 users, not measured beyond", r)
	}
}

// TestIntervalRule: a cell is judged by its 95% interval where it has one: the speed by
// the interval's low end (1000 / tbt_ms_ci's high end, or in a document without one
// total tok/s's over the same active count), the TTFT by its high end; the point
// values alone would pass these cells.
func TestIntervalRule(t *testing.T) {
	slow := cell(2, 21, 500) // 42 tok/s in total, ±3: per request 19.5–22.5
	slow.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: 39, High: 45}}
	r := only(t, doc(cell(1, 30, 100), slow), DefaultTargets())
	if r.Users != 1 || r.Limit != LimitSpeed || !r.FromInterval || r.NextTokS == nil || *r.NextTokS != 19.5 {
		t.Errorf("speed: got %+v (next judged at %v), want 1 user, limit speed, judged at 19.5", r, r.NextTokS)
	}
	late := cell(2, 30, 900)
	late.CellIntervals = &rundoc.CellIntervals{TTFTMsCI: &stats.Interval{Low: 700, High: 1100}}
	r = only(t, doc(cell(1, 30, 100), late), DefaultTargets())
	if r.Users != 1 || r.Limit != LimitTTFT || r.NextTTFTMs == nil || *r.NextTTFTMs != 1100 {
		t.Errorf("TTFT: got %+v, want 1 user, limit TTFT, judged at 1100 ms", r)
	}
	// per_request_tok_s is 1000 / tbt_ms: with a TBT interval, the speed is judged by
	// 1000 / its high end (issue 34).
	slowTBT := cell(2, 21, 500)
	slowTBT.CellIntervals = &rundoc.CellIntervals{TBTMsCI: &stats.Interval{Low: 45, High: 80}, TotalTokSCI: &stats.Interval{Low: 41, High: 43}}
	r = only(t, doc(cell(1, 30, 100), slowTBT), DefaultTargets())
	if r.Users != 1 || r.Limit != LimitSpeed || r.NextTokS == nil || *r.NextTokS != 12.5 {
		t.Errorf("speed by TBT: got %+v (next judged at %v), want 1 user, limit speed, judged at 1000 / 80 ms = 12.5", r, r.NextTokS)
	}
	// Inside the interval both ways: it passes.
	ok := cell(2, 30, 500)
	ok.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: 58, High: 62}, TTFTMsCI: &stats.Interval{Low: 400, High: 600}}
	if r = only(t, doc(cell(1, 30, 100), ok), DefaultTargets()); r.Users != 2 {
		t.Errorf("got %+v, want 2 users", r)
	}
}

// TestInvalidCellsNeverCount: an invalid, failed or interrupted cell neither passes nor
// fails; the walk stops there (not measured beyond the last valid column), however
// good its figures, and a row whose first cell is invalid says nothing.
func TestInvalidCellsNeverCount(t *testing.T) {
	for _, st := range []rundoc.Status{rundoc.StatusInvalid, rundoc.StatusFailed, rundoc.StatusInterrupted, rundoc.StatusPending} {
		bad := cell(4, 90, 50)
		bad.Status = st
		r := only(t, doc(cell(1, 50, 100), cell(2, 45, 100), bad, cell(8, 40, 100)), DefaultTargets())
		if r.Users != 2 || r.Limit != LimitNotMeasured || r.Next != 4 || r.NextStatus != st || r.NextTokS != nil {
			t.Errorf("%s at 4: got %+v, want 2 users, not measured beyond (the cell at 4)", st, r)
		}
		first := cell(1, 90, 50)
		first.Status = st
		if r = only(t, doc(first, cell(2, 45, 100)), DefaultTargets()); r.Answered() || r.PerGPU != nil {
			t.Errorf("%s at 1: got %+v, want no answer", st, r)
		}
	}
	// NaN figures are not valid either.
	if r := only(t, doc(cell(1, math.NaN(), 100)), DefaultTargets()); r.Answered() {
		t.Errorf("NaN: got %+v, want no answer", r)
	}
}

// TestOnlyOverCapacity: a row whose every cell is over capacity serves no one, and says
// it is the KV cache: one request at this context would not fit.
func TestOnlyOverCapacity(t *testing.T) {
	r := only(t, doc(overCap(1), overCap(2), overCap(4)), DefaultTargets())
	if !r.Answered() || r.Users != 0 || r.Limit != LimitKVCache || r.Next != 1 || r.NextReason != "exceeds the KV cache" || r.PerGPU == nil || *r.PerGPU != 0 {
		t.Errorf("got %+v, want 0 users, limit KV cache at 1, 0 per GPU", r)
	}
}

// TestFailFirstEndsWalk: a column that misses ends the walk, even if a larger one
// meets the targets: 2 misses, 4 passes, the answer is 1.
func TestFailFirstEndsWalk(t *testing.T) {
	r := only(t, doc(cell(1, 30, 100), cell(2, 30, 2000), cell(4, 30, 100)), DefaultTargets())
	if r.Users != 1 || r.Limit != LimitTTFT || r.Next != 2 {
		t.Errorf("got %+v, want 1 user, limit TTFT at 2", r)
	}
	if r = only(t, doc(cell(1, 10, 100), cell(2, 30, 100)), DefaultTargets()); r.Users != 0 || r.Limit != LimitSpeed || !r.Answered() {
		t.Errorf("got %+v, want 0 users, limit speed", r)
	}
}

// TestScaling: per GPU over every GPU of the machine, per $/h over the document's
// price, per kW over the metered power at that load (interpolated on log₂ N for an
// interpolated answer); an estimated power does not count.
func TestScaling(t *testing.T) {
	metered := func(c rundoc.DecodeCell, w float64, method string) rundoc.DecodeCell {
		c.CellEnergy = &rundoc.CellEnergy{PowerStats: rundoc.PowerStats{PowerWMean: &w, Method: method}}
		return c
	}
	run := doc(metered(cell(4, 40, 100), 500, rundoc.MethodCounter), metered(cell(8, 25, 150), 800, rundoc.MethodSamples))
	run.Energy = &rundoc.RunEnergy{Price: &rundoc.Price{USDPerHour: 4}}
	r := only(t, run, DefaultTargets())
	if r.Users != 8 || r.Limit != LimitNotMeasured {
		t.Fatalf("got %+v, want 8 users", r)
	}
	check := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("per GPU (2 GPUs)", r.PerGPU, 4)
	check("per $/h (4 $/h)", r.PerUSDHour, 2)
	check("per kW (800 W at 8)", r.PerKW, 10)

	// Interpolated: 4 passes at 40 tok/s (500 W), 16 misses at 10 (900 W): the crossing
	// is 2 + (40−20)/(40−10)·2 = 3.333, N = 10.08, so 10 users at
	// 500 + 400·(log₂10 − 2)/2 = 764.4 W.
	run = doc(metered(cell(4, 40, 100), 500, rundoc.MethodCounter), metered(cell(16, 10, 150), 900, rundoc.MethodCounter))
	r = only(t, run, DefaultTargets())
	if r.Users != 10 || !r.Interpolated {
		t.Fatalf("got %+v, want 10 users interpolated", r)
	}
	check("per kW interpolated", r.PerKW, 10/((500+400*(math.Log2(10)-2)/2)/1000))

	// An estimate is not a measurement.
	run = doc(metered(cell(4, 40, 100), 500, rundoc.MethodEstimate))
	if r = only(t, run, DefaultTargets()); r.PerKW != nil || r.PerUSDHour != nil {
		t.Errorf("estimated power, no price: per kW %v, per $/h %v, want none", r.PerKW, r.PerUSDHour)
	}
}

// TestPredictedCellsCount: a calc document's predicted cells are judged like valid ones,
// and the answer says it is predicted.
func TestPredictedCellsCount(t *testing.T) {
	c := cell(1, 30, 100)
	c.Status = rundoc.StatusPredicted
	run := doc(c)
	run.Status = rundoc.RunPredicted
	a := Of(run, DefaultTargets())
	if !a.Predicted || a.Rows[0].Users != 1 {
		t.Errorf("got %+v, want 1 predicted user", a)
	}
}

func TestParseTargets(t *testing.T) {
	for s, want := range map[string]Targets{
		"":                        DefaultTargets(),
		"tok/s=20,ttft=1s":        {20, 1000},
		"tok/s=40":                {40, 1000},
		"ttft=500ms":              {20, 500},
		" speed = 10 , ttft=250 ": {10, 250},
	} {
		got, err := ParseTargets(s)
		if err != nil || got != want {
			t.Errorf("ParseTargets(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"tok/s=0", "tok/s=-1", "ttft=0", "ttft=soon", "users=4", "20"} {
		if _, err := ParseTargets(s); err == nil {
			t.Errorf("ParseTargets(%q) took it", s)
		}
	}
	if s := (Targets{20, 1000}).String(); s != "tok/s=20,ttft=1s" {
		t.Errorf("String() = %q", s)
	}
	if s := (Targets{12.5, 250}).String(); s != "tok/s=12.5,ttft=250ms" {
		t.Errorf("String() = %q", s)
	}
}

// TestOfRates: an open-loop run's answer is its --find-max-rate outcome, or the highest
// of its fixed rates met from the lowest up; an invalid cell says nothing beyond.
func TestOfRates(t *testing.T) {
	yes, no := true, false
	rc := func(rate float64, meets *bool, st rundoc.Status) rundoc.RateCell {
		return rundoc.RateCell{RateRPS: rundoc.Rate(rate), Status: st, RateFigures: &rundoc.RateFigures{MeetsSLO: meets}}
	}
	ttft := 500.0
	run := &rundoc.Run{Config: rundoc.Config{Rate: &rundoc.RateConfig{InputLen: 512, OutputLen: 128, SLO: &rundoc.SLO{TTFTMs: &ttft, Target: 0.95}}},
		Rate: []rundoc.RateCell{rc(4, &no, rundoc.StatusValid), rc(1, &yes, rundoc.StatusValid), rc(2, &yes, rundoc.StatusValid), rc(math.Inf(1), &yes, rundoc.StatusValid)}}
	a := OfRates(run)
	if a == nil || a.RPS == nil || *a.RPS != 2 || a.FailedRPS == nil || *a.FailedRPS != 4 || a.Searched {
		t.Errorf("fixed rates: got %+v, want 2 req/s (4 did not)", a)
	}
	run.Rate[0].Status = rundoc.StatusInvalid
	if a = OfRates(run); a.FailedRPS != nil || *a.RPS != 2 {
		t.Errorf("invalid 4: got %+v, want 2 req/s and nothing beyond", a)
	}
	maxRate, failed := 3.5, 4.0
	run.MaxRate = &rundoc.MaxRate{MaxRateRPS: &maxRate, FailedRPS: &failed}
	if a = OfRates(run); !a.Searched || *a.RPS != 3.5 || *a.FailedRPS != 4 {
		t.Errorf("search: got %+v, want 3.5 req/s searched", a)
	}
	run.Config.Rate.SLO = nil
	if OfRates(run) != nil {
		t.Error("no SLO: want no answer")
	}
}

// TestMissingTTFTNeverMeetsTheTarget: a valid cell whose document leaves its TTFT out
// (it reads 0 ms, and the site stores such a cell: rundoc.Measured) has no TTFT to be
// judged by: the walk stops there, as at a cell without figures, instead of counting
// it as answering at once.
func TestMissingTTFTNeverMeetsTheTarget(t *testing.T) {
	r := only(t, doc(cell(1, 50, 100), cell(2, 45, 0), cell(4, 40, 150)), DefaultTargets())
	if r.Users != 1 || r.Limit != LimitNotMeasured || r.Next != 2 || r.NextTTFTMs != nil {
		t.Errorf("got %+v, want 1 user, not measured beyond (the cell at 2 has no TTFT)", r)
	}
}
