package openloop

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/workload"
)

// scheduleFile is the project's fixed schedule: six requests, out of order in the
// file, two at the same time, in each of a dataset line's forms.
const scheduleFile = "../workload/testdata/schedule.jsonl"

// fileRequest is what one line of a schedule asks, read from the file here apart
// from internal/workload's reader: when (ms), the chat messages, the answer length
// (0: the run's).
type fileRequest struct {
	at        float64
	messages  []openai.Message
	maxTokens int
}

func readScheduleFile(t *testing.T) []fileRequest {
	t.Helper()
	data, err := os.ReadFile(scheduleFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []fileRequest
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var l struct {
			Timestamp    float64          `json:"timestamp"`
			Messages     []openai.Message `json:"messages"`
			Prompt, Text string
			MaxTokens    int `json:"max_tokens"`
			OutputTokens int `json:"output_tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		r := fileRequest{at: l.Timestamp, messages: l.Messages, maxTokens: max(l.MaxTokens, l.OutputTokens)}
		if r.messages == nil {
			r.messages = []openai.Message{{Role: "user", Content: l.Prompt + l.Text}}
		}
		out = append(out, r)
	}
	return out
}

// received is a chat request as the server read it, and when.
type received struct {
	at        time.Time
	messages  []openai.Message
	maxTokens int
}

// recording wraps a server's handler: it logs every chat request's body as received
// (the stream check's too), then lets the server answer it.
func recording(next http.Handler) (http.Handler, func() []received) {
	var mu sync.Mutex
	var log []received
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages  []openai.Message `json:"messages"`
			MaxTokens int              `json:"max_tokens"`
		}
		if r.URL.Path == "/v1/chat/completions" && json.Unmarshal(body, &req) == nil {
			mu.Lock()
			log = append(log, received{at: at, messages: req.Messages, maxTokens: req.MaxTokens})
			mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
	return h, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(log)
	}
}

// TestFixedScheduleReplay: the project's fixed schedule (timestamps 0 to 4 s, out of
// order in the file, two at 1.5 s) replayed 4× faster against a server of exact
// timing. The server receives each of the file's requests once, with the file's
// messages (a prompt or text line as one user message) and answer length; the
// schedule is the file's timestamps over 4, in time order, ties in file order; and
// each request reaches the server at its own timestamp over 4 after the first (within
// 25 ms; the client's lag is its own figure), so a replay ignoring the speed factor
// (4 s) or the order could not pass.
func TestFixedScheduleReplay(t *testing.T) {
	const speed, outputLen = 4.0, 5
	want := readScheduleFile(t)
	sched, err := workload.LoadSchedule(scheduleFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []received
	var events []Event
	for try := 1; try <= 3; try++ {
		q := &queueServer{ttft: func(int) time.Duration { return 5 * time.Millisecond }, interval: time.Millisecond}
		h, log := recording(q.start(t).Config.Handler)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		offsets, err := sched.Offsets(speed)
		if err != nil {
			t.Fatal(err)
		}
		seed := int64(1)
		doc := &rundoc.Run{SchemaVersion: rundoc.SchemaVersion, ID: "schedule-replay", Config: rundoc.Config{DurationS: 1, API: "chat", Seed: &seed, DecodeTest: "request-rate",
			Rate: &rundoc.RateConfig{Rates: []rundoc.Rate{TraceRate(offsets, 0)}, Arrival: rundoc.ArrivalTrace, InputLen: 1, OutputLen: outputLen, LenDist: "fixed", DrainTimeoutS: 30}}}
		PlanRates(doc)
		var buf bytes.Buffer
		r := &Runner{Server: newQueueTestServer(srv), Opts: measure.Options{Events: measure.NewEventLog(&buf), Workload: &measure.Workload{Schedule: sched, Speed: speed, Block: 16}}}
		if err := r.Run(t.Context(), doc); err != nil {
			t.Fatal(err)
		}
		r.Opts.Events.Flush()
		got, events = ofTheFile(log(), want), readEvents(&buf)
		if late := replayLate(want, got, speed); !timingChecked(t) || late <= 25*time.Millisecond {
			break
		} else {
			t.Logf("attempt %d: a request reached the server %s off its schedule (a loaded machine); again", try, late)
			if try == 3 {
				t.Errorf("no attempt of three held the schedule within 25 ms (latest %s)", late)
			}
		}
	}
	checkScheduleSent(t, want, got, outputLen)
	// The cell's schedule is the file's, exactly: each request's scheduled send after
	// the first is its timestamp over the speed, in time order, ties in file order.
	var offsets []float64
	for _, ev := range events {
		if ev.Phase == "rate" && ev.Type == "request" && ev.Request != nil {
			offsets = append(offsets, float64(ev.Scheduled))
		}
	}
	wantOffsets := []float64{0, 250.5, 1500, 1500, 3000, 4000}
	if len(offsets) != len(wantOffsets) {
		t.Fatalf("%d requests in the events log, want %d", len(offsets), len(wantOffsets))
	}
	slices.Sort(offsets)
	for i, o := range offsets {
		if ms := (o - offsets[0]) / 1e6; math.Abs(ms-wantOffsets[i]/speed) > 0.001 {
			t.Errorf("request %d scheduled %.3f ms after the first, want %.3f", i, ms, wantOffsets[i]/speed)
		}
	}
}

// ofTheFile is what the server received but the stream check before the cell (a
// prompt of its own, not the file's).
func ofTheFile(got []received, want []fileRequest) []received {
	return slices.DeleteFunc(got, func(g received) bool {
		return !slices.ContainsFunc(want, func(w fileRequest) bool { return slices.Equal(g.messages, w.messages) })
	})
}

// checkScheduleSent: every request of the file reached the server once, with its
// messages and its answer length.
func checkScheduleSent(t *testing.T, want []fileRequest, got []received, outputLen int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("the server received %d requests, the file has %d", len(got), len(want))
	}
	used := make([]bool, len(got))
	for _, w := range want {
		k := slices.IndexFunc(got, func(g received) bool { return slices.Equal(g.messages, w.messages) })
		if k < 0 || used[k] {
			t.Errorf("the file's request %+v never reached the server (once)", w.messages)
			continue
		}
		used[k] = true
		if n := cmp.Or(w.maxTokens, outputLen); got[k].maxTokens != n {
			t.Errorf("request %+v asked %d tokens, the file %d", w.messages, got[k].maxTokens, n)
		}
	}
}

// replayLate is how far the latest request reached the server off its timestamp
// over speed, counted from the first request's arrival; an hour when one is missing.
func replayLate(want []fileRequest, got []received, speed float64) time.Duration {
	if len(got) != len(want) {
		return time.Hour
	}
	first := slices.MinFunc(got, func(a, b received) int { return a.at.Compare(b.at) }).at
	var worst time.Duration
	for _, w := range want {
		k := slices.IndexFunc(got, func(g received) bool { return slices.Equal(g.messages, w.messages) })
		if k < 0 {
			return time.Hour
		}
		due := time.Duration(w.at / speed * float64(time.Millisecond))
		off := got[k].at.Sub(first) - due
		worst = max(worst, off, -off)
	}
	return worst
}

func readEvents(r io.Reader) []Event {
	var out []Event
	dec := json.NewDecoder(r)
	for {
		var ev Event
		if dec.Decode(&ev) != nil {
			return out
		}
		out = append(out, ev)
	}
}
