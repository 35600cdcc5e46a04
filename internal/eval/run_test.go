package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// writeSumSet writes a project-written set of n items: "What is a + b? (item k)",
// scored as numbers.
func writeSumSet(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, `{"id": "q%d", "question": "What is %d + %d? (item %d)", "answer": "%d", "scorer": "number", "category": "%s"}`+"\n",
			k, k, 1000, k, k+1000, []string{"small", "large"}[k%2])
	}
	path := filepath.Join(t.TempDir(), "sums.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var itemNumber = regexp.MustCompile(`What is (\d+) \+ (\d+)\? \(item (\d+)\)`)

// answerServer is an OpenAI-compatible server that answers item k right when k%10 < 7
// (70%), each time in another of the formats models write, and wrong otherwise, also
// in varied formats. asked counts chat requests.
func answerServer(t *testing.T, asked *atomic.Int32) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "sums-model", "object": "model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		var req struct {
			Messages    []struct{ Content string }
			Temperature *float64
		}
		json.NewDecoder(r.Body).Decode(&req)
		m := itemNumber.FindStringSubmatch(req.Messages[0].Content)
		if m == nil || req.Temperature == nil || *req.Temperature != 0 {
			http.Error(w, "bad request", 400)
			return
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		k, _ := strconv.Atoi(m[3])
		content, reasoning := answerFor(k, a+b)
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content, "reasoning_content": reasoning}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 20, "completion_tokens": 10 + k%5, "total_tokens": 30 + k%5},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func answerFor(k, sum int) (content, reasoning string) {
	if k%10 < 7 {
		switch k % 4 {
		case 0:
			return fmt.Sprintf("%d + … = %d\n#### %d", k, sum, sum), ""
		case 1:
			return fmt.Sprintf(`The sum is \boxed{%d}.`, sum), ""
		case 2:
			return fmt.Sprintf("<think>%d plus 1000, carry nothing</think>The answer is %d.", k, sum), ""
		default:
			return fmt.Sprintf("It comes to %s.", strconv.Itoa(sum)), "adding the two numbers"
		}
	}
	switch k % 3 {
	case 0:
		return fmt.Sprintf("#### %d", sum+1), ""
	case 1:
		return "<think>I will count one by one: 1, 2, 3", "" // cut off in its reasoning
	default:
		return "I am not sure.", ""
	}
}

// TestEvalScoresAKnown70Percent: the server answers a known 70% of a 200-item set
// right and llmbench reports 70.0% with the hand-computed Wilson interval [0.6332,
// 0.7593] (accuracy.TestSummarizeHandComputedWilson shows the arithmetic).
func TestEvalScoresAKnown70Percent(t *testing.T) {
	var asked atomic.Int32
	srv := answerServer(t, &asked)
	out := filepath.Join(t.TempDir(), "eval.json")
	res, err := Execute(context.Background(), Config{Endpoint: srv.URL, Set: writeSumSet(t, 200), Concurrency: 8, MaxTokens: 256, Out: out}, nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Entry
	if a.Status != rundoc.AccuracyComplete || a.Scored != 200 || a.Correct != 140 || *a.Score != 0.7 {
		t.Fatalf("%s: %d/%d", a.Status, a.Correct, a.Scored)
	}
	if math.Abs(a.CI.Low-0.6332) > 5e-5 || math.Abs(a.CI.High-0.7593) > 5e-5 {
		t.Errorf("Wilson interval %+v, want [0.6332, 0.7593]", *a.CI)
	}
	if asked.Load() != 200 {
		t.Errorf("%d requests for 200 items", asked.Load())
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if ferr := rundoc.Validate(doc); ferr != nil {
		t.Fatalf("the document does not validate: %v", ferr)
	}
	checkItems(t, doc.Accuracy[0].Items)
	if diffs, err := Rescore(out, ""); err != nil || len(diffs) != 0 {
		t.Errorf("re-score from the answers: %v %v", diffs, err)
	}
}

// checkItems checks the per-item records against what the server sent.
func checkItems(t *testing.T, items []rundoc.EvalItem) {
	t.Helper()
	reasoning := 0
	for i, it := range items {
		if it.ID != "q"+strconv.Itoa(i) || it.CompletionTokens != 10+i%5 {
			t.Fatalf("item %d: %+v", i, it)
		}
		if it.Correct != (i%10 < 7) || (it.Correct && it.Answer != strconv.Itoa(i+1000)) {
			t.Errorf("item %d: %+v", i, it)
		}
		if it.Reasoning {
			reasoning++
		}
	}
	// Right answers with reasoning: k%4 == 2 or 3 among k%10 < 7; wrong ones: k%3 == 1.
	want := 0
	for k := range len(items) {
		if (k%10 < 7 && k%4 >= 2) || (k%10 >= 7 && k%3 == 1) {
			want++
		}
	}
	if reasoning != want {
		t.Errorf("%d items with a reasoning block, want %d", reasoning, want)
	}
}

// stopAfter cancels the evaluation once n items are done.
type stopAfter struct {
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Step(_ string, done, _ int, _ time.Duration) {
	if done >= s.n {
		s.cancel()
	}
}
func (s *stopAfter) Tokens(int) {}

// TestEvalResumesAfterInterrupt: Ctrl-C saves what was answered; --resume asks only
// the rest, and the finished document re-scores to itself from its answers file.
func TestEvalResumesAfterInterrupt(t *testing.T) {
	var asked atomic.Int32
	srv := answerServer(t, &asked)
	set := writeSumSet(t, 100)
	out := filepath.Join(t.TempDir(), "eval.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Execute(ctx, Config{Endpoint: srv.URL, Set: set, Limit: 50, Concurrency: 4, MaxTokens: 64, Out: out}, &stopAfter{n: 20, cancel: cancel}, os.Stderr)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	a := doc.Accuracy[0]
	if a.Status != rundoc.AccuracyPending || a.Scored < 20 || a.Scored >= 50 || a.Planned != 50 {
		t.Fatalf("saved at the interrupt: %s %d of %d", a.Status, a.Scored, a.Planned)
	}
	before := asked.Load()
	res, err := Execute(context.Background(), Config{Resume: out, Set: set}, nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry.Status != rundoc.AccuracyComplete || res.Entry.Scored != 50 {
		t.Fatalf("resumed: %s %d", res.Entry.Status, res.Entry.Scored)
	}
	if resumed := int(asked.Load() - before); resumed != 50-a.Scored {
		t.Errorf("the resume asked %d items, want the %d left", resumed, 50-a.Scored)
	}
	// --limit 50 of 100: items 1, 3, 5 … (⌊(2i+1)·100/100⌋).
	if res.Entry.Items[0].ID != "q1" || res.Entry.Items[49].ID != "q99" {
		t.Errorf("limit picked %s … %s", res.Entry.Items[0].ID, res.Entry.Items[49].ID)
	}
	if diffs, err := Rescore(out, ""); err != nil || len(diffs) != 0 {
		t.Errorf("re-score: %v %v", diffs, err)
	}
	res.Doc.Accuracy[0].Items[0].Correct = !res.Doc.Accuracy[0].Items[0].Correct
	if err := rundoc.WriteFile(out, res.Doc); err != nil {
		t.Fatal(err)
	}
	if diffs, _ := Rescore(out, ""); len(diffs) != 1 {
		t.Errorf("a changed verdict was not found: %v", diffs)
	}
}
