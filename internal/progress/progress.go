// Package progress owns a run's terminal display: a live bar (cell x of y, elapsed,
// ETA for the whole run, live tok/s) on a terminal, or one line per step elsewhere (CI
// logs, pipes), and the lines printed around it. It is what a session reports to
// (session.Observer).
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/measure"
)

// Display shows a long run's state on w (stderr), and the run's own lines on out
// (stdout). The live bar, and the clock its elapsed time and ETA count from, start at
// the measurement's first step or log line, not when the display is made.
type Display struct {
	out, w io.Writer
	live   bool
	begin  sync.Once
	start  time.Time
	tokens atomic.Int64

	mu     sync.Mutex
	desc   string
	done   int
	total  int
	p      *mpb.Progress
	bar    *mpb.Bar
	closed bool

	// The plan's own durations (measure.PlanProgress): what its work still needed at
	// this step's start (left) and at the first step (first, at planAt), and this
	// step's window (expect; 0 for a cold prompt read).
	left, first    measure.PlanLeft
	expect         time.Duration
	stepAt, planAt time.Time
	planned        bool

	rateMu  sync.Mutex
	rateAt  time.Time
	rateTok int64
	rate    float64
}

// New is a display of progress on w and of the run's lines on out: live when w is a
// terminal and plain is false.
func New(out, w io.Writer, plain bool) *Display {
	f, ok := w.(*os.File)
	return &Display{out: out, w: w, live: ok && !plain && term.IsTerminal(int(f.Fd()))}
}

// started sets the clock, and starts the live bar's display, at the first step or log
// line of the measurement (a clock set beforehand is kept).
func (p *Display) started() {
	p.begin.Do(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.start.IsZero() {
			p.start = time.Now()
		}
		if p.live && !p.closed {
			// No bar yet, so no decorator that takes p.mu: mpb may start under it.
			p.p = mpb.New(mpb.WithOutput(p.w), mpb.WithWidth(30), mpb.WithRefreshRate(250*time.Millisecond))
		}
	})
}

// Say prints a line of the run's own output.
func (p *Display) Say(line string) { fmt.Fprintln(p.out, line) }

// Note prints a line beside it: a warning or a note.
func (p *Display) Note(line string) { fmt.Fprintln(p.w, line) }

func (p *Display) Step(desc string, done, total int, expect time.Duration) {
	p.started()
	// mpb's render goroutine calls the decorators, which take p.mu: never call into
	// mpb while holding it.
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.desc, p.done, p.total = desc, done, total
	p.expect, p.stepAt = expect, time.Now()
	bar, pp := p.bar, p.p
	p.mu.Unlock()
	if pp == nil {
		if desc != "done" {
			p.mu.Lock()
			eta := p.eta(time.Now())
			p.mu.Unlock()
			fmt.Fprintf(p.w, "[%d/%d %s, ETA %s] %s\n", done+1, total, FormatDuration(time.Since(p.start)), eta, desc)
		}
		return
	}
	if bar == nil {
		bar = pp.AddBar(int64(total),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
				p.mu.Lock()
				defer p.mu.Unlock()
				return fmt.Sprintf("%-18s", p.desc)
			})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return p.status() })),
		)
		p.mu.Lock()
		p.bar = bar
		p.mu.Unlock()
	}
	bar.SetCurrent(int64(done))
}

// Left is measure.PlanProgress's: what the plan still needs as this step starts.
func (p *Display) Left(pl measure.PlanLeft) {
	p.started()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.planned {
		p.first, p.planAt, p.planned = pl, time.Now(), true
	}
	p.left = pl
}

// status is "3/12 · 0:42 elapsed · ETA 1:10 · 329 tok/s"; no rate while a cold
// prompt read runs (it streams one token).
func (p *Display) status() string {
	p.mu.Lock()
	done, total, cold := p.done, p.total, p.expect == 0
	eta := p.eta(time.Now())
	p.mu.Unlock()
	s := fmt.Sprintf(" %d/%d · %s elapsed · ETA %s", min(done+1, total), total, FormatDuration(time.Since(p.start)), eta)
	if rate := p.liveRate(); !cold {
		s += fmt.Sprintf(" · %.0f tok/s", rate)
	}
	return s
}

// eta is the time the run still needs. From the plan's durations when the runner
// gives them: the windows left, less what the current one has run, stretched by how
// much longer than its windows the cells have taken so far (settling, ramps, drains),
// once that is measured over a few seconds; plus the cold prompt reads left at the
// rate the last one read, less what the current one has run. "+" marks an ETA
// without cold reads that nothing has timed yet. Otherwise from the items done so
// far. p.mu is held.
func (p *Display) eta(now time.Time) string {
	if p.done >= p.total {
		return "0:00"
	}
	if !p.planned {
		if p.done == 0 {
			return "…"
		}
		elapsed := now.Sub(p.start)
		return FormatDuration(time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done)))
	}
	inStep, coldNow := min(now.Sub(p.stepAt), p.expect), time.Duration(0)
	if p.expect == 0 {
		coldNow = now.Sub(p.stepAt)
	}
	stretch := 1.0
	if consumed := p.first.Windows - p.left.Windows + inStep; consumed >= 5*time.Second {
		cells := now.Sub(p.planAt) - (p.left.ColdSpent - p.first.ColdSpent) - coldNow
		stretch = max(1, float64(cells)/float64(consumed))
	}
	left := time.Duration(float64(max(p.left.Windows-inStep, 0))*stretch) + max(p.left.Cold-coldNow, 0)
	if p.left.ColdUnknown {
		return FormatDuration(left) + "+"
	}
	return FormatDuration(left)
}

// liveRate is tokens per second over the last second or so.
func (p *Display) liveRate() float64 {
	p.rateMu.Lock()
	defer p.rateMu.Unlock()
	now := time.Now()
	tok := p.tokens.Load()
	if p.rateAt.IsZero() {
		p.rateAt, p.rateTok = now, tok
		return 0
	}
	if dt := now.Sub(p.rateAt); dt >= time.Second {
		p.rate = float64(tok-p.rateTok) / dt.Seconds()
		p.rateAt, p.rateTok = now, tok
	}
	return p.rate
}

func (p *Display) Tokens(n int) { p.tokens.Add(int64(n)) }

func (p *Display) Log(line string) {
	p.started()
	p.mu.Lock()
	pp := p.p
	if p.closed {
		pp = nil
	}
	p.mu.Unlock()
	if pp != nil {
		if _, err := fmt.Fprintln(pp, line); err == nil {
			return
		}
	}
	fmt.Fprintln(p.w, line)
}

// Close stops the live display; safe to call more than once.
func (p *Display) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	bar, pp := p.bar, p.p
	p.mu.Unlock()
	if pp != nil {
		if bar != nil {
			bar.Abort(false)
		}
		pp.Wait()
	}
}

// FormatDuration is a duration as a clock reads it: 0:27, 1:02:03.
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
