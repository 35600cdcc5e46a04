package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Named is a run document and the file it came from.
type Named struct {
	Path string
	Run  *rundoc.Run
}

// Render is "llmbench report": it checks the format and language, reads every
// document named (ReadRuns) and renders them to w, or to the file output when it is
// not empty (WriteFile). What ReadRuns leaves out it says on stderr.
func Render(w, stderr io.Writer, paths []string, output string, opts Options) error {
	if !slices.Contains(Formats(), opts.Format) {
		return fmt.Errorf("unknown --format %q (choose one of %s)", opts.Format, strings.Join(Formats(), ", "))
	}
	if !slices.Contains(locale.Languages(), opts.Lang) {
		return fmt.Errorf("unknown --lang %q (choose one of %s)", opts.Lang, strings.Join(locale.Languages(), ", "))
	}
	if opts.FindAgainst != nil && !slices.Contains([]string{"text", "md", "html"}, opts.Format) {
		return fmt.Errorf("--against lays the run over another in text, md and html; --format %s holds the document alone", opts.Format)
	}
	runs, err := ReadRuns(paths, opts.Format, stderr)
	if err != nil {
		return err
	}
	if output == "" {
		return WriteRuns(w, runs, opts)
	}
	return WriteFile(output, func(f io.Writer) error { return WriteRuns(f, runs, opts) })
}

// ReadRun reads a run document with errors that say what to do about them.
func ReadRun(path string) (*rundoc.Run, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run document %s does not exist", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading run document: %w", err)
	}
	run, err := rundoc.Decode(b)
	if err != nil {
		var probe struct {
			SchemaVersion *int `json:"schema_version"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.SchemaVersion == nil {
			return nil, fmt.Errorf("%s is not an llmbench run document (it has no schema_version)", path)
		}
		if at := jsonErrorAt(b, err); at != "" {
			return nil, fmt.Errorf("%s, at %s: %w", path, at, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// ReadRuns reads every document named. Text and md render them all; the other
// formats hold one run, so only the newest is kept and stderr says so — except that
// html keeps two documents that evaluated a set in common, for the page of the newest
// with their A/B (WriteRuns).
func ReadRuns(paths []string, format string, stderr io.Writer) ([]Named, error) {
	var runs []Named
	for _, p := range paths {
		r, err := ReadRun(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, Named{p, r})
	}
	if len(runs) == 1 || format == "text" || format == "md" {
		return runs, nil
	}
	newest := newestOf(runs)
	ab := ""
	if format == "html" && len(runs) == 2 && len(comparisons(runs[0].Run, runs[1].Run)) > 0 {
		ab = fmt.Sprintf(", with the A/B of their evaluations (A %s, B %s)", runs[0].Path, runs[1].Path)
	}
	fmt.Fprintf(stderr, "%d run documents given; --format %s holds one, so this is the newest, %s (%s)%s. Name one file to render another.\n",
		len(runs), format, newest.Path, newest.Run.CreatedAt.Format("2006-01-02 15:04:05 MST"), ab)
	if ab != "" {
		return runs, nil
	}
	return []Named{newest}, nil
}

// newestOf is the document created last.
func newestOf(runs []Named) Named {
	return slices.MaxFunc(runs, func(a, b Named) int { return a.Run.CreatedAt.Compare(b.Run.CreatedAt) })
}

// WriteRuns renders each run in turn, each headed by its file when there are several,
// then the A/B of two documents' evaluations; html renders the newest of two with
// their A/B in its page.
func WriteRuns(w io.Writer, runs []Named, opts Options) error {
	if len(runs) == 2 && opts.Format == "html" {
		n := newestOf(runs)
		opts.AB = [2]*rundoc.Run{runs[0].Run, runs[1].Run}
		if err := writeAgainst(w, n.Run, opts); err != nil {
			return fmt.Errorf("%s: %w", n.Path, err)
		}
		return nil
	}
	for i, r := range runs {
		if len(runs) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if opts.Format == "md" {
				fmt.Fprintf(w, "<!-- %s -->\n", r.Path)
			} else {
				fmt.Fprintf(w, "== %s ==\n", r.Path)
			}
		}
		if err := writeAgainst(w, r.Run, opts); err != nil {
			return fmt.Errorf("%s: %w", r.Path, err)
		}
	}
	if len(runs) == 2 && (opts.Format == "text" || opts.Format == "md") {
		return WriteComparisons(w, runs[0].Run, runs[1].Run, opts.Lang)
	}
	return nil
}

// WriteFile writes path through a temporary file in the same folder, so that a
// failed render never leaves a half-written report behind.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// jsonErrorAt says where in b a JSON error is: "line 12, column 5".
func jsonErrorAt(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return ""
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
