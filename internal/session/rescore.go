package session

import (
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Differences is a re-scored document that does not match its file: the command
// exits 1 on it, as diff does.
type Differences struct {
	N   int
	Doc string
}

func (d *Differences) Error() string {
	return fmt.Sprintf("%d differences between %s and its events log", d.N, d.Doc)
}

// Rescore is "llmbench report --rescore EVENTS": the one document of docs re-scored
// from its events log by the live run's scoring functions, compared field by field,
// each difference a line on w and a *Differences error. With out set the re-scored
// document is written there instead (a log re-scored by a newer llmbench).
func Rescore(w io.Writer, eventsPath string, docs []string, out string) error {
	if len(docs) != 1 {
		return fmt.Errorf("--rescore re-scores one run document from its events log: llmbench report --rescore EVENTS RUN.json (got %d documents)", len(docs))
	}
	doc, err := report.ReadRun(docs[0])
	if err != nil {
		return err
	}
	events, err := os.ReadFile(eventsPath)
	if err != nil {
		return fmt.Errorf("reading the events log: %w", err)
	}
	rc, err := RecheckRun(doc, events)
	if err != nil {
		return fmt.Errorf("%s: %w", eventsPath, err)
	}
	fmt.Fprintf(w, "Re-scored from %s: %d prefill rows, %d decode cells, %d rate cells.\n", eventsPath, rc.Prefill, rc.Decode, rc.Rate)
	if out != "" {
		if err := rundoc.WriteFile(out, rc.Rescored); err != nil {
			return err
		}
		fmt.Fprintf(w, "Wrote the re-scored document to %s (%d fields differ from %s).\n", out, len(rc.Differences), docs[0])
		return nil
	}
	if len(rc.Differences) == 0 {
		fmt.Fprintf(w, "Every figure of %s is what its events re-score to.\n", docs[0])
		return nil
	}
	for _, d := range rc.Differences {
		fmt.Fprintln(w, "  "+d)
	}
	return &Differences{N: len(rc.Differences), Doc: docs[0]}
}
