package bench

import (
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
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

// span is a window on the run's clock (nanoseconds).
type span struct{ open, close int64 }

func (s span) inside(t int64) bool { return t > s.open && t <= s.close }
func (s span) seconds() float64    { return float64(s.close-s.open) / 1e9 }

// windowFigures are a window's figures as methodology.md defines them, from every
// request's arrivals and their resolved per-chunk counts.
type windowFigures struct {
	fig    rundoc.DecodeFigures
	stats  rundoc.WindowStats
	detail rundoc.CellDetail
	// clientTokens is the client's own count of the window's tokens, before settling.
	clientTokens int
	// events and merged count the window's token events and those that arrived with
	// the one before; deviation is how far resolved per-chunk counts moved from the
	// client's, as a share of the window's tokens.
	events, merged int
	deviation      float64
	// wholeTokens are the window's tokens of requests that arrived whole
	// (arrivedWhole): no gap of theirs was measured.
	wholeTokens int
	// sources are the count sources of the requests with tokens in the window.
	sources []string
	// streams are the per-stream figures: TPOT, chunk gaps, stalls.
	streams streamFigures
}

// cellFigures computes a cell's figures. It is the one place those numbers come from;
// Rescore goes through it too.
func cellFigures(reqs []measure.Request, c counting, w span) windowFigures {
	var (
		out     windowFigures
		ttfts   []float64
		gaps    []float64
		views   = make([]streamView, len(reqs))
		tokens  int
		moved   int
		winSecs = w.seconds()
	)
	for i := range reqs {
		q := &reqs[i]
		out.detail.Requests++
		if !q.Ending().Success() {
			out.detail.Errors++
		}
		if q.FirstToken != 0 && q.Sent != 0 {
			ttfts = append(ttfts, float64(q.FirstToken-q.Sent)/1e6)
		}
		views[i] = viewOf(q, c.counts[i], w)
		inWindow, mine := false, 0
		prev := int64(-1)
		for j, ch := range q.Chunks {
			n := c.counts[i][j]
			at := q.Sent + ch[0]
			if w.inside(at) {
				tokens += n
				mine += n
				out.clientTokens += int(ch[1])
				moved += abs(n - int(ch[1]))
				out.events += int(ch[2])
				out.merged += int(ch[2]) - 1
				inWindow = inWindow || n > 0
			}
			if n == 0 {
				continue // a chunk the resolved count gives no token is no arrival
			}
			if prev >= w.open && prev >= 0 && at <= w.close {
				g := float64(at-prev) / 1e6 / float64(n)
				for k := 0; k < n; k++ {
					gaps = append(gaps, g)
				}
			}
			prev = at
		}
		if inWindow {
			out.sources = append(out.sources, c.source[i])
			if q.ArrivedWhole() {
				out.wholeTokens += mine
				out.detail.StreamsArrivedWhole++
			}
		}
		if q.Finished() && w.inside(q.End) {
			out.stats.CompletedRequests++
		}
	}
	out.detail.PeakStreaming = peakStreaming(reqs, w.close)
	out.stats.OutputTokens = tokens
	out.stats.MeasuredS = stats.Round(winSecs, 3)
	out.streams = perStream(views, reqs, w)
	st := &out.streams
	if winSecs > 0 {
		out.stats.AvgActiveRequests = stats.Round(float64(st.producingNs)/1e9/winSecs, 3)
		out.stats.AvgInFlight = openai.Ptr(stats.Round(float64(st.inFlightNs)/1e9/winSecs, 3))
		out.fig.TotalTokS = stats.Round(float64(tokens)/winSecs, 2)
	}
	// One request's rate as it streams: 1000 / the median stream's time per output
	// token (methodology.md), as the open loop's is. Total tok/s over the active
	// requests would count each request's first token, which came with its prefill,
	// over its gaps after it: 32 tokens over 31 gaps reads 51.6 where 50 came.
	if tpot := stats.Quantile(out.streams.tpots, 0.5); tpot > 0 {
		out.fig.PerRequestTokS = stats.Round(1000/tpot, 2)
	}
	if tokens > 0 {
		out.deviation = float64(moved) / float64(tokens)
	}
	slices.Sort(ttfts)
	slices.Sort(gaps)
	out.fig.TTFTMs = stats.Round(stats.Quantile(ttfts, 0.5), 1)
	// TBT is the median stream's time per output token (TPOT): exact wherever the
	// count is, however many tokens a chunk carries.
	out.fig.TBTMs = stats.Round(stats.Quantile(st.tpots, 0.5), 2)
	d := &out.detail
	d.TTFTSamples, d.TBTSamples = len(ttfts), len(gaps)
	d.TPOTStreams = len(st.tpots)
	d.ITLMs = chunkGaps(st.itl)
	if st.maxSilence > 0 {
		d.MaxStallMs = openai.Ptr(stats.Round(float64(st.maxSilence)/1e6, 1))
	}
	d.StalledStreams = st.stalled
	d.TTFTP90Ms = tail(ttfts, 0.90, measure.MinSamplesP90)
	d.TTFTP99Ms = tail(ttfts, 0.99, measure.MinSamplesP99)
	d.TBTP90Ms = tail(gaps, 0.90, measure.MinSamplesP90)
	d.TBTP99Ms = tail(gaps, 0.99, measure.MinSamplesP99)
	return out
}

// inFlight is how long a request was in flight inside the window, in nanoseconds.
func inFlight(q *measure.Request, w span) int64 {
	if q.Sent == 0 {
		return 0
	}
	end := q.End
	if end == 0 || end > w.close {
		end = w.close
	}
	start := max(q.Sent, w.open)
	return max(end-start, 0)
}

// peakStreaming is the most requests streaming at one instant: over every request's
// span from its first token to its end (the window's close for one still open).
func peakStreaming(reqs []measure.Request, windowClose int64) int {
	var spans []measure.Span
	for i := range reqs {
		q := &reqs[i]
		if q.FirstToken == 0 {
			continue
		}
		end := q.End
		if end == 0 {
			end = windowClose
		}
		spans = append(spans, measure.Span{From: q.FirstToken, To: max(end, q.FirstToken)})
	}
	return measure.PeakOverlap(spans)
}

func tail(sorted []float64, q float64, minSamples int) *float64 {
	if len(sorted) < minSamples {
		return nil
	}
	v := stats.Round(stats.Quantile(sorted, q), 2)
	return &v
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
