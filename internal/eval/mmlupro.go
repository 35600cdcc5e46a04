package eval

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// mmluProSource is MMLU-Pro's test split (12,032 questions) at a pinned revision of
// TIGER-Lab/MMLU-Pro on Hugging Face. The dataset exists there only as Parquet, read
// here by parquet-go (pure Go). The checksum and size could not be computed here (no
// network); they are the values that independent public projects pinning this
// revision record alike (several lockfiles and manifests that find_string turns up),
// not a hash this project computed itself from the file or read from the hub's LFS
// pointer. A file that does not match is refused, so a wrong pin fails loudly and
// never scores a changed set.
var mmluProSource = Source{
	URL:    "https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro/resolve/b189ec765aa7ed75c8acfea42df31fdae71f97be/data/test-00000-of-00001.parquet",
	SHA256: "0e24a191921c2f453518a537a8b2117bd137e7714d4ef1565e9ba06c1ecb9ad8",
	Size:   4144185,
}

const mmluProRevision = "b189ec765aa7ed75c8acfea42df31fdae71f97be"

// mmluProPrompt is the reference's instruction (evaluate_from_api.py, single_request)
// and question format (format_example) with no worked examples: zero-shot, where the
// reference puts five of the validation split's before it.
const mmluProPrompt = "The following are multiple choice questions (with answers) about %s. Think step by step " +
	"and then output the answer in the format of \"The answer is (X)\" at the end.\n\n" +
	"Question: %s\nOptions: %sAnswer: Let's think step by step."

// mmluProSubsetIDs are the question ids of the built-in subset, chosen once by
// SubsetRule from the test split and pinned here: a file whose split yields others is
// refused.
//
//go:embed mmlupro_subset.txt
var mmluProSubsetIDs string

func loadMMLUPro(ctx context.Context, c Cache) (*Set, error) {
	path, err := c.Fetch(ctx, mmluProSource)
	if err != nil {
		return nil, fmt.Errorf("MMLU-Pro: %w", err)
	}
	rows, err := readMMLUPro(path)
	if err != nil {
		return nil, err
	}
	items, err := mmluProItems(rows)
	if err != nil {
		return nil, err
	}
	return &Set{Info: rundoc.EvalSet{
		Name: MMLUPro, Revision: mmluProRevision, SHA256: mmluProSource.SHA256, Source: mmluProSource.URL,
		Size: len(items), Subset: SubsetRule, Prompt: "mmlu-pro-0shot-v1", Scorer: accuracy.Choice,
	}, Items: items}, nil
}

// mmluProRow is one question of the test split.
type mmluProRow struct {
	ID       int64
	Question string
	Options  []string
	Answer   string
	Category string
}

// mmluProItems are the pinned subset's questions, in question id order, each asked
// with its options (the reference's preprocess drops the "N/A" padding).
func mmluProItems(rows []mmluProRow) ([]Item, error) {
	picked := Stratified(rows)
	pinned := strings.Fields(mmluProSubsetIDs)
	if len(picked) != len(pinned) {
		return nil, fmt.Errorf("MMLU-Pro: the rule picks %d questions, the pinned subset has %d: %w", len(picked), len(pinned), ErrChanged)
	}
	items := make([]Item, len(picked))
	for i, r := range picked {
		if id := strconv.FormatInt(r.ID, 10); id != pinned[i] {
			return nil, fmt.Errorf("MMLU-Pro: the rule picks question %s where the pinned subset has %s: %w", id, pinned[i], ErrChanged)
		}
		var opts []string
		for _, o := range r.Options {
			if o != "N/A" {
				opts = append(opts, o)
			}
		}
		if len(r.Answer) != 1 || int(r.Answer[0]-'A') >= len(opts) || r.Answer[0] < 'A' {
			return nil, fmt.Errorf("MMLU-Pro question %d: answer %q is not one of its %d options", r.ID, r.Answer, len(opts))
		}
		items[i] = Item{
			EvalItem: rundoc.EvalItem{ID: pinned[i], Category: r.Category, Expected: r.Answer},
			Prompt:   fmt.Sprintf(mmluProPrompt, r.Category, r.Question, letteredOptions(opts)),
		}
	}
	return items, nil
}

// letteredOptions writes options as the reference's format_example does: "A. …\n".
func letteredOptions(opts []string) string {
	var b strings.Builder
	for i, o := range opts {
		fmt.Fprintf(&b, "%c. %s\n", 'A'+i, o)
	}
	return b.String()
}

// readMMLUPro reads the columns the set needs from the test split's Parquet file by
// their names, whatever the writer named a list's inner levels.
func readMMLUPro(path string) ([]mmluProRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading MMLU-Pro: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading MMLU-Pro: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading MMLU-Pro's Parquet file: %w", err)
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	cols := r.Schema().Columns()
	var out []mmluProRow
	buf := make([]parquet.Row, 256)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			out = append(out, mmluProRowOf(row, cols))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading MMLU-Pro's Parquet file: %w", err)
		}
	}
	return out, nil
}

func mmluProRowOf(row parquet.Row, cols [][]string) mmluProRow {
	var r mmluProRow
	for _, v := range row {
		if v.IsNull() || v.Column() >= len(cols) {
			continue
		}
		switch cols[v.Column()][0] {
		case "question_id":
			r.ID = v.Int64()
		case "question":
			r.Question = string(v.ByteArray())
		case "options":
			r.Options = append(r.Options, string(v.ByteArray()))
		case "answer":
			r.Answer = string(v.ByteArray())
		case "category":
			r.Category = string(v.ByteArray())
		}
	}
	return r
}
