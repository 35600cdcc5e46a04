package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/eval"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/report"
)

func init() { commands = append(commands, newEvalCmd) }

func newEvalCmd() *cobra.Command {
	c := eval.Config{}
	var noProgress bool
	var rescore, lang string
	cmd := &cobra.Command{
		Use:     "eval",
		Short:   "Score the server's answers on a pinned evaluation set (GSM8K, MMLU-Pro, your own JSONL)",
		Long:    helpLong("eval"),
		Example: helpExamples("eval"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rescore != "" {
				return evalRescore(cmd, rescore)
			}
			return runEval(cmd, c, noProgress, lang)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Endpoint, "endpoint", "", "server root or its /v1 base URL; also --base-url (default: $"+baseURLEnv+")")
	fl.StringVar(&c.Model, "model", "", "model name to request (default: the first model /v1/models lists)")
	fl.StringVar(&c.APIKey, "api-key", os.Getenv("OPENAI_API_KEY"), "API key sent as a bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&c.Set, "set", eval.GSM8K, "evaluation set: "+strings.Join(eval.Names(), ", ")+", or a .jsonl file of your own (question, answer, scorer)")
	fl.IntVar(&c.Limit, "limit", 0, "ask only this many items, evenly spread over the set (the same ones every time); 0 = all")
	fl.IntVar(&c.Concurrency, "concurrency", 16, "requests at once")
	fl.IntVar(&c.MaxTokens, "max-tokens", 4096, "max_tokens of each answer (reasoning models need room to think)")
	fl.StringVarP(&c.Out, "out", "o", "", "run document to write, or an existing one to add this evaluation to (default: <model>-<time>-eval.json)")
	fl.StringVar(&c.Resume, "resume", "", "finish the interrupted evaluation in this document")
	fl.StringVar(&rescore, "rescore", "", "score this document's answers again from its answers file and compare (no server)")
	fl.StringVar(&lang, "lang", "en", "language of the summary: "+strings.Join(locale.Languages(), ", "))
	fl.BoolVar(&noProgress, "no-progress", false, "print one line per step instead of a live progress display")
	fl.SetNormalizeFunc(aliasFlags)
	return cmd
}

// runEval is llmbench eval: the set asked, the document written, the score printed.
func runEval(cmd *cobra.Command, c eval.Config, noProgress bool, lang string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	cache, err := eval.DefaultCache()
	if err != nil {
		return err
	}
	c.Cache, c.ToolVersion = cache, toolVersion()
	display := progress.New(stdout, stderr, noProgress)
	defer display.Close()
	res, err := eval.Execute(cmd.Context(), c, display, stderr)
	display.Close()
	switch {
	case errors.Is(err, eval.ErrInterrupted):
		fmt.Fprintf(stderr, "\nInterrupted. Every answer so far is saved in %s; finish with:\n  llmbench eval --resume %s\n", res.Path, res.Path)
		return &exitError{code: 130, err: errors.New("interrupted")}
	case err != nil:
		return err
	}
	if err := report.WriteAccuracy(stdout, res.Entry, lang); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nWrote %s (answers: %s). Next:\n  llmbench report %s\n", res.Path, res.Entry.Config.Answers, res.Path)
	return nil
}

// evalRescore is llmbench eval --rescore: exit 1 when the answers score otherwise.
func evalRescore(cmd *cobra.Command, doc string) error {
	diffs, err := eval.Rescore(doc, "")
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return &exitError{code: 1, err: errors.New("re-score differs:\n  " + strings.Join(diffs, "\n  "))}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: every evaluation re-scores to the same figures from its answers\n", doc)
	return nil
}
