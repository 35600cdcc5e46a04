package bench

import (
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Thresholds of the stall check (docs/run.md).
const (
	// stallFloor and stallGaps: a stream silent for longer than the larger of a
	// second and 20 median chunk gaps of its cell is stalled.
	stallFloor = time.Second
	stallGaps  = 20
	// stallShare: stalls taking more than this share of the window's stream-seconds
	// make the cell not valid.
	stallShare = 0.10
)

// arrival is one token-bearing chunk of a request on the run's clock, with its
// resolved token count.
type arrival struct {
	at int64
	n  int
}

// streamView is one request's arrivals and producing span, as the per-stream
// figures (TPOT, chunk gaps, stalls) read them.
type streamView struct {
	arrivals []arrival
	// end is when the request stopped producing: its end, or the window's close for
	// one still open then.
	end int64
}

// streamFigures are the cell's per-stream figures.
type streamFigures struct {
	tpots []float64 // ms per output token of each stream with two arrivals in the window
	itl   []float64 // ms between consecutive arrivals inside the window
	// stallNs are the silences inside the window longer than the threshold;
	// maxSilence the longest silence of any producing stream; stalled the streams
	// with one; producingNs the time streams produced (from their first token to
	// their end, stalls removed); inFlightNs the time they were in flight.
	maxSilence, stallNs, producingNs, inFlightNs int64
	stalled                                      int
	threshold                                    time.Duration
}

// viewOf is request q's arrivals under the resolved counts.
func viewOf(q *measure.Request, counts []int, w span) streamView {
	v := streamView{end: q.End}
	if v.end == 0 || v.end > w.close {
		v.end = w.close
	}
	for j, ch := range q.Chunks {
		if counts[j] > 0 {
			v.arrivals = append(v.arrivals, arrival{q.Sent + ch[0], counts[j]})
		}
	}
	return v
}

// perStream computes TPOT, chunk gaps and stalls over the window from every
// request's view (TPOT: tpotSpan).
func perStream(views []streamView, reqs []measure.Request, w span) streamFigures {
	var f streamFigures
	for i, v := range views {
		f.inFlightNs += inFlight(&reqs[i], w)
		if ns, tokens, _, ok := tpotSpan(v, w); ok {
			f.tpots = append(f.tpots, float64(ns)/1e6/float64(tokens))
		}
		for k := 1; k < len(v.arrivals); k++ {
			if w.inside(v.arrivals[k].at) && w.inside(v.arrivals[k-1].at) {
				f.itl = append(f.itl, float64(v.arrivals[k].at-v.arrivals[k-1].at)/1e6)
			}
		}
	}
	slices.Sort(f.tpots)
	slices.Sort(f.itl)
	f.threshold = max(stallFloor, time.Duration(stallGaps*stats.Quantile(f.itl, 0.5)*1e6))
	for i, v := range views {
		f.addSilences(v, reqs[i].FirstToken, w)
	}
	return f
}

// tpotSpan is a stream's time per output token over the window, as the span ns and
// the tokens it covers; first is the stream's first arrival inside the window.
//
// A stream whose first token arrived inside the window counts as vLLM does, (last −
// first token) / (tokens − 1), so that TTFT + (tokens − 1) × TPOT is its latency
// however many tokens its first chunk carried (a server holding back a character's
// bytes, a speculative step): exact whenever its count is. A stream the window's open
// cut into starts from its last arrival before the window, the gap in which its first
// chunk inside was generated: the span then covers exactly the window's tokens, and
// what that chunk carried need not be known either.
func tpotSpan(v streamView, w span) (ns int64, tokens, first int, ok bool) {
	first = -1
	var start, last int64
	for k, a := range v.arrivals {
		if !w.inside(a.at) {
			continue
		}
		if first < 0 {
			first = k
			if k == 0 {
				start, tokens = a.at, a.n-1
			} else {
				start, tokens = v.arrivals[k-1].at, a.n
			}
		} else {
			tokens += a.n
		}
		last = a.at
	}
	if first < 0 || tokens <= 0 || last <= start {
		return 0, 0, first, false
	}
	return last - start, tokens, first, true
}

// addSilences adds a stream's silences inside the window: between its arrivals, and
// from its last arrival to its end (or the window's close), each clipped to the
// window. Time before a request's first token is its TTFT, not a silence.
func (f *streamFigures) addSilences(v streamView, firstToken int64, w span) {
	if firstToken == 0 || len(v.arrivals) == 0 {
		return
	}
	start := max(firstToken, w.open)
	if v.end > start {
		f.producingNs += min(v.end, w.close) - start
	}
	stalled := false
	silence := func(a, b int64) {
		a, b = max(a, w.open), min(b, w.close)
		if b <= a {
			return
		}
		d := b - a
		f.maxSilence = max(f.maxSilence, d)
		if time.Duration(d) > f.threshold {
			f.stallNs += d
			f.producingNs -= d
			stalled = true
		}
	}
	for k := 1; k < len(v.arrivals); k++ {
		silence(v.arrivals[k-1].at, v.arrivals[k].at)
	}
	silence(v.arrivals[len(v.arrivals)-1].at, v.end)
	if stalled {
		f.stalled++
	}
}

func chunkGaps(sorted []float64) *rundoc.ChunkGaps {
	if len(sorted) == 0 {
		return nil
	}
	return &rundoc.ChunkGaps{P50: stats.Round(stats.Quantile(sorted, 0.5), 2), P90: tail(sorted, 0.90, measure.MinSamplesP90),
		P99: tail(sorted, 0.99, measure.MinSamplesP99), Samples: len(sorted)}
}
