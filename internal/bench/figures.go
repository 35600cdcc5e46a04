package bench

import (
	"math"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// Minimum sample counts for tail percentiles [MLPerf LoadGen early stopping]: below
// these, a p90 or p99 says more about luck than about the server.
const (
	minSamplesP90 = 64
	minSamplesP99 = 662
)

// Window is a cell's measurement window: it opens when every stream has its first
// token and closes when the streams are cancelled.
type Window struct {
	Open, Close time.Time
}

// Length is the window's real length.
func (w Window) Length() time.Duration { return w.Close.Sub(w.Open) }

// inside reports whether t falls in the window. A token arriving exactly at Open is the
// one that opened it and belongs to the time before.
func (w Window) inside(t time.Time) bool { return t.After(w.Open) && !t.After(w.Close) }

// CellFigures computes a decode cell's figures from what every request of the cell saw,
// exactly as methodology.md defines them. It is the one place those numbers come from;
// re-scoring an events log goes through it too.
func CellFigures(results []*openai.StreamResult, w Window) (DecodeFigures, WindowStats, CellDetail) {
	var (
		fig     DecodeFigures
		stats   WindowStats
		detail  CellDetail
		ttfts   []float64
		gaps    []float64
		active  time.Duration
		tokens  int
		winSecs = w.Length().Seconds()
	)
	for _, r := range results {
		if r == nil {
			continue
		}
		detail.Requests++
		if r.Err != nil {
			detail.Errors++
		}
		if !r.FirstToken.IsZero() && !r.Sent.IsZero() {
			ttfts = append(ttfts, ms(r.FirstToken.Sub(r.Sent)))
		}
		// Time in flight, clipped to the window.
		if !r.Sent.IsZero() {
			end := r.End
			if end.IsZero() || end.After(w.Close) {
				end = w.Close
			}
			start := r.Sent
			if start.Before(w.Open) {
				start = w.Open
			}
			if end.After(start) {
				active += end.Sub(start)
			}
		}
		for i, c := range r.Chunks {
			if w.inside(c.At) {
				tokens += c.N
			}
			if i == 0 {
				continue
			}
			prev := r.Chunks[i-1].At
			if !prev.Before(w.Open) && !c.At.After(w.Close) {
				g := ms(c.At.Sub(prev)) / float64(c.N)
				for k := 0; k < c.N; k++ {
					gaps = append(gaps, g)
				}
			}
		}
		if r.Finished() && w.inside(r.End) {
			stats.CompletedRequests++
		}
	}
	detail.PeakStreaming = peakStreaming(results, w.Close)
	stats.OutputTokens = tokens
	stats.MeasuredS = round(winSecs, 3)
	if winSecs > 0 {
		stats.AvgActiveRequests = round(active.Seconds()/winSecs, 3)
		fig.TotalTokS = round(float64(tokens)/winSecs, 2)
	}
	if stats.AvgActiveRequests > 0 {
		fig.PerRequestTokS = round(fig.TotalTokS/stats.AvgActiveRequests, 2)
	}
	slices.Sort(ttfts)
	slices.Sort(gaps)
	fig.TTFTMs = round(quantile(ttfts, 0.5), 1)
	fig.TBTMs = round(quantile(gaps, 0.5), 2)
	detail.TTFTSamples, detail.TBTSamples = len(ttfts), len(gaps)
	detail.TTFTP90Ms = tail(ttfts, 0.90, minSamplesP90)
	detail.TTFTP99Ms = tail(ttfts, 0.99, minSamplesP99)
	detail.TBTP90Ms = tail(gaps, 0.90, minSamplesP90)
	detail.TBTP99Ms = tail(gaps, 0.99, minSamplesP99)
	return fig, stats, detail
}

// peakStreaming is the most requests streaming at one instant: a sweep over every
// request's span from its first token to its end (the window's close for one still
// open). An end at the same instant as another's first token counts before it, so two
// back-to-back requests on one slot are never counted as two.
func peakStreaming(results []*openai.StreamResult, windowClose time.Time) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, r := range results {
		if r == nil || r.FirstToken.IsZero() {
			continue
		}
		end := r.End
		if end.IsZero() {
			end = windowClose
		}
		if end.Before(r.FirstToken) {
			end = r.FirstToken
		}
		edges = append(edges, edge{r.FirstToken, +1}, edge{end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first
	})
	peak, now := 0, 0
	for _, e := range edges {
		now += e.delta
		peak = max(peak, now)
	}
	return peak
}

func tail(sorted []float64, q float64, minSamples int) *float64 {
	if len(sorted) < minSamples {
		return nil
	}
	v := round(quantile(sorted, q), 2)
	return &v
}

// quantile of sorted values, interpolating between the two nearest ranks (so the
// median of an even count is the mean of the middle two).
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
