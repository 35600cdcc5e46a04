package bench

import "github.com/llmbench/llmbench/internal/measure"

// Early ends. A request that ends before max output (an EOS the engine did not
// suppress, a "length" finish where its slot's context ran out) is replaced at once,
// and the cell then holds more replacements than the plan: each costs its stream the
// time until its successor's first token (the successor's prefill, any wait for a
// slot, the gap between the two). That time is all an early end can take from the
// figure — a stream's tokens come as fast as ever once it produces, so its time per
// output token is untouched — and it lowers total tok/s by its share of the window's
// stream-time at most. The share is the early ends' bound (early_end_loss): within
// measure.MaxCountBound, the figure stands and the cell is flagged ended_early; beyond
// it, the cell measured replacements more than decoding, and it is not valid
// (measure's endedEarly rule). A request ends early by measure.Request.EndedEarly.

// earlyEndLoss is the share of the window's stream-time (streams × its length) that
// the successors of requests ended early spent, inside the window, between their
// predecessor's end and their own first token (or their end, or the window's
// close). A request's successor is its stream's next request; in a log from before
// streams were recorded, the next request sent at or after its end.
func earlyEndLoss(reqs []measure.Request, maxOutput, streams int, w span) float64 {
	if streams <= 0 || w.close <= w.open {
		return 0
	}
	var lost int64
	for i := range reqs {
		q := &reqs[i]
		if !q.EndedEarly(q.Asked(maxOutput)) || q.End >= w.close {
			continue
		}
		until := w.close
		if n := successor(reqs, i); n >= 0 {
			s := &reqs[n]
			switch {
			case s.FirstToken != 0:
				until = s.FirstToken
			case s.End != 0:
				until = s.End
			}
		}
		from, to := max(q.End, w.open), min(until, w.close)
		if to > from {
			lost += to - from
		}
	}
	return float64(lost) / (float64(streams) * float64(w.close-w.open))
}

// successor is the index of the request that followed request i on its stream, -1
// when none did.
func successor(reqs []measure.Request, i int) int {
	q := &reqs[i]
	best := -1
	for j := range reqs {
		r := &reqs[j]
		if j == i || r.Sent < q.End || q.Stream != r.Stream {
			continue
		}
		if best < 0 || r.Sent < reqs[best].Sent {
			best = j
		}
	}
	return best
}
