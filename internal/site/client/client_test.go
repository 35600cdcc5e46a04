package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/site/wire"
)

// TestSubmitRetriesWhatTheSiteSaysToRetry: llmbench submit tries again after a 429 or
// 503 that says when (Retry-After), waiting what it says, at most submitAttempts times
// and maxRetryWait a wait, and says so; anything else is answered at once.
func TestSubmitRetriesWhatTheSiteSaysToRetry(t *testing.T) {
	type answer struct {
		status     int
		retryAfter string
	}
	created := answer{http.StatusCreated, ""}
	cases := []struct {
		name      string
		answers   []answer
		waits     []time.Duration
		wantErr   int // the status the error names; 0: submitted
		wantTries int
	}{
		{"rate limited, then busy, then stored", []answer{{429, "2"}, {503, "1"}, created}, []time.Duration{2 * time.Second, time.Second}, 0, 3},
		{"an HTTP date", []answer{{429, time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)}, created}, nil, 0, 2},
		{"always rate limited", []answer{{429, "1"}}, []time.Duration{time.Second, time.Second, time.Second, time.Second}, 429, submitAttempts},
		{"a wait over the limit", []answer{{503, "300"}}, nil, 503, 1},
		{"no Retry-After", []answer{{429, ""}}, nil, 429, 1},
		{"a refusal", []answer{{400, "1"}}, nil, 400, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				a := tc.answers[min(tries, len(tc.answers)-1)]
				tries++
				if a.retryAfter != "" {
					w.Header().Set("Retry-After", a.retryAfter)
				}
				if a.status == http.StatusCreated {
					wire.Write(w, a.status, wire.SubmitResult{ID: "r", URL: "/runs/r", Created: true})
					return
				}
				wire.WriteError(w, a.status, "", "busy")
			}))
			defer hs.Close()
			var waited []time.Duration
			var note strings.Builder
			res, err := SubmitRetrying(context.Background(), hs.Client(), hs.URL, "llmb_x", []byte("{}"), &note,
				func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil })
			var se *SubmitError
			switch {
			case tc.wantErr == 0 && (err != nil || res == nil || res.ID != "r"):
				t.Errorf("submitted: %+v, %v; want run r stored", res, err)
			case tc.wantErr != 0 && (!errors.As(err, &se) || se.Status != tc.wantErr):
				t.Errorf("error %v, want the site's %d", err, tc.wantErr)
			}
			if tries != tc.wantTries {
				t.Errorf("%d tries, want %d", tries, tc.wantTries)
			}
			if tc.name == "an HTTP date" {
				if len(waited) != 1 || waited[0] < 25*time.Second || waited[0] > 30*time.Second {
					t.Errorf("waited %v for a Retry-After 30 s ahead", waited)
				}
			} else if !slices.Equal(waited, tc.waits) {
				t.Errorf("waited %v, want %v", waited, tc.waits)
			}
			if len(waited) > 0 && !strings.Contains(note.String(), "trying again in") {
				t.Errorf("waited without saying so: %q", note.String())
			}
		})
	}
}
