// Package clock owns waiting on the wall clock under a context: the one sleep that
// every polling loop, back-off and paced writer in llmbench uses, so that a cancelled
// run stops waiting at once and no package keeps a timer-or-context select of its own.
package clock

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done; it reports whether ctx is still alive. With
// d zero or less it only looks at ctx, so a loop that sleeps "what is left" ends
// when the context does even once nothing is left.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Until waits until due (at once if it has passed), or until ctx is done; it reports
// whether ctx is still alive.
func Until(ctx context.Context, due time.Time) bool {
	return Sleep(ctx, time.Until(due))
}

// SleepErr is Sleep for callers that return errors: nil after d, else ctx's error.
func SleepErr(ctx context.Context, d time.Duration) error {
	if !Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}
