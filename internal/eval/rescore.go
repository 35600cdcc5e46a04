package eval

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Rescore scores every evaluation in the document at docPath again from its answers
// file (beside the document, as the entry names it, unless answersPath is given) and
// says which entries' figures or items differ: none for a document whose answers are
// its own.
func Rescore(docPath, answersPath string) (diffs []string, err error) {
	doc, err := rundoc.ReadFile(docPath)
	if err != nil {
		return nil, err
	}
	if len(doc.Accuracy) == 0 {
		return nil, fmt.Errorf("%s holds no evaluation to re-score", docPath)
	}
	for _, a := range doc.Accuracy {
		path := answersPath
		if path == "" {
			path = filepath.Join(filepath.Dir(docPath), a.Config.Answers)
		}
		all, err := ReadAnswers(path)
		if err != nil {
			return nil, err
		}
		again := accuracy.Rescore(a, all[a.Set.Name])
		again.FinishedAt, again.Status = a.FinishedAt, a.Status
		was, _ := json.Marshal(a)
		now, _ := json.Marshal(again)
		if string(was) != string(now) {
			diffs = append(diffs, fmt.Sprintf("%s: the document says %d/%d right, its answers score %d/%d", a.Set.Name, a.Correct, a.Scored, again.Correct, again.Scored))
		}
	}
	return diffs, nil
}
