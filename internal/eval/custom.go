package eval

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// customLine is one line of a custom set.
type customLine struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Scorer   string   `json:"scorer"`
	Category string   `json:"category"`
	Choices  []string `json:"choices"`
}

// customChoicePrompt asks a custom choice question the MMLU-Pro way.
const customChoicePrompt = "Answer the following multiple choice question. Think step by step " +
	"and then output the answer in the format of \"The answer is (X)\" at the end.\n\n" +
	"Question: %s\nOptions: %sAnswer: Let's think step by step."

// loadCustom reads a JSONL set: one {"question", "answer", "scorer"} a line, with an
// optional "id" (default: the line number), "category", and "choices" (a choice
// question's options, lettered A, B, … in the prompt). The question is sent as it
// is; the file's SHA-256 is its revision.
func loadCustom(path string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the set: %w", err)
	}
	sum := sha256.Sum256(data)
	var items []Item
	ids := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		it, err := customItem(sc.Bytes(), n)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if ids[it.ID] {
			return nil, fmt.Errorf("%s line %d: id %q is used twice", path, n, it.ID)
		}
		ids[it.ID] = true
		items = append(items, it)
	}
	if len(items) == 0 || len(items) > maxItems {
		return nil, fmt.Errorf("%s holds %d items: a set needs 1 to %d", path, len(items), maxItems)
	}
	hash := hex.EncodeToString(sum[:])
	return &Set{Info: rundoc.EvalSet{
		Name: filepath.Base(path), Revision: hash, SHA256: hash, Size: len(items), Prompt: "custom-v1",
	}, Items: items}, nil
}

func customItem(line []byte, n int) (Item, error) {
	var x customLine
	if err := json.Unmarshal(line, &x); err != nil {
		return Item{}, err
	}
	if x.ID == "" {
		x.ID = strconv.Itoa(n)
	}
	switch {
	case !rundoc.ValidID(x.ID):
		return Item{}, fmt.Errorf("id %q: use letters, digits, '.', '_' or '-'", x.ID)
	case strings.TrimSpace(x.Question) == "" || strings.TrimSpace(x.Answer) == "":
		return Item{}, fmt.Errorf("needs a question and an answer")
	case !slices.Contains(accuracy.Scorers(), x.Scorer):
		return Item{}, fmt.Errorf("scorer %q: choose one of %s", x.Scorer, strings.Join(accuracy.Scorers(), ", "))
	}
	if x.Scorer == accuracy.Regex {
		if _, err := regexp.Compile(x.Answer); err != nil {
			return Item{}, fmt.Errorf("answer is not a regular expression: %w", err)
		}
	}
	prompt := x.Question
	if len(x.Choices) > 0 {
		if x.Scorer != accuracy.Choice || len(x.Choices) > 26 {
			return Item{}, fmt.Errorf("choices need the choice scorer and at most 26 options")
		}
		prompt = fmt.Sprintf(customChoicePrompt, x.Question, letteredOptions(x.Choices))
	}
	return Item{EvalItem: rundoc.EvalItem{ID: x.ID, Category: x.Category, Scorer: x.Scorer, Expected: x.Answer}, Prompt: prompt}, nil
}
