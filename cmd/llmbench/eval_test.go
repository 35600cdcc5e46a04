package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// oracle is an OpenAI-compatible server that knows a custom set's answers: it
// answers the question of line k right when right(k), in the format its scorer reads,
// and wrong otherwise.
func oracle(t *testing.T, setPath string, right func(k int) bool) string {
	t.Helper()
	f, err := os.Open(setPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	answers := map[string]string{}
	sc := bufio.NewScanner(f)
	for k := 0; sc.Scan(); k++ {
		var x struct{ Question, Answer, Scorer string }
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatal(err)
		}
		a := map[string]string{"number": "#### " + x.Answer, "choice": "The answer is (" + x.Answer + ")",
			"regex": "It is Jupiter.", "exact": x.Answer}[x.Scorer]
		if !right(k) {
			a = "I do not know."
		}
		answers[x.Question] = a
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "oracle", "object": "model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []struct{ Content string } }
		json.NewDecoder(r.Body).Decode(&req)
		content := "no such question"
		for q, a := range answers {
			if strings.Contains(req.Messages[0].Content, q) {
				content = a
			}
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]int{"completion_tokens": 7},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestEvalCommandReportsTheKnownScore: 140 of a project-written 200-item set right
// (the rest wrong) prints 70.0% with the hand-computed Wilson interval 63.3–75.9%
// (internal/accuracy TestSummarizeHandComputedWilson shows the arithmetic).
func TestEvalCommandReportsTheKnownScore(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "sums.jsonl")
	var b strings.Builder
	for k := range 200 {
		fmt.Fprintf(&b, `{"question": "What is %d + 1?", "answer": "%d", "scorer": "number"}`+"\n", k, k+1)
	}
	if err := os.WriteFile(set, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	url := oracle(t, set, func(k int) bool { return k%10 < 7 })
	out := filepath.Join(dir, "eval.json")
	got, err := runCmd(t, "eval", "--endpoint", url, "--set", set, "-o", out, "--no-progress", "--concurrency", "8")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if !strings.Contains(got, "70.0% right (140 of 200), 95% CI 63.3%–75.9%") {
		t.Errorf("printed:\n%s", got)
	}
	if got, err := runCmd(t, "eval", "--rescore", out); err != nil || !strings.Contains(got, "same figures") {
		t.Errorf("rescore: %v\n%s", err, got)
	}
	if got, err := runCmd(t, "report", out); err != nil || !strings.Contains(got, "Accuracy — sums.jsonl") {
		t.Errorf("report: %v\n%s", err, got)
	}
}

// TestReportComparesTwoEvaluations: two documents whose items flip 12 one way and 3
// the other give McNemar's exact p = 0.0352; documents of different items are not
// comparable and say so.
func TestReportComparesTwoEvaluations(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, correct func(i int) bool, n int) string {
		a := rundoc.Accuracy{Set: rundoc.EvalSet{Name: "gsm8k", Revision: "r", SHA256: "s", Prompt: "p", Size: n}, Planned: n, Status: rundoc.AccuracyComplete}
		for i := range n {
			a.Items = append(a.Items, rundoc.EvalItem{ID: fmt.Sprint(i), Expected: "1", Correct: correct(i)})
		}
		doc := &rundoc.Run{SchemaVersion: rundoc.SchemaVersion, ID: name, Tool: rundoc.Tool{Name: "llmbench"},
			Engine: rundoc.Engine{Name: "vllm"}, Model: rundoc.Model{ServedName: "m"}, Accuracy: []rundoc.Accuracy{a}}
		path := filepath.Join(dir, name+".json")
		if err := rundoc.WriteFile(path, doc); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Items 0–11 right only in A, 12–14 right only in B, 15–74 right in both.
	a := write("a", func(i int) bool { return i < 12 || i >= 15 && i < 75 }, 100)
	b := write("b", func(i int) bool { return i >= 12 && i < 75 }, 100)
	got, err := runCmd(t, "report", a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A/B on gsm8k", "A 72.0% → B 63.0% over 100 paired items: -9.0 points", "12 right → wrong, 3 wrong → right", "exact McNemar p = 0.0352"} {
		if !strings.Contains(got, want) {
			t.Errorf("report does not say %q:\n%s", want, got)
		}
	}
	c := write("c", func(i int) bool { return true }, 50)
	if got, _ := runCmd(t, "report", a, c); !strings.Contains(got, "not comparable — different items (100 and 50, 50 in common)") {
		t.Errorf("different items:\n%s", got)
	}
}

// TestDocumentedEvalCommandsRun runs the eval commands of the docs and --help that
// ask a custom set, against a server that answers every question right; those that
// ask a built-in set download it (TestFetch* in internal/eval test that against a
// local mirror) and are listed, not run.
func TestDocumentedEvalCommandsRun(t *testing.T) {
	root := filepath.Join("..", "..")
	cmds := append(documentedCommands(t, root), helpCommands(t)...)
	ran, notRun := 0, 0
	for _, dc := range cmds {
		if len(dc.args) == 0 || dc.args[0] != "eval" {
			continue
		}
		args, ok := evalArgs(t, dc.args, root)
		if !ok {
			notRun++
			continue
		}
		if got, err := runCmd(t, args...); err != nil || !strings.Contains(got, "100.0% right") {
			t.Errorf("%s: %q: %v\n%s", dc.where, dc.line, err, got)
		}
		ran++
	}
	t.Logf("ran %d eval commands; %d ask a built-in set, a reader's file or document", ran, notRun)
	if ran == 0 {
		t.Fatal("no documented eval command ran: the extraction is broken")
	}
}

// evalArgs aims a documented eval command at an oracle of its set, its -o at a
// temporary file; ok is false for a built-in set or a file the reader brings.
func evalArgs(t *testing.T, args []string, root string) ([]string, bool) {
	var set string
	for i, a := range args {
		if a == "--set" && i+1 < len(args) {
			set = filepath.Join(root, args[i+1])
		}
	}
	if _, err := os.Stat(set); set == "" || err != nil {
		return nil, false
	}
	url := oracle(t, set, func(int) bool { return true })
	out := []string{"eval", "--no-progress", "-o", filepath.Join(t.TempDir(), "default.json")}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--endpoint" && i+1 < len(args):
			out, i = append(out, a, url), i+1
		case a == "--set" && i+1 < len(args):
			out, i = append(out, a, set), i+1
		case a == "-o" && i+1 < len(args):
			out, i = append(out, a, filepath.Join(t.TempDir(), filepath.Base(args[i+1]))), i+1
		default:
			out = append(out, a)
		}
	}
	return out, true
}
