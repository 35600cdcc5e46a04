package bench

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// speedChanger is a Progress that sets the fake server's token interval when a
// given repeat starts: a server that changes speed between repeats.
type speedChanger struct {
	fs     *fakeServer
	at     string // a step description's suffix, e.g. "(repeat 3/3)"
	to     time.Duration
	steps  []string
	before time.Duration
}

func (p *speedChanger) Step(desc string, done, total int, expect time.Duration) {
	p.steps = append(p.steps, desc)
	if strings.HasSuffix(desc, p.at) {
		p.fs.mu.Lock()
		p.fs.interval = p.to
		p.fs.mu.Unlock()
	}
}
func (p *speedChanger) Tokens(int) {}
func (p *speedChanger) Log(string) {}

// TestRepeatInterleavedAndUnstable: --repeat 3 measures each cell three times, the
// plan whole once per repeat (cell A, cell B, A, B, A, B), keeps the repeats, and
// flags a cell unstable when the server's speed changed between them; a cell that
// held its speed is not.
func TestRepeatInterleavedAndUnstable(t *testing.T) {
	fs := newFakeServer()
	fs.interval = 10 * time.Millisecond
	srv := fs.start(t)
	doc := newTestRun([]int{1024}, []int{1, 2}, nil, 2*time.Second, 100000)
	doc.Config.Repeat = 3
	Plan(doc, rundoc.Limits{})
	var events bytes.Buffer
	p := &speedChanger{fs: fs, at: "(repeat 3/3)", to: 20 * time.Millisecond}
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 4), Opts: measure.Options{Nonce: "rep", Progress: p, Events: measure.NewEventLog(&events)}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range p.steps {
		if strings.HasPrefix(s, "decode") {
			order = append(order, s)
		}
	}
	want := []string{"decode 1K × 1 (repeat 1/3)", "decode 1K × 2 (repeat 1/3)", "decode 1K × 1 (repeat 2/3)",
		"decode 1K × 2 (repeat 2/3)", "decode 1K × 1 (repeat 3/3)", "decode 1K × 2 (repeat 3/3)"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Errorf("decode steps %q, want %q", order, want)
	}
	for _, c := range doc.Decode {
		if c.CellIntervals == nil || len(c.Repeats) != 3 {
			t.Fatalf("cell ×%d: %+v, want 3 repeats", c.Concurrency, c.CellIntervals)
		}
		if c.Status != rundoc.StatusValid || c.CIMethod != rundoc.CIMethodRepeats || c.TotalTokSCI == nil {
			t.Fatalf("cell ×%d: status %s, method %q, interval %v", c.Concurrency, c.Status, c.CIMethod, c.TotalTokSCI)
		}
		fast, slow := c.Repeats[0].TotalTokS, c.Repeats[2].TotalTokS
		t.Logf("×%d: repeats %.1f, %.1f, %.1f tok/s; published %.1f in [%.1f, %.1f]; unstable %v",
			c.Concurrency, fast, c.Repeats[1].TotalTokS, slow, c.TotalTokS, c.TotalTokSCI.Low, c.TotalTokSCI.High, c.Unstable)
		if slow > 0.7*fast {
			t.Errorf("×%d: the third repeat ran at %.1f tok/s against %.1f: the server did not slow down", c.Concurrency, slow, fast)
		}
		if !c.Unstable || !strings.Contains(strings.Join(c.Flags, ","), "unstable") {
			t.Errorf("×%d: repeats %.1f and %.1f tok/s, yet not flagged unstable", c.Concurrency, fast, slow)
		}
		if c.TotalTokS != c.Repeats[1].TotalTokS && c.TotalTokS != c.Repeats[0].TotalTokS {
			t.Errorf("×%d: published %.1f is not the median repeat", c.Concurrency, c.TotalTokS)
		}
	}
	if len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "3 times") || !strings.Contains(doc.Notes[0], "Unstable") || !strings.Contains(doc.Notes[0], "1K × 2") {
		t.Errorf("notes %q: want the repeat note naming the unstable cells", doc.Notes)
	}
	r.Opts.Events.Flush()
	re, err := RescoreAll(&events)
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Decode) != 2 {
		t.Fatalf("rescored %d cells, want 2", len(re.Decode))
	}
	for _, c := range re.Decode {
		live := doc.Cell(c.Context, c.Concurrency)
		if c.CellIntervals == nil || len(c.Repeats) != 3 || c.TotalTokS != live.TotalTokS || *c.TotalTokSCI != *live.TotalTokSCI || c.Unstable != live.Unstable {
			t.Errorf("rescored ×%d: %v tok/s %+v, live %v %+v", c.Concurrency, c.TotalTokS, c.CellIntervals, live.TotalTokS, live.CellIntervals)
		}
	}
	if len(re.Prefill) != 0 {
		t.Errorf("rescored %d prefill rows, none planned", len(re.Prefill))
	}
}

// TestMergeRepeatSteady: repeats of one speed agree, the cell is not unstable, and
// the interval over them holds every repeat's rate.
func TestMergeRepeatSteady(t *testing.T) {
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}
	var cell rundoc.DecodeCell
	for i := range 3 {
		cell = MergeRepeat(cell, ScoreCell(s.cell(uint64(50+i))))
	}
	if cell.Unstable || len(cell.Repeats) != 3 || cell.CIMethod != rundoc.CIMethodRepeats {
		t.Fatalf("steady repeats: unstable %v, %d repeats, method %q", cell.Unstable, len(cell.Repeats), cell.CIMethod)
	}
	for _, r := range cell.Repeats {
		if !cell.TotalTokSCI.Contains(r.TotalTokS) {
			t.Errorf("interval %+v over repeats misses repeat %.2f", *cell.TotalTokSCI, r.TotalTokS)
		}
	}
	// A failed repeat is kept, and the cell stays its valid repeats' median.
	failed := MergeRepeat(cell, rundoc.DecodeCell{Status: rundoc.StatusFailed, Reason: "boom"})
	if len(failed.Repeats) != 4 || failed.Status != rundoc.StatusValid || failed.TotalTokS != cell.TotalTokS {
		t.Errorf("after a failed repeat: %d repeats, %s, %.2f (was %.2f)", len(failed.Repeats), failed.Status, failed.TotalTokS, cell.TotalTokS)
	}
}

// TestRepeatsThatAgreeKeepTheirNoise: two repeats with the same rate leave the cell
// as uncertain as its median repeat's own window, never a zero-width interval.
func TestRepeatsThatAgreeKeepTheirNoise(t *testing.T) {
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}
	one := ScoreCell(s.cell(7))
	cell := MergeRepeat(MergeRepeat(rundoc.DecodeCell{}, one), one)
	own := one.TotalTokSCI
	if got := cell.TotalTokSCI; got == nil || got.Low > own.Low || got.High < own.High || got.HalfWidth() == 0 {
		t.Errorf("two equal repeats: interval %+v, the repeat's own %+v", got, *own)
	}
}

// TestTwoRepeatsSpanTheirOwnIntervals: two repeats of a steady server give an
// interval that spans their own windows' intervals — a few tok/s wide, not the
// hundreds t with one degree of freedom gives — and publish the slower repeat,
// saying so; a repeat measured first and slower is the one published.
func TestTwoRepeatsSpanTheirOwnIntervals(t *testing.T) {
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}
	a, b := ScoreCell(s.cell(11)), ScoreCell(s.cell(12))
	slow, fast := a, b
	if slow.TotalTokS > fast.TotalTokS {
		slow, fast = fast, slow
	}
	cell := MergeRepeat(MergeRepeat(rundoc.DecodeCell{}, a), b)
	ci := cell.CellIntervals
	if ci.CIMethod != rundoc.CIMethodTwoRepeats || ci.PublishedWhy != rundoc.PublishedSlowerMid || cell.TotalTokS != slow.TotalTokS {
		t.Fatalf("two repeats: method %q, published %d (%s) at %.2f; want %q, the slower %.2f", ci.CIMethod, ci.PublishedRepeat, ci.PublishedWhy, cell.TotalTokS, rundoc.CIMethodTwoRepeats, slow.TotalTokS)
	}
	want := 1
	if a.TotalTokS > b.TotalTokS {
		want = 2
	}
	if ci.PublishedRepeat != want {
		t.Errorf("published repeat %d, want %d (the slower)", ci.PublishedRepeat, want)
	}
	got, x, y := *ci.TotalTokSCI, *a.TotalTokSCI, *b.TotalTokSCI
	if got.Low != min(x.Low, y.Low) || got.High != max(x.High, y.High) {
		t.Errorf("interval %+v, want the span of the repeats' own %+v and %+v", got, x, y)
	}
	// The window's own half-widths here are a few tok/s (200 tok/s at ±30% jitter); t
	// with one degree of freedom over two rates 1 tok/s apart would be ±6 tok/s, and
	// over 10 apart ±64.
	if got.HalfWidth() > 3*max(x.HalfWidth(), y.HalfWidth())+math.Abs(a.TotalTokS-b.TotalTokS) {
		t.Errorf("interval %+v wider than the repeats' own %+v and %+v and their gap", got, x, y)
	}
	if ci.TBTMsCI == nil || ci.TTFTMsCI != nil && (a.TTFTMsCI == nil || b.TTFTMsCI == nil) {
		t.Errorf("TBT %+v, TTFT %+v: each spans the repeats' own, absent where one has none", ci.TBTMsCI, ci.TTFTMsCI)
	}
	one := MergeRepeat(rundoc.DecodeCell{}, a)
	if one.PublishedRepeat != 1 || one.PublishedWhy != rundoc.PublishedOnlyValid {
		t.Errorf("one repeat: published %d (%s)", one.PublishedRepeat, one.PublishedWhy)
	}
	three := MergeRepeat(cell, ScoreCell(s.cell(13)))
	if three.CIMethod != rundoc.CIMethodRepeats || three.PublishedWhy != rundoc.PublishedMedian {
		t.Errorf("three repeats: method %q, published %d (%s)", three.CIMethod, three.PublishedRepeat, three.PublishedWhy)
	}
}

// prefillRow scores a cold request of a 4,096-token prompt whose first token came
// after ttft: its prompt_tok_s is 4,096 over ttft.
func prefillRow(ttft time.Duration) rundoc.PrefillRow {
	const sent = int64(1e12)
	return ScorePrefill(&PrefillRun{Context: 4096, Attempts: 1, Request: measure.Request{Sent: sent, FirstToken: sent + int64(ttft), End: sent + int64(ttft),
		Chunks: [][3]int64{{int64(ttft), 1, 1}}, Tokens: 1, Outcome: "finished", FinishReason: "length"}})
}

// TestPrefillRepeatsLikeDecode: a prefill row's repeats merge by the decode cells'
// rule (overValid). Two give no interval — a cold request has no interval of its own
// to span, and t with one degree of freedom over 400 and 800 ms would be [0, 3,141]
// ms — under repeats_own_ci, and publish the slower, saying so; three give the t
// interval over their values, holding each, publishing the median; a failed repeat
// is kept and leaves the only valid one published.
func TestPrefillRepeatsLikeDecode(t *testing.T) {
	fast, slow := prefillRow(400*time.Millisecond), prefillRow(800*time.Millisecond)
	two := MergePrefillRepeat(MergePrefillRepeat(rundoc.PrefillRow{}, fast), slow)
	pi := two.PrefillIntervals
	if pi.CIMethod != rundoc.CIMethodTwoRepeats || pi.PromptTokSCI != nil || pi.TTFTMsCI != nil {
		t.Errorf("two repeats: method %q, intervals %+v %+v; want %q and none", pi.CIMethod, pi.PromptTokSCI, pi.TTFTMsCI, rundoc.CIMethodTwoRepeats)
	}
	if pi.PublishedRepeat != 2 || pi.PublishedWhy != rundoc.PublishedSlowerMid || two.TTFTMs != 800 {
		t.Errorf("two repeats: published %d (%s) with TTFT %.0f ms; want the slower, 2 (%s)", pi.PublishedRepeat, pi.PublishedWhy, two.TTFTMs, rundoc.PublishedSlowerMid)
	}
	three := MergePrefillRepeat(two, prefillRow(500*time.Millisecond))
	pi = three.PrefillIntervals
	if pi.CIMethod != rundoc.CIMethodRepeats || pi.PublishedRepeat != 3 || pi.PublishedWhy != rundoc.PublishedMedian || pi.TTFTMsCI == nil {
		t.Fatalf("three repeats: method %q, published %d (%s), TTFT interval %+v", pi.CIMethod, pi.PublishedRepeat, pi.PublishedWhy, pi.TTFTMsCI)
	}
	for _, r := range pi.Repeats {
		if !pi.TTFTMsCI.Contains(r.TTFTMs) || !pi.PromptTokSCI.Contains(r.PromptTokS) {
			t.Errorf("three repeats: intervals %+v and %+v miss a repeat's %.0f ms, %.1f tok/s", *pi.TTFTMsCI, *pi.PromptTokSCI, r.TTFTMs, r.PromptTokS)
		}
	}
	failed := MergePrefillRepeat(MergePrefillRepeat(rundoc.PrefillRow{}, rundoc.PrefillRow{Context: 4096, Status: rundoc.StatusFailed, Reason: "boom"}), fast)
	if pi := failed.PrefillIntervals; len(pi.Repeats) != 2 || pi.PublishedRepeat != 2 || pi.PublishedWhy != rundoc.PublishedOnlyValid || pi.CIMethod != "" {
		t.Errorf("a failed and a valid repeat: %d repeats, published %d (%s), method %q", len(pi.Repeats), pi.PublishedRepeat, pi.PublishedWhy, pi.CIMethod)
	}
}
