package bench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// chunkedRequest writes tokens in chunks of k every step from sent+ttft, the client
// counting one token a chunk (the server says nothing per chunk); finished requests
// carry the server's total, the others were cancelled at end.
func chunkedRequest(sent, ttft, step int64, tokens, k int, end int64, calibration bool) measure.Request {
	q := measure.Request{Sent: sent, FirstToken: sent + ttft, Calibration: calibration}
	gen := 0
	for at := sent + ttft; gen < tokens && (end == 0 || at <= end); at += step {
		n := min(k, tokens-gen)
		gen += n
		q.Chunks = append(q.Chunks, [3]int64{at - sent, 1, 1})
		q.End = at
	}
	if gen == tokens {
		q.Outcome, q.FinishReason = "finished", "length"
		q.Usage = &openai.Usage{PromptTokens: 10, CompletionTokens: tokens}
	} else {
		q.Outcome, q.Cancelled, q.End = "cancelled", true, end
	}
	q.Tokens = len(q.Chunks)
	return q
}

// calibratedCell is 4 streams writing 4 tokens every 20 ms through a 6 s window,
// none finishing in it, followed by calibration requests of calLen tokens.
func calibratedCell(calLen, calibrations int) (*CellRun, int) {
	const step = int64(20 * time.Millisecond)
	open := int64(10 * time.Second)
	closeAt := open + int64(6*time.Second)
	run := &CellRun{Context: 0, Concurrency: 4, DurationS: 6, MaxOutput: 4096, Open: open, Close: closeAt}
	truth := 0
	for s := range 4 {
		q := chunkedRequest(int64(s+1)*int64(time.Millisecond), int64(50*time.Millisecond), step, 4096, 4, closeAt, false)
		run.Requests = append(run.Requests, q)
		for _, ch := range q.Chunks {
			if at := q.Sent + ch[0]; at > open && at <= closeAt {
				truth += 4
			}
		}
	}
	for i := range calibrations {
		sent := closeAt + int64(i/4)*int64(3*time.Second) + int64(i%4)*int64(time.Millisecond)
		run.Requests = append(run.Requests, chunkedRequest(sent, int64(30*time.Millisecond), step, calLen, 4, 0, true))
	}
	return run, truth
}

// TestCalibrationBoundCoversItsEnds: calibration requests whose length cuts their last
// chunk (31 tokens in chunks of 4 end on 3) make the tokens per chunk read low, an
// error the per-chunk noise cannot see when every request is alike; the bound must
// cover it, so the cell is not valid on it. Requests of a multiple of the chunk give
// the exact count and a valid cell.
func TestCalibrationBoundCoversItsEnds(t *testing.T) {
	for _, tt := range []struct {
		calLen    int
		wantValid bool
	}{{31, false}, {240, true}, {480, true}} {
		run, truth := calibratedCell(tt.calLen, 16)
		cell := ScoreCell(run)
		if cell.WindowStats == nil || cell.CellDetail == nil {
			t.Fatalf("calibration %d: no figures (%s)", tt.calLen, cell.Reason)
		}
		got := float64(cell.OutputTokens)
		errRel := math.Abs(got-float64(truth)) / float64(truth)
		bound := 0.0
		if cell.TokenCountBound != nil {
			bound = *cell.TokenCountBound
		}
		t.Logf("calibration requests of %d tokens: %d tokens counted against %d (%.2f%% off), bound ±%.2f%%, %s %s",
			tt.calLen, cell.OutputTokens, truth, 100*errRel, 100*bound, cell.Status, cell.Reason)
		if errRel > bound+1e-9 {
			t.Errorf("calibration %d: the count is %.2f%% off, outside its bound ±%.2f%%", tt.calLen, 100*errRel, 100*bound)
		}
		if (cell.Status == rundoc.StatusValid) != tt.wantValid {
			t.Errorf("calibration %d: status %s (%s), want valid %v", tt.calLen, cell.Status, cell.Reason, tt.wantValid)
		}
		if cell.CalibrationRequests != 16 || !slices.Contains(cell.Flags, "chunks_calibrated") {
			t.Errorf("calibration %d: %d calibration requests, flags %v", tt.calLen, cell.CalibrationRequests, cell.Flags)
		}
		if cell.Requests != 4 {
			t.Errorf("calibration %d: the cell says %d requests, want its own 4", tt.calLen, cell.Requests)
		}
	}
}
