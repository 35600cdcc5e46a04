package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// gsm8kSource is GSM8K's test split as OpenAI published it (the source the Hugging
// Face openai/gsm8k dataset was made from), at the repository's last commit. The
// checksum was computed from the file's git blob (e4c2ff49…, 749,738 bytes) in that
// commit; JSONL needs no reader beyond encoding/json.
var gsm8kSource = Source{
	URL:    "https://raw.githubusercontent.com/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/test.jsonl",
	SHA256: "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
	Size:   749738,
}

const gsm8kRevision = "3101c7d5072418e28b9008a6636bde82a006892c"

// gsm8kPrompt asks for the reasoning and then the answer in the form the original
// grader reads ("#### N"); the scorer also takes a \boxed{} or the last number.
const gsm8kPrompt = "Solve the following math problem step by step. " +
	"At the end, write the final answer on its own line as \"#### N\", where N is a number.\n\n" +
	"Question: %s"

func loadGSM8K(ctx context.Context, c Cache) (*Set, error) {
	path, err := c.Fetch(ctx, gsm8kSource)
	if err != nil {
		return nil, fmt.Errorf("GSM8K: %w", err)
	}
	items, err := parseGSM8K(path)
	if err != nil {
		return nil, err
	}
	return &Set{Info: rundoc.EvalSet{
		Name: GSM8K, Revision: gsm8kRevision, SHA256: gsm8kSource.SHA256, Source: gsm8kSource.URL,
		Size: len(items), Prompt: "gsm8k-0shot-v1", Scorer: accuracy.Number,
	}, Items: items}, nil
}

// parseGSM8K reads the test split: one {"question", "answer"} a line, the answer's
// reference number after its "#### ". An item's id is its line's index from 0.
func parseGSM8K(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading GSM8K: %w", err)
	}
	defer f.Close()
	var items []Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var x struct{ Question, Answer string }
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, fmt.Errorf("reading GSM8K line %d: %w", len(items)+1, err)
		}
		_, ref, ok := strings.Cut(x.Answer, "#### ")
		if !ok || x.Question == "" {
			return nil, fmt.Errorf("reading GSM8K line %d: no question or no \"#### \" answer", len(items)+1)
		}
		items = append(items, Item{
			EvalItem: rundoc.EvalItem{ID: strconv.Itoa(len(items)), Expected: strings.ReplaceAll(strings.TrimSpace(ref), ",", "")},
			Prompt:   fmt.Sprintf(gsm8kPrompt, x.Question),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading GSM8K: %w", err)
	}
	return items, nil
}
