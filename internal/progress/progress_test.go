package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
)

// TestETAFromThePlan: before any cell has finished the ETA is the plan's windows
// left, less what the current one has run; once the cells have taken longer than their
// windows (settling, drains), the ETA stretches by that much.
func TestETAFromThePlan(t *testing.T) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	p := &Display{w: &bytes.Buffer{}, start: start}
	// The client's calibration ran before the plan: 4 s the plan does not stretch by.
	p.Left(measure.PlanLeft{Windows: 12 * 30 * time.Second}) // twelve 30-s cells
	p.planAt = start.Add(4 * time.Second)
	p.done, p.total, p.expect, p.stepAt = 0, 14, 30*time.Second, start.Add(6*time.Second)
	// 10 s into the first cell: 11 cells and 20 s left; 12 s since the plan began, of
	// which its windows account for 10 s: stretched by 1.2.
	if got, want := p.eta(start.Add(16*time.Second)), FormatDuration(420*time.Second); got != want { // 1.2 × 350 s
		t.Errorf("ETA 10 s into the first cell: %s, want %s", got, want)
	}
	// 2 s into it, too little to stretch by: the plan's own time.
	if got, want := p.eta(start.Add(8*time.Second)), FormatDuration(11*30*time.Second+28*time.Second); got != want {
		t.Errorf("ETA 2 s into the first cell: %s, want %s", got, want)
	}
	// At the last cell's start, on plan: one window left.
	p.Left(measure.PlanLeft{Windows: 30 * time.Second})
	p.done, p.stepAt = 13, start.Add(334*time.Second)
	if got := p.eta(start.Add(334 * time.Second)); got != "0:30" {
		t.Errorf("ETA at the last cell, on plan: %s, want 0:30", got)
	}
}

// TestETACountsColdReads: the cold prompt reads left are added at the last one's rate
// (their time does not stretch the windows), and an ETA that cannot count them yet
// says so with "+".
func TestETACountsColdReads(t *testing.T) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	p := &Display{w: &bytes.Buffer{}, start: start}
	p.Left(measure.PlanLeft{Windows: 9 * 3 * time.Second, ColdUnknown: true})
	p.planAt = start
	p.done, p.total, p.expect, p.stepAt = 0, 12, 3*time.Second, start
	if got := p.eta(start); got != "0:27+" {
		t.Errorf("ETA before any cold read was timed: %s, want 0:27+", got)
	}
	// 16 s in, 4 cells done on plan (12 s of windows) and 4 s of cold reads; now a cold
	// read of 12 s (predicted) is 3 s in, and 5 windows follow.
	p.Left(measure.PlanLeft{Windows: 5 * 3 * time.Second, Cold: 12 * time.Second, ColdSpent: 4 * time.Second})
	p.done, p.expect, p.stepAt = 5, 0, start.Add(16*time.Second)
	if got, want := p.eta(start.Add(19*time.Second)), FormatDuration(15*time.Second+9*time.Second); got != want {
		t.Errorf("ETA 3 s into a 12-s cold read: %s, want %s (windows unstretched, the read's rest)", got, want)
	}
}

// TestETAWithoutAPlanWaitsForAnItem: a runner that gives no durations gets the old
// ETA, from the items done.
func TestETAWithoutAPlanWaitsForAnItem(t *testing.T) {
	start := time.Now()
	p := &Display{w: &bytes.Buffer{}, start: start, total: 4}
	if got := p.eta(start.Add(time.Second)); got != "…" {
		t.Errorf("no plan, nothing done: %s, want …", got)
	}
	p.done = 2
	if got := p.eta(start.Add(20 * time.Second)); got != "0:20" {
		t.Errorf("no plan, 2 of 4 in 20 s: %s, want 0:20", got)
	}
}

// TestPlainProgressLinesHaveAnETA: the line-per-step display (CI logs) says the ETA.
func TestPlainProgressLinesHaveAnETA(t *testing.T) {
	var b bytes.Buffer
	p := New(&bytes.Buffer{}, &b, true)
	p.Left(measure.PlanLeft{Windows: 60 * time.Second})
	p.Step("decode 0 × 1", 0, 2, 30*time.Second)
	if !strings.Contains(b.String(), "ETA 1:00] decode 0 × 1") {
		t.Errorf("plain progress line %q has no plan ETA", b.String())
	}
}
