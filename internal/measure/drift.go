package measure

import (
	"math"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// The rate_drift flag (docs/run.md "Inside a window"), one rule for every load shape:
// a measurement's one-second batches' rates that step from one level to another by
// more than their own noise say so, and by enough to matter. A matrix cell's rate is
// its window's tok/s (internal/bench); a rate cell's is the tok/s one streaming
// request got (StreamRates), since its total follows its arrivals.
const (
	// DriftMinSide is the fewest batches on either side of a split: a level is not
	// judged from fewer than three of them.
	DriftMinSide = 3
	// driftT is how many standard errors apart the two levels must be. Of every split
	// the largest is taken, so the threshold is above a single test's: on independent
	// noise it flags fewer than 1 window in 100 of 6–10 batches and 1 in 1,000 of 20
	// or more (TestDriftFalseFlags, internal/bench; TestRateCellDriftFalseFlags,
	// internal/openloop).
	driftT = 5.0
	// driftShare is the least step worth a flag, as a share of the mean rate: a
	// steady server's rate can move by a few percent as its requests' contexts grow.
	driftShare = 0.10
)

// RateDrift is how a measurement's rate moved, when it moved beyond its noise (the
// flag rate_drift); nil when it held. rates are its batches' rates, startS where each
// batch starts, in seconds from the measurement's start.
func RateDrift(rates, startS []float64) *rundoc.Drift {
	at, before, after, t, ok := stats.Shift(rates, DriftMinSide)
	if !ok || t < driftT {
		return nil
	}
	mean, _ := stats.MeanSD(rates)
	if math.Abs(after-before) < driftShare*mean {
		return nil
	}
	d := &rundoc.Drift{AtS: stats.Round(startS[at], 3), BeforeTokS: stats.Round(before, 2), AfterTokS: stats.Round(after, 2)}
	if !math.IsInf(t, 0) {
		d.T = RoundPtr(t, 1)
	}
	return d
}

// streamBatch is the least streaming a batch needs to give a stream's rate: half a
// request streaming through it on average; a batch of less is left out.
const streamBatch = 0.5

// StreamRates cuts [from, to] into batches of about a second and gives each batch's
// stream rate: the output tokens that arrived in it after each request's first chunk
// (its TTFT's), over the time requests spent streaming in it (past their first token,
// not ended), so a server that slows shows whatever the number streaming; startS is
// where each batch starts, in seconds after from. Batches with under streamBatch
// requests streaming on average are left out. Pure, so a re-score gives the same.
func StreamRates(reqs []Request, from, to int64) (rates, startS []float64) {
	span := to - from
	n := int(math.Round(float64(span) / 1e9))
	if n < 1 {
		return nil, nil
	}
	width := float64(span) / float64(n)
	tokens := make([]int, n)
	streaming := make([]float64, n) // ns
	for i := range reqs {
		q := &reqs[i]
		if q.FirstToken == 0 || len(q.Chunks) == 0 {
			continue
		}
		for _, ch := range q.Chunks[1:] {
			if t := q.Sent + ch[0]; t > from && t <= to {
				tokens[min(int(float64(t-from)/width), n-1)] += int(ch[1])
			}
		}
		end := q.End
		if end == 0 || end > to {
			end = to
		}
		if start := max(q.FirstToken, from); start < end {
			spread(streaming, start, end, from, width)
		}
	}
	for b := range n {
		if streaming[b] >= streamBatch*width {
			rates = append(rates, float64(tokens[b])/(streaming[b]/1e9))
			startS = append(startS, float64(b)*width/1e9)
		}
	}
	return rates, startS
}
