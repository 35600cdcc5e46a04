package measure

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestRulesPassWhatAShapeDoesNotMeasure: evidence a shape leaves at zero fails no
// rule — an open-loop cell has no window, no streams held in flight, no row context
// — so that one table judges both shapes.
func TestRulesPassWhatAShapeDoesNotMeasure(t *testing.T) {
	for _, e := range []Evidence{
		{Shape: Schedule},
		{Shape: Window, AskedS: 10, MeasuredS: 10, Streams: 4, AvgInFlight: ptr(4.0), CountSource: rundoc.CountServerPerChunk},
	} {
		if failed, reason := Judge(&e); len(failed) > 0 {
			t.Errorf("shape %d: %v %q; want every rule to pass", e.Shape, failed, reason)
		}
	}
}

// TestEndedEarlyBound: in either shape early ends fail their rule past 3% of the
// figure they can move, and not at 3%.
func TestEndedEarlyBound(t *testing.T) {
	for _, tc := range []struct {
		shape  Shape
		loss   float64
		failed bool
		reason string
	}{
		{Window, 0.03, false, ""},
		{Window, 0.031, true, "the requests that replaced them spent 3.1% of the window's stream-time"},
		{Schedule, 0.03, false, ""},
		{Schedule, 0.05, true, "2 of 40 finished requests ended before their output length (5.0%, more than 3%)"},
	} {
		e := Evidence{Shape: tc.shape, Streams: 1, AvgInFlight: ptr(1.0), Finished: 40, EndedEarly: 2, EarlyEndLoss: tc.loss}
		failed, reason := Judge(&e)
		if slices.Contains(failed, "ended_early") != tc.failed || !strings.Contains(reason, tc.reason) {
			t.Errorf("shape %d, loss %.3f: %v %q; want failed %v, %q", tc.shape, tc.loss, failed, reason, tc.failed, tc.reason)
		}
	}
}

func ptr[T any](v T) *T { return &v }
