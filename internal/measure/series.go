package measure

import (
	"cmp"
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// DefaultTimeslice is a series' slice when the run asks for none (--timeslice).
const DefaultTimeslice = time.Second

// SliceNs is the slice a measurement's record carries for its series: the run's
// --timeslice, DefaultTimeslice where it gave none. A record without one (0) is from
// a version before series: re-scoring it gives none, as its document has none, so
// `report --rescore` still reproduces that document exactly.
func SliceNs(d time.Duration) int64 { return int64(cmp.Or(d, DefaultTimeslice)) }

// SeriesSpan is what a measurement's series is cut from: its span on the run's clock,
// the slices' target length (0: a record from before series, which has none), each chunk's tokens as the shape
// counts them (nil: the chunk's own count), and when each request's TTFT counts from
// (the shape's origin: its send, or its scheduled time).
type SeriesSpan struct {
	From, To int64
	Slice    time.Duration
	Tokens   func(i, j int) int
	Origin   func(q *Request) int64
}

// Series is the span slice by slice (rundoc.Series): the tokens that arrived in each
// over its length, the requests streaming in each (time-weighted), and the median
// TTFT of the requests that started in each. Pure, so a re-score gives the same.
func Series(reqs []Request, sp SeriesSpan) *rundoc.Series {
	span, slice := sp.To-sp.From, sp.Slice
	if span <= 0 || slice <= 0 {
		return nil
	}
	n := max(1, int(math.Round(float64(span)/float64(slice))))
	width := float64(span) / float64(n)
	at := func(t int64) int { return min(int(float64(t-sp.From)/width), n-1) }
	tokens := make([]int, n)
	producing := make([]float64, n) // ns streaming
	ttfts := make([][]float64, n)
	for i := range reqs {
		q := &reqs[i]
		for j, ch := range q.Chunks {
			if t := q.Sent + ch[0]; t > sp.From && t <= sp.To {
				k := int(ch[1])
				if sp.Tokens != nil {
					k = sp.Tokens(i, j)
				}
				tokens[at(t)] += k
			}
		}
		if q.FirstToken == 0 {
			continue
		}
		end := q.End
		if end == 0 || end > sp.To {
			end = sp.To
		}
		spread(producing, max(q.FirstToken, sp.From), end, sp.From, width)
		if o := sp.Origin(q); o >= sp.From && o <= sp.To {
			ttfts[at(o)] = append(ttfts[at(o)], float64(q.FirstToken-o)/1e6)
		}
	}
	out := &rundoc.Series{SliceS: stats.Round(width/1e9, 3), TokS: make([]float64, n), Producing: make([]float64, n), TTFTMs: make([]*float64, n)}
	for b := range n {
		out.TokS[b] = stats.Round(float64(tokens[b])/(width/1e9), 2)
		out.Producing[b] = stats.Round(producing[b]/width, 3)
		if len(ttfts[b]) > 0 {
			out.TTFTMs[b] = RoundPtr(stats.Median(ttfts[b]), 1)
		}
	}
	return out
}

// spread adds the part of [from, to) that lies in each slice of width after origin.
func spread(slices []float64, from, to, origin int64, width float64) {
	for b := int(float64(from-origin) / width); b < len(slices) && from < to; b++ {
		end := min(to, origin+int64(math.Round(float64(b+1)*width)))
		if end > from {
			slices[b] += float64(end - from)
			from = end
		}
	}
}
