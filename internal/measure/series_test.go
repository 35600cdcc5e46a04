package measure

import (
	"slices"
	"testing"
	"time"
)

// TestSeries: two requests worked out by hand over a 4 s span in 1 s slices — one
// streaming a token every 100 ms from 0.2 s to 3.9 s, one sent at 2.5 s streaming two
// tokens every 100 ms from 2.8 s and never ending — give each slice's tokens over its
// length, the time-weighted streams producing, and the TTFT of the request that started
// in it; a span that does not divide into whole slices gets equal slices near the asked
// length.
func TestSeries(t *testing.T) {
	ms := func(v int) int64 { return int64(v) * int64(time.Millisecond) }
	stream := func(sent, first, end, step, tokens int) Request {
		q := Request{Sent: ms(sent), FirstToken: ms(first), End: ms(end)}
		for at := first; at < 4000 && (end == 0 || at < end); at += step {
			q.Chunks = append(q.Chunks, [3]int64{ms(at - sent), int64(tokens), 1})
		}
		return q
	}
	reqs := []Request{stream(100, 200, 3950, 100, 1), stream(2500, 2800, 0, 100, 2)}
	s := Series(reqs, SeriesSpan{From: 0, To: ms(4000), Slice: time.Second, Origin: func(q *Request) int64 { return q.Sent }})
	if s == nil || s.SliceS != 1 {
		t.Fatalf("series %+v, want 1 s slices", s)
	}
	// Tokens: 0.2–0.9 s (8), 1.0–1.9 (10), 2.0–2.9 (10 + 2 × 2), 3.0–3.9 (10 + 10 × 2).
	// Producing: the first from 0.2 s to 3.95 s, the second from 2.8 s to the end.
	if want := []float64{8, 10, 14, 30}; !slices.Equal(s.TokS, want) {
		t.Errorf("tok_s %v, want %v", s.TokS, want)
	}
	if want := []float64{0.8, 1, 1.2, 1.95}; !slices.Equal(s.Producing, want) {
		t.Errorf("producing %v, want %v", s.Producing, want)
	}
	var ttft []float64
	for _, v := range s.TTFTMs {
		if v == nil {
			ttft = append(ttft, -1)
			continue
		}
		ttft = append(ttft, *v)
	}
	if want := []float64{100, -1, 300, -1}; !slices.Equal(ttft, want) {
		t.Errorf("ttft_ms %v (-1: none), want %v", ttft, want)
	}
	if odd := Series(reqs, SeriesSpan{From: 0, To: ms(4000), Slice: 1500 * time.Millisecond, Origin: func(q *Request) int64 { return q.Sent }}); len(odd.TokS) != 3 || odd.SliceS != 1.333 {
		t.Errorf("4 s in slices of about 1.5 s: %d slices of %v s, want 3 of 1.333", len(odd.TokS), odd.SliceS)
	}
	if Series(reqs, SeriesSpan{From: ms(10), To: ms(10), Slice: time.Second}) != nil {
		t.Error("an empty span has a series")
	}
	if Series(reqs, SeriesSpan{From: 0, To: ms(4000), Origin: func(q *Request) int64 { return q.Sent }}) != nil {
		t.Error("a record from before series (no slice) has one")
	}
}
