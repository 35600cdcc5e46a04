package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestETAFromThePlan: before any cell has finished the ETA is the plan's windows
// left, less what the current one has run; once the run has taken longer than its
// windows (warm-ups, drains), the ETA stretches by that much.
func TestETAFromThePlan(t *testing.T) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &bytes.Buffer{}, start: start}
	p.Left(12 * 30 * time.Second) // twelve 30-s cells
	p.done, p.total, p.expect, p.stepAt = 0, 14, 30*time.Second, start.Add(4*time.Second)
	// 10 s into the first cell: 11 cells and 20 s left; 14 s elapsed, of which the plan
	// accounts for 10 s: stretched by 1.4.
	if got, want := p.eta(start.Add(14*time.Second)), fmtDur(490*time.Second); got != want { // 1.4 × 350 s
		t.Errorf("ETA 10 s into the first cell: %s, want %s", got, want)
	}
	// 2 s into it, too little to stretch by: the plan's own time.
	if got, want := p.eta(start.Add(6*time.Second)), fmtDur(11*30*time.Second+28*time.Second); got != want {
		t.Errorf("ETA 2 s into the first cell: %s, want %s", got, want)
	}
	// At the last cell's start, on plan: one window left.
	p.Left(30 * time.Second)
	p.done, p.stepAt = 13, start.Add(330*time.Second)
	if got := p.eta(start.Add(330 * time.Second)); got != "0:30" {
		t.Errorf("ETA at the last cell, on plan: %s, want 0:30", got)
	}
}

// TestETAWithoutAPlanWaitsForAnItem: a runner that gives no durations gets the old
// ETA, from the items done.
func TestETAWithoutAPlanWaitsForAnItem(t *testing.T) {
	start := time.Now()
	p := &progress{w: &bytes.Buffer{}, start: start, total: 4}
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
	p := newProgress(&b, true)
	p.Left(60 * time.Second)
	p.Step("decode 0 × 1", 0, 2, 30*time.Second)
	if !strings.Contains(b.String(), "ETA 1:00] decode 0 × 1") {
		t.Errorf("plain progress line %q has no plan ETA", b.String())
	}
}
