package bench

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// countBound is the bound on a window's token count where some of it was estimated.
type countBound struct {
	// estimated: some window tokens were not counted by the server one by one, nor
	// as a request wholly inside the window.
	estimated bool
	// ok: the run saw enough requests the server counted (two) to bound the estimate;
	// rel is then the relative bound on the window's tokens.
	ok  bool
	rel float64
	// counted is how many requests the server counted in total.
	counted int
	// sigma2 is the per-chunk variance of tokens about the ratio, and ratioSE the
	// ratio's standard error, over those requests (zero with fewer than two).
	sigma2, ratioSE float64
}

// boundCounts bounds the window's resolved count. Every estimate rests on the tokens
// per chunk of the requests the server counted in total: under the model that a
// request's tokens are its chunks × a common ratio plus independent per-chunk noise
// of variance σ², those requests give the ratio and σ² (pooled over their chunks).
// A request whose total was spread over its chunks and that straddles the window's
// edge errs by at most its smaller part's noise; one counted by the ratio errs by its
// window part's noise plus the ratio's own error, common to all such requests. The
// bound is two standard errors, plus a token of rounding per estimated request, over
// the window's tokens, and the ends of calibration requests (endEffect) as a bound.
func boundCounts(reqs []measure.Request, c counting, w span, tokens int) countBound {
	var b countBound
	var sumT, sumL float64
	calibrations := 0
	type counted struct{ total, client float64 }
	var totals []counted
	for i := range reqs {
		q := &reqs[i]
		if c.source[i] != rundoc.CountServerTotals && c.source[i] != rundoc.CountTokenizeRoute {
			continue
		}
		total, _, _ := serverTotal(q)
		client := clientTotal(q)
		if client == 0 {
			continue
		}
		totals = append(totals, counted{float64(total), float64(client)})
		sumT += float64(total)
		sumL += float64(client)
		if q.Calibration {
			calibrations++
		}
	}
	b.counted = len(totals)
	var sigma2 float64 // per-chunk variance of tokens
	if len(totals) >= 2 && sumL > 0 {
		r := sumT / sumL
		ss := 0.0
		for _, t := range totals {
			d := t.total - r*t.client
			ss += d * d
		}
		sigma2 = ss / sumL * float64(len(totals)) / float64(len(totals)-1)
		b.sigma2, b.ratioSE = sigma2, math.Sqrt(sigma2/sumL)
	}
	var random2, system, edge float64
	for i := range reqs {
		q := &reqs[i]
		in, out := clientSplit(q, w)
		if in == 0 {
			continue
		}
		switch c.source[i] {
		case rundoc.CountServerTotals, rundoc.CountTokenizeRoute:
			total, src, _ := serverTotal(q)
			if out == 0 || agrees(total, clientTotal(q), src) {
				continue // counted whole, or the server confirmed one token a chunk
			}
			b.estimated = true
			random2 += sigma2*float64(min(in, out)) + 1
		case rundoc.CountFinishedRatio:
			b.estimated = true
			random2 += sigma2*float64(in) + 1
			if sumL > 0 {
				system += float64(in) * math.Sqrt(sigma2/sumL)
				edge += float64(in) * endEffect(sumT, sumL, calibrations)
			}
		}
	}
	if !b.estimated {
		return b
	}
	b.ok = len(totals) >= 2 && tokens > 0
	if b.ok {
		b.rel = (2*math.Sqrt(random2) + 2*system + edge) / float64(tokens)
	}
	return b
}

// endEffect is the error of the tokens per client-counted token (the ratio) that the
// ends of short calibration requests may carry and the per-chunk noise does not: a
// first chunk unlike the others (one token where a speculative step writes four), a
// last one cut by max_tokens. It allows one chunk's worth of tokens (the ratio) a
// calibration request, as a bound, not a standard error: it does not average out.
// The requests' lengths, multiples of every chunk size up to 6, leave a regular
// chunker no cut last chunk, so the one chunk is the first's; a server whose first
// and last chunks both stray by more than a chunk is outside this allowance. A
// cell's own finished requests ran to its max output and are left to the noise.
func endEffect(sumT, sumL float64, calibrations int) float64 {
	if calibrations == 0 || sumT <= 0 || sumL <= 0 {
		return 0
	}
	r := sumT / sumL
	return r * r * float64(calibrations) / sumT
}

// clientTotal is the client's own count of a request's tokens.
func clientTotal(q *measure.Request) int {
	n := 0
	for _, ch := range q.Chunks {
		n += int(ch[1])
	}
	return n
}

// clientSplit is the client's count of a request's tokens inside and outside the
// window.
func clientSplit(q *measure.Request, w span) (in, out int) {
	for _, ch := range q.Chunks {
		if w.inside(q.Sent + ch[0]) {
			in += int(ch[1])
		} else {
			out += int(ch[1])
		}
	}
	return in, out
}

// tpotBound bounds tbt_ms where a stream's count in the window was estimated. TPOT
// needs no split of a chunk's tokens (tpotSpan), only the tokens its span covers: a
// request counted whole inside the window has them exactly; one the window's edge cut
// and whose total was spread over its chunks errs by its smaller part's noise; one
// counted by the ratio by its window part's noise plus the ratio's error (the model
// of boundCounts). Each stream's bound is two standard errors, plus a token of
// rounding, over its tokens; the cell's is the median over streams, as tbt_ms is a
// median. With too few requests counted to know the noise, token_count_bound already
// says the count is unbounded, and this is 0.
func tpotBound(reqs []measure.Request, c counting, w span, count countBound) float64 {
	if !count.estimated || !count.ok {
		return 0
	}
	var rels []float64
	for i := range reqs {
		q := &reqs[i]
		_, tokens, _, ok := tpotSpan(viewOf(q, c.counts[i], w), w)
		if !ok {
			continue
		}
		rel := 0.0
		if chunks, system, estimated := streamEstimate(q, c, i, w, count); estimated {
			rel = (2*math.Sqrt(count.sigma2*float64(chunks)+1) + 2*system) / float64(tokens)
		}
		rels = append(rels, rel)
	}
	if len(rels) == 0 {
		return 0
	}
	slices.Sort(rels)
	return stats.Quantile(rels, 0.5)
}

// streamEstimate says how request i's count in the window was estimated: over how
// many client-counted tokens the per-chunk noise adds up, and the systematic error
// of the ratio it was scaled by; estimated is false where the count is exact.
func streamEstimate(q *measure.Request, c counting, i int, w span, count countBound) (chunks int, system float64, estimated bool) {
	in, out := clientSplit(q, w)
	switch c.source[i] {
	case rundoc.CountServerTotals, rundoc.CountTokenizeRoute:
		total, src, _ := serverTotal(q)
		if out == 0 || agrees(total, clientTotal(q), src) {
			return 0, 0, false
		}
		return min(in, out), 0, true
	case rundoc.CountFinishedRatio:
		return in, float64(in) * count.ratioSE, true
	}
	return 0, 0, false
}
