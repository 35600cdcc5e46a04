package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/sim"
)

// exchange is one session turn as the server saw it: the messages it received and
// the answer text it streamed back.
type exchange struct {
	messages []openai.Message
	answer   string
}

// recordingEmulator is the emulator behind a handler that keeps every request of
// the sessions' answer length (sessionAnswer: the probe's and the warm-up's ask for
// others) with the text the emulator streamed for it.
func recordingEmulator(t *testing.T) (string, func() []exchange) {
	t.Helper()
	cfg, err := sim.PresetConfig(sim.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = 4
	s, err := sim.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inner := s.Handler()
	var mu sync.Mutex
	var log []exchange
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages []openai.Message `json:"messages"`
			Max      int              `json:"max_tokens"`
			MaxNew   int              `json:"max_completion_tokens"`
		}
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") || json.Unmarshal(body, &req) != nil || max(req.Max, req.MaxNew) != sessionAnswer {
			inner.ServeHTTP(w, r)
			return
		}
		tee := &teeWriter{ResponseWriter: w}
		inner.ServeHTTP(tee, r)
		mu.Lock()
		log = append(log, exchange{messages: req.Messages, answer: streamedText(t, tee.buf.Bytes())})
		mu.Unlock()
	}))
	t.Cleanup(func() { hs.Close(); s.Close() })
	return hs.URL, func() []exchange {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(log)
	}
}

// teeWriter keeps a copy of the body it writes.
type teeWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) Flush() {
	if fl, ok := w.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// streamedText is the answer an SSE body carried: its chunks' delta contents.
func streamedText(t *testing.T, body []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Errorf("the emulator's chunk %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
	return b.String()
}

// TestDatasetSessionsSendTheDataset: 3-turn sessions whose user turns come from
// ShareGPT conversations (internal/workload/testdata/sharegpt-small.json), against
// the emulator, in the closed loop (2 users) and the open loop (3 sessions
// arriving). Every turn the server receives is the history so far — a turn it
// received before, followed by exactly the answer it streamed for that turn — and then the
// next user turn; a session's user turns are whole conversations' user turns, one
// after another, and the first three sessions start from three different
// conversations (the order is the cell seed's shuffle), the file read here apart
// from the plan's reader.
func TestDatasetSessionsSendTheDataset(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: sessions against the emulator")
	}
	const dataset = "../workload/testdata/sharegpt-small.json"
	users := shareGPTUserTurns(t, dataset)
	for _, loop := range []string{"closed", "open"} {
		t.Run(loop, func(t *testing.T) {
			base, log := recordingEmulator(t)
			c := emulatorConfig("")
			c.Preset, c.MaxOutput = "", sessionAnswer
			c.Workload = Workload{Dataset: dataset, Turns: 3, Think: "0s", TraceSpeed: 1}
			given := []string{"dataset", "turns", "concurrency", "duration", "max-output"}
			if loop == "closed" {
				c.Concurrency, c.Duration = "2", 3*time.Second
			} else {
				c.Rate = OpenLoop{Rates: "4", Requests: 3, InputLen: 64, OutputLen: sessionAnswer, Arrival: "poisson", LenDist: "fixed", DrainTimeout: time.Minute, Target: 0.9}
				given = []string{"dataset", "turns", "rate", "requests", "output-len"}
			}
			runWorkload(t, c, base, given...)
			checkDatasetSessions(t, log(), users, 3)
		})
	}
}

// checkDatasetSessions checks every exchange against the ones before it and the
// dataset: its history is an earlier exchange's messages and streamed answer, its
// user turns a session's from the dataset.
func checkDatasetSessions(t *testing.T, ex []exchange, users [][]string, turns int) {
	t.Helper()
	sessions := map[string]bool{} // a session's user turns, as sent, once complete
	for _, e := range ex {
		var sent []string
		for i, m := range e.messages {
			if m.Role == "user" {
				sent = append(sent, m.Content)
			} else if m.Role == "assistant" && (i == 0 || e.messages[i-1].Role != "user") {
				t.Errorf("an assistant message not after a user turn: %+v", e.messages)
			}
		}
		if last := e.messages[len(e.messages)-1]; last.Role != "user" {
			t.Errorf("a turn ends with %q, not the user's message", last.Role)
		}
		// Sessions that start from the same conversation send the same first turn, and
		// the emulator answers each its own way: the history must be one of them, with
		// the answer streamed for it.
		if k := len(sent); k > 1 {
			n := len(e.messages) - 2
			reply := e.messages[n]
			if !slices.ContainsFunc(ex, func(p exchange) bool {
				return len(p.messages) == n && slices.Equal(p.messages, e.messages[:n]) && reply == openai.Message{Role: "assistant", Content: p.answer}
			}) {
				t.Errorf("turn %d's history %+v: no turn before it was sent with that history and answered %q", k, e.messages[:n], reply.Content)
			}
		}
		if len(sent) == turns {
			sessions[strings.Join(sent, "\x00")] = true
		}
	}
	if len(sessions) == 0 {
		t.Fatal("no session sent all its turns")
	}
	seen := map[int]bool{}
	for s := range sessions {
		first, ok := wholeConversations(strings.Split(s, "\x00"), users)
		if !ok {
			t.Errorf("a session sent the user turns %q: not the dataset's conversations, each whole and in order", strings.Split(s, "\x00"))
		}
		seen[first] = true
	}
	if len(seen) != len(users) {
		t.Errorf("complete sessions started from %d of the dataset's %d conversations; each of the first three sessions starts from its own", len(seen), len(users))
	}
	t.Logf("%d exchanges, %d complete sessions, each a planned session's user turns", len(ex), len(sessions))
}

// wholeConversations reports whether sent is conversations' user turns one after
// another, each whole and in its order, none twice (the last may be cut where the
// session ends), and which conversation came first.
func wholeConversations(sent []string, users [][]string) (first int, ok bool) {
	used := map[int]bool{}
	for len(sent) > 0 {
		next := slices.IndexFunc(users, func(u []string) bool {
			n := min(len(u), len(sent))
			return slices.Equal(u[:n], sent[:n])
		})
		if next < 0 || used[next] {
			return 0, false
		}
		if len(used) == 0 {
			first = next
		}
		used[next] = true
		sent = sent[min(len(users[next]), len(sent)):]
	}
	return first, true
}

// shareGPTUserTurns reads a ShareGPT file's conversations of two turns or more (as
// vLLM keeps them), each as its human turns: read here, apart from the plan's reader.
func shareGPTUserTurns(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var convs []struct {
		Conversations []struct{ From, Value string } `json:"conversations"`
	}
	if err := json.Unmarshal(data, &convs); err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, c := range convs {
		if len(c.Conversations) < 2 {
			continue
		}
		var u []string
		for _, m := range c.Conversations {
			if m.From == "human" {
				u = append(u, m.Value)
			}
		}
		out = append(out, u)
	}
	return out
}
