package accuracy

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestExtractionRules: one case per rule, in the formats models write, reasoning
// models' included.
func TestExtractionRules(t *testing.T) {
	cases := []struct {
		name, scorer, content, reasoning, want string
		wantReasoning                          bool
	}{
		{"gsm8k ####", Number, "She sells 9 eggs.\n#### 18", "", "18", false},
		{"gsm8k #### beats later numbers", Number, "#### 1,234\nCheck: 2 + 2 = 4", "", "1234", false},
		{"gsm8k last number", Number, "So she makes 9 * 2 = $18 a day.", "", "18", false},
		{"gsm8k last number with comma and period", Number, "The total is 1,500.", "", "1500", false},
		{"gsm8k negative", Number, "The change is -3 degrees", "", "-3", false},
		{"gsm8k decimal", Number, "It costs $2.50", "", "2.50", false},
		{"gsm8k boxed", Number, `Thus the answer is \boxed{42}. Earlier we had 7.`, "", "42", false},
		{"gsm8k boxed with dollars and braces", Number, `\boxed{\$1{,}200}`, "", "1200", false},
		{"gsm8k after think", Number, "<think>Maybe 7? No, 8.</think>The answer is 12.", "", "12", true},
		{"gsm8k think never closed", Number, "<think>Let me count: 1, 2, 3", "", "", true},
		{"gsm8k reasoning_content apart", Number, "#### 5", "5 apples minus 0", "5", true},
		{"gsm8k no number", Number, "I cannot say.", "", "", false},
		{"mmlu answer is (X)", Choice, "Let's think. The answer is (C).", "", "C", false},
		{"mmlu answer is X", Choice, "so the answer is D", "", "D", false},
		{"mmlu bold removed", Choice, "The answer is **(B)**", "", "B", false},
		{"mmlu first answer is wins", Choice, "the answer is (A)... wait, the answer is (B)", "", "A", false},
		{"mmlu boxed", Choice, `Therefore \boxed{E}`, "", "E", false},
		{"mmlu boxed text", Choice, `Final: $\boxed{\text{(G)}}$`, "", "G", false},
		{"mmlu Answer: line", Choice, "Reasoning here.\nAnswer: F\nDone", "", "F", false},
		{"mmlu last letter", Choice, "Between H and I, I pick J", "", "J", false},
		{"mmlu after think", Choice, "<think>the answer is (A)?</think>\nThe answer is (H).", "", "H", true},
		{"mmlu nothing", Choice, "no idea", "", "", false},
		{"exact", Exact, "  Paris \n", "", "Paris", false},
	}
	for _, c := range cases {
		text, reasoning := Final(Response{Content: c.content, Reasoning: c.reasoning})
		if got := Extract(c.scorer, text, ""); got != c.want || reasoning != c.wantReasoning {
			t.Errorf("%s: Extract = %q (reasoning %v), want %q (%v)", c.name, got, reasoning, c.want, c.wantReasoning)
		}
	}
	if got := Extract(Regex, "The capital is Paris.", `(?i)\bparis\b`); got != "Paris" {
		t.Errorf("regex: %q", got)
	}
	if got := Extract(Regex, "Lyon", `(?i)\bparis\b`); got != "" {
		t.Errorf("regex without a match: %q", got)
	}
}

func TestCorrect(t *testing.T) {
	for _, c := range []struct {
		scorer, expected, answer string
		want                     bool
	}{
		{Number, "18", "18", true},
		{Number, "18", "18.00", true},
		{Number, "1,234", "1234", true},
		{Number, "18", "-18", false},
		{Number, "18", "", false},
		{Number, "18", "..", false},
		{Choice, "C", "C", true},
		{Choice, "C", "D", false},
		{Regex, `\bParis\b`, "Paris", true},
		{Regex, `\bParis\b`, "", false},
		{Exact, "Paris", "Paris", true},
		{Exact, "Paris", "paris", false},
	} {
		if got := Correct(c.scorer, c.expected, c.answer); got != c.want {
			t.Errorf("Correct(%s, %q, %q) = %v", c.scorer, c.expected, c.answer, got)
		}
	}
}

// TestNumberScorerAgreesWithOpenAIsGrader: the number scorer judges 200 model
// solutions of openai/grade-school-math as its own grader did (testdata/README.md).
func TestNumberScorerAgreesWithOpenAIsGrader(t *testing.T) {
	var n, right int
	readGz(t, "testdata/gsm8k-example-model-solutions.jsonl.gz", func(line []byte) {
		var x struct {
			Index       int
			Model       string
			GroundTruth string `json:"ground_truth"`
			Solution    string
			IsCorrect   bool `json:"is_correct"`
		}
		if err := json.Unmarshal(line, &x); err != nil {
			t.Fatal(err)
		}
		_, want, _ := strings.Cut(x.GroundTruth, "\nA: ")
		got := Correct(Number, want, Extract(Number, x.Solution, ""))
		if got != x.IsCorrect {
			t.Errorf("question %d, %s: scored %v, OpenAI's grader %v\n%s", x.Index, x.Model, got, x.IsCorrect, x.Solution)
		}
		n++
		if got {
			right++
		}
	})
	if n != 200 || right == 0 || right == n {
		t.Fatalf("%d solutions, %d right: the fixture is not what README.md says", n, right)
	}
}

// TestChoiceScorerAgreesWithMMLUPro: the choice scorer extracts the letter
// TIGER-AI-Lab/MMLU-Pro's own evaluation stored for 260 Llama-3.1-8B-Instruct answers,
// and none where that evaluation found none (testdata/README.md).
func TestChoiceScorerAgreesWithMMLUPro(t *testing.T) {
	var n, none int
	readGz(t, "testdata/mmlu-pro-llama-3.1-8b-instruct.jsonl.gz", func(line []byte) {
		var x struct {
			QuestionID int    `json:"question_id"`
			Text       string `json:"generated_text"`
			Pred       *string
		}
		if err := json.Unmarshal(line, &x); err != nil {
			t.Fatal(err)
		}
		want := ""
		if x.Pred != nil {
			want = *x.Pred
		} else {
			none++
		}
		if got := Extract(Choice, x.Text, ""); got != want {
			t.Errorf("question %d: extracted %q, the reference %q\n…%s", x.QuestionID, got, want, tail(x.Text, 200))
		}
		n++
	})
	if n != 260 || none != 20 {
		t.Fatalf("%d answers, %d without a letter: the fixture is not what README.md says", n, none)
	}
}

func readGz(t *testing.T, path string, each func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
