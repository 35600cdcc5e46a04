package bench

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// ciBatchSeconds is the batches' target length; minCIBatches the fewest a window is
// cut into (a shorter window gets shorter batches); minBatchGaps the fewest gaps a
// batch needs for its median to stand as a section of tbt_ms.
const (
	ciBatchSeconds = 1.0
	minCIBatches   = 5
	minBatchGaps   = 5
)

// windowBatches is a cell's window cut into equal batches: the tokens and each
// stream's inter-token gaps that arrived in each.
type windowBatches struct {
	seconds float64 // one batch's length
	tokens  []int
	gaps    []streamGaps
}

// streamGaps are one batch's inter-token gaps, summed per stream (request index):
// each stream's time per output token in the batch is its sum over its count, the
// batch-sized version of the cell's tbt_ms.
type streamGaps struct {
	sum []float64
	n   []int
}

func (g streamGaps) total() (n int) {
	for _, k := range g.n {
		n += k
	}
	return n
}

// plus is g and h together (a merged batch).
func (g streamGaps) plus(h streamGaps) streamGaps {
	out := streamGaps{sum: slices.Clone(g.sum), n: slices.Clone(g.n)}
	for i := range h.sum {
		out.sum[i] += h.sum[i]
		out.n[i] += h.n[i]
	}
	return out
}

// tpot is the median over the batch's streams of their time per output token, as
// figures.go takes tbt_ms over the window.
func (g streamGaps) tpot() float64 {
	var v []float64
	for i, k := range g.n {
		if k > 0 && g.sum[i] > 0 { // a first chunk alone in a batch holds no time
			v = append(v, g.sum[i]/float64(k))
		}
	}
	return stats.Median(v)
}

// batchesOf cuts the window into batches and files every token and gap by its
// arrival, with the resolved counts and tpotSpan's rule: a k-token chunk is k tokens
// of its gap from the arrival before (inside the window or not); a request's first
// chunk is k − 1 tokens and no time.
func batchesOf(reqs []measure.Request, c counting, w span) windowBatches {
	secs := w.seconds()
	n := max(int(math.Floor(secs/ciBatchSeconds)), minCIBatches)
	b := windowBatches{seconds: secs / float64(n), tokens: make([]int, n), gaps: make([]streamGaps, n)}
	for i := range b.gaps {
		b.gaps[i] = streamGaps{sum: make([]float64, len(reqs)), n: make([]int, len(reqs))}
	}
	width := float64(w.close-w.open) / float64(n)
	batch := func(at int64) int { return min(int(float64(at-w.open)/width), n-1) }
	for i := range reqs {
		q := &reqs[i]
		prev := int64(-1)
		for j, ch := range q.Chunks {
			k := c.counts[i][j]
			at := q.Sent + ch[0]
			if k == 0 {
				continue
			}
			if w.inside(at) {
				bi := batch(at)
				b.tokens[bi] += k
				switch {
				case prev >= 0: // a gap inside, or from the last arrival before the window
					b.gaps[bi].sum[i] += float64(at-prev) / 1e6
					b.gaps[bi].n[i] += k
				default: // the request's first chunk: its tokens past the first take no time
					b.gaps[bi].n[i] += k - 1
				}
			}
			prev = at
		}
	}
	return b
}

// cellIntervals computes a measured cell's intervals from what it recorded, its
// window cut into batches (batchesOf). Pure: the live run and Rescore get the same
// intervals.
func cellIntervals(reqs []measure.Request, b windowBatches, fig rundoc.DecodeFigures) *rundoc.CellIntervals {
	ci := &rundoc.CellIntervals{CIMethod: rundoc.CIMethodWindow}
	if iv, ok := stats.BatchMeans(b.rates()); ok {
		ci.TotalTokSCI = stats.RoundedCI(iv, 2, 0)
	}
	if iv, ok := tbtSections(b.gaps, fig.TBTMs); ok {
		ci.TBTMsCI = stats.RoundedCI(iv, 2, 0)
	}
	if iv, ok := stats.QuantileCI(requestTTFTs(reqs), 0.5); ok {
		ci.TTFTMsCI = stats.RoundedCI(iv, 1, 0)
	}
	if ci.TotalTokSCI == nil && ci.TBTMsCI == nil && ci.TTFTMsCI == nil {
		return nil
	}
	return ci
}

// tbtSections is tbt_ms's interval by sectioning: the spread of each batch's
// median-stream time per output token around the window's. Batches with too few
// gaps are merged with their neighbours (a slow stream can leave a second without a
// gap) while at least stats.MinBatches remain.
func tbtSections(gaps []streamGaps, center float64) (stats.Interval, bool) {
	few := func(g streamGaps) bool { return g.total() < minBatchGaps }
	for len(gaps) >= stats.MinBatches && slices.ContainsFunc(gaps, few) {
		merged := make([]streamGaps, 0, (len(gaps)+1)/2)
		for i := 0; i < len(gaps); i += 2 {
			g := gaps[i]
			if i+1 < len(gaps) {
				g = g.plus(gaps[i+1])
			}
			merged = append(merged, g)
		}
		gaps = merged
	}
	if len(gaps) < stats.MinBatches || slices.ContainsFunc(gaps, few) {
		return stats.Interval{}, false
	}
	sections := make([]float64, len(gaps))
	for i, g := range gaps {
		sections[i] = g.tpot()
	}
	return stats.Sectioning(center, sections)
}

func requestTTFTs(reqs []measure.Request) []float64 {
	var v []float64
	for i := range reqs {
		if q := &reqs[i]; q.FirstToken != 0 && q.Sent != 0 {
			v = append(v, float64(q.FirstToken-q.Sent)/1e6)
		}
	}
	slices.Sort(v)
	return v
}
