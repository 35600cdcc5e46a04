package main

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

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var format, out, lang string
	var noColor bool
	cmd := &cobra.Command{
		Use:   "report RUN.json",
		Short: "Render a saved run: text, markdown, csv, json, or a self-contained html page",
		Long: `report renders a run document written by "llmbench run" (or "llmbench calc") as
the seed page's tables: Prefill, Sustained decode (rows context, columns concurrency,
each cell "total tok/s (TTFT)"), and All measurements.

Formats:
  text   aligned tables for the terminal (default; coloured when writing to a terminal)
  md     GitHub Markdown, with the hardware/engine/run cards and the launch command
  csv    one row per measurement, raw numbers, for spreadsheets and scripts
  json   the run document itself, indented
  html   one self-contained page (no network needed): cards, shaded matrix, SVG charts,
         sortable table of all measurements`,
		Example: `  llmbench report run.json
  llmbench report run.json --format md > RESULTS.md
  llmbench report run.json --format csv -o run.csv
  llmbench report run.json --format html -o page.html
  llmbench report run.json --format html --lang ja -o page-ja.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(report.Formats(), format) {
				return fmt.Errorf("unknown --format %q (choose one of %s)", format, strings.Join(report.Formats(), ", "))
			}
			if !slices.Contains(report.Languages(), lang) {
				return fmt.Errorf("unknown --lang %q (choose one of %s)", lang, strings.Join(report.Languages(), ", "))
			}
			run, err := reportReadRun(args[0])
			if err != nil {
				return err
			}
			opts := report.Options{Format: format, Lang: lang}
			if out == "" || out == "-" {
				opts.Color = format == "text" && !noColor && reportIsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == ""
				return report.Write(cmd.OutOrStdout(), run, opts)
			}
			return reportWriteFile(out, func(w io.Writer) error { return report.Write(w, run, opts) })
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(report.Formats(), ", "))
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&lang, "lang", "en", "language of labels: "+strings.Join(report.Languages(), ", "))
	cmd.Flags().BoolVar(&noColor, "no-color", false, "no ANSI colour in text output (also: NO_COLOR=1)")
	return cmd
}

// reportReadRun reads a run document with errors that say what to do about them.
func reportReadRun(path string) (*bench.Run, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run document %s does not exist", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading run document: %w", err)
	}
	run, err := bench.Decode(b)
	if err != nil {
		var probe struct {
			SchemaVersion *int `json:"schema_version"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.SchemaVersion == nil {
			return nil, fmt.Errorf("%s is not an llmbench run document (it has no schema_version)", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// reportIsTerminal reports whether f is a character device (a terminal), without cgo.
func reportIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// reportWriteFile writes path through a temporary file in the same folder, so that a
// failed render never leaves a half-written report behind.
func reportWriteFile(path string, write func(io.Writer) error) error {
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
