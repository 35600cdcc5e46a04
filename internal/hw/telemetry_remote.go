package hw

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The remote agent: `llmbench telemetry --listen ADDR` runs a Meter on the server's
// machine and serves it over HTTP, every request authenticated by a bearer token;
// `run --telemetry http://HOST:PORT` reads it with a Remote. The two machines' clocks
// are aligned by exchanging timestamps before every window (the agent's time against
// the middle of the round trip, from the fastest of a few exchanges), so a window
// measured on this machine's clock selects the right samples on the agent's.

// Agent routes.
const (
	agentTime    = "/v1/telemetry/time"
	agentInfo    = "/v1/telemetry/info"
	agentSummary = "/v1/telemetry/summary"
)

// AgentHandler serves a meter to remote runs.
func AgentHandler(m *Meter, token string) http.Handler { return agentHandler(m, token, 0) }

// agentHandler serves the meter as if this machine's clock read skew ahead (tests
// play a machine whose clock is off).
func agentHandler(m *Meter, token string, skew time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+agentTime, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]int64{"now_unix_ns": time.Now().Add(skew).UnixNano()})
	})
	mux.HandleFunc("GET "+agentInfo, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, m.Info())
	})
	mux.HandleFunc("GET "+agentSummary, func(w http.ResponseWriter, r *http.Request) {
		start, err1 := strconv.ParseInt(r.URL.Query().Get("start_ns"), 10, 64)
		end, err2 := strconv.ParseInt(r.URL.Query().Get("end_ns"), 10, 64)
		if err1 != nil || err2 != nil || end < start {
			http.Error(w, "start_ns and end_ns: Unix nanoseconds, start before end", http.StatusBadRequest)
			return
		}
		tr := m.Summary(r.Context(), time.Unix(0, start).Add(-skew), time.Unix(0, end).Add(-skew))
		for i := range tr.Samples {
			tr.Samples[i].At = tr.Samples[i].At.Add(skew)
		}
		writeJSON(w, tr)
	})
	return requireToken(token, mux)
}

func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="llmbench telemetry"`)
			http.Error(w, "a valid token is needed (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Remote reads a telemetry agent. It implements power.Telemetry.
type Remote struct {
	base   string
	token  string
	client *http.Client
	info   rundoc.RunEnergy
}

// DialRemote checks the agent answers with this token and reads what it meters.
func DialRemote(ctx context.Context, base, token string) (*Remote, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("telemetry agent %q: give http://HOST:PORT", base)
	}
	r := &Remote{base: strings.TrimRight(base, "/"), token: token, client: &http.Client{Timeout: 30 * time.Second}}
	if err := r.get(ctx, agentInfo, nil, &r.info); err != nil {
		return nil, err
	}
	if _, err := r.offset(ctx); err != nil {
		return nil, err
	}
	r.info.Telemetry = r.base + " (" + r.info.Telemetry + ")"
	return r, nil
}

// Info is the agent's description of what it meters.
func (r *Remote) Info() rundoc.RunEnergy { return r.info }

func (r *Remote) get(ctx context.Context, path string, q url.Values, v any) error {
	u := r.base + path
	if q != nil {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("telemetry agent %s: %w", r.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("telemetry agent %s: %s: %s", r.base, resp.Status, strings.TrimSpace(string(b)))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("telemetry agent %s: reading %s: %w", r.base, path, err)
	}
	return nil
}

// offset estimates the agent's clock minus this one's: of a few exchanges, the one
// with the shortest round trip, its agent time against the middle of the trip. The
// error is at most half that round trip.
func (r *Remote) offset(ctx context.Context) (offset time.Duration, err error) {
	best := time.Duration(-1)
	for range 5 {
		var t struct {
			Now int64 `json:"now_unix_ns"`
		}
		t0 := time.Now()
		if err := r.get(ctx, agentTime, nil, &t); err != nil {
			return 0, err
		}
		t1 := time.Now()
		if d := t1.Sub(t0); best < 0 || d < best {
			best = d
			offset = time.Unix(0, t.Now).Sub(t0.Add(d / 2))
		}
	}
	return offset, nil
}

// Summary asks the agent for the window, translated to its clock, and translates the
// samples back.
func (r *Remote) Summary(ctx context.Context, start, end time.Time) power.Trace {
	off, err := r.offset(ctx)
	if err != nil {
		return power.Trace{Source: r.base, Problem: err.Error()}
	}
	q := url.Values{"start_ns": {strconv.FormatInt(start.Add(off).UnixNano(), 10)}, "end_ns": {strconv.FormatInt(end.Add(off).UnixNano(), 10)}}
	var tr power.Trace
	if err := r.get(ctx, agentSummary, q, &tr); err != nil {
		return power.Trace{Source: r.base, Problem: err.Error()}
	}
	for i := range tr.Samples {
		tr.Samples[i].At = tr.Samples[i].At.Add(-off)
	}
	tr.Source = r.base
	return tr
}

// ErrRemoteToken says a remote agent needs a token.
var ErrRemoteToken = errors.New("the telemetry agent needs its token: --telemetry-token or $LLMBENCH_TELEMETRY_TOKEN")
