package eval

import (
	"bufio"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestPinnedSubsetFollowsTheRule recomputes the built-in MMLU-Pro subset from every
// test question's id and category (testdata/README.md) and finds the pinned ids.
func TestPinnedSubsetFollowsTheRule(t *testing.T) {
	f, err := os.Open("testdata/mmlu-pro-test-ids.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []mmluProRow
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		id, cat, _ := strings.Cut(sc.Text(), "\t")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, mmluProRow{ID: n, Category: cat, Answer: "A", Options: []string{"x"}})
	}
	if len(rows) != 12032 {
		t.Fatalf("%d questions, want 12,032", len(rows))
	}
	got := Stratified(rows)
	pinned := strings.Fields(mmluProSubsetIDs)
	if len(got) != 1000 || len(pinned) != 1000 {
		t.Fatalf("picked %d, pinned %d, want 1,000", len(got), len(pinned))
	}
	perCat := map[string]int{}
	for i, r := range got {
		if strconv.FormatInt(r.ID, 10) != pinned[i] {
			t.Fatalf("item %d: the rule picks %d, the pin says %s", i, r.ID, pinned[i])
		}
		perCat[r.Category]++
	}
	// Hamilton's apportionment of 1,000 over the categories' sizes, by hand for two:
	// math 1,351/12,032 → 112.28 → 112; history 381/12,032 → 31.67 → 32 (a remainder).
	if perCat["math"] != 112 || perCat["history"] != 32 || len(perCat) != 14 {
		t.Errorf("per category: %v", perCat)
	}
}

// mmluParquet is MMLU-Pro's test split schema (question_id int64, question, options
// list<string>, answer, answer_index int64, cot_content, category, src), as parquet-go
// writes it.
type mmluParquet struct {
	QuestionID  int64    `parquet:"question_id"`
	Question    string   `parquet:"question"`
	Options     []string `parquet:"options,list"`
	Answer      string   `parquet:"answer"`
	AnswerIndex int64    `parquet:"answer_index"`
	CotContent  string   `parquet:"cot_content"`
	Category    string   `parquet:"category"`
	Src         string   `parquet:"src"`
}

// TestReadMMLUProParquet reads a Parquet file of the test split's schema and refuses
// it as the built-in set: its questions are not the pinned subset's.
func TestReadMMLUProParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.parquet")
	rows := []mmluParquet{
		{QuestionID: 70, Question: "Q1?", Options: []string{"a", "b", "c", "N/A"}, Answer: "B", AnswerIndex: 1, Category: "business", Src: "s"},
		{QuestionID: 71, Question: "Q2?", Options: []string{"x", "y"}, Answer: "A", Category: "law", Src: "s"},
	}
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := readMMLUPro(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != 70 || got[0].Question != "Q1?" || strings.Join(got[0].Options, "|") != "a|b|c|N/A" ||
		got[0].Answer != "B" || got[0].Category != "business" || got[1].Category != "law" {
		t.Fatalf("read %+v", got)
	}
	if _, err := mmluProItems(got); !errors.Is(err, ErrChanged) {
		t.Errorf("a split that does not yield the pinned subset: %v, want ErrChanged", err)
	}
}

func TestLimitIsEvenAndDeterministic(t *testing.T) {
	s := &Set{}
	for i := range 100 {
		s.Items = append(s.Items, Item{Prompt: strconv.Itoa(i)})
	}
	var got []string
	for _, it := range s.Limit(4) {
		got = append(got, it.Prompt)
	}
	if strings.Join(got, ",") != "12,37,62,87" {
		t.Errorf("--limit 4 of 100: %v", got)
	}
	if len(s.Limit(0)) != 100 || len(s.Limit(500)) != 100 {
		t.Error("no limit should keep every item")
	}
}
