package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepWaitsItsDuration(t *testing.T) {
	start := time.Now()
	if !Sleep(context.Background(), 20*time.Millisecond) {
		t.Fatal("a live context's sleep reported it dead")
	}
	if got := time.Since(start); got < 20*time.Millisecond {
		t.Errorf("slept %v, asked for 20ms", got)
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Fatal("a cancelled sleep reported its context alive")
	}
	// A loaded machine can be slow to wake us; an hour it is not.
	if got := time.Since(start); got > time.Minute {
		t.Errorf("the cancelled sleep lasted %v", got)
	}
	if !errors.Is(SleepErr(ctx, time.Hour), context.Canceled) {
		t.Error("SleepErr on a cancelled context did not give its error")
	}
}

func TestNothingLeftStillLooksAtTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if !Sleep(ctx, 0) || !Until(ctx, time.Now().Add(-time.Second)) {
		t.Fatal("a live context with nothing to wait reported it dead")
	}
	cancel()
	if Sleep(ctx, 0) || Until(ctx, time.Now().Add(-time.Second)) {
		t.Error("a dead context with nothing to wait reported it alive")
	}
}
