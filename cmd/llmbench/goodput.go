package main

import (
	"fmt"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/session"
)

// sloPart is one target in vLLM's --goodput form, "ttft:500", or llmbench's, "ttft=500ms".
var sloPart = regexp.MustCompile(`^(?i)(ttft|tpot|e2el|e2e)[:=]\S+$`)

// goodputArgs is run's argument check. vLLM's --goodput takes several words
// (--goodput ttft:500 tpot:50); a flag parser gives the first to --goodput and leaves
// the others as arguments, so those that are SLO targets are taken back into it.
// Anything else is an error, as run takes no arguments.
func goodputArgs(o *session.OpenLoop) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for _, a := range args {
			if len(o.Goodput) == 0 || !sloPart.MatchString(a) {
				return fmt.Errorf("run takes no arguments, got %q (flags start with --; see llmbench run --help)", a)
			}
			o.Goodput = append(o.Goodput, a)
		}
		return nil
	}
}
