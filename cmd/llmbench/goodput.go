package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// sloPart is one target in vLLM's --goodput form, "ttft:500", or llmbench's, "ttft=500ms".
var sloPart = regexp.MustCompile(`^(?i)(ttft|tpot|e2el|e2e)[:=]\S+$`)

// normalizeSLO turns any of the accepted spellings — llmbench's ttft=500ms,tpot=50ms,
// vLLM's "ttft:500 tpot:50" (milliseconds), the site's ttft:500ms — into the
// name=value list rundoc.ParseSLO reads.
func normalizeSLO(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for i, f := range fields {
		if !strings.Contains(f, "=") {
			fields[i] = strings.Replace(f, ":", "=", 1)
		}
	}
	return strings.Join(fields, ",")
}

// sloSpec is the SLO the flags give: --slo or --goodput, not both.
func (rf *rateFlags) sloSpec() (string, error) {
	goodput := strings.Join(rf.goodput, " ")
	switch {
	case rf.slo != "" && goodput != "":
		return "", errors.New("--slo and --goodput both give the SLO: use one")
	case goodput != "":
		return normalizeSLO(goodput), nil
	}
	return normalizeSLO(rf.slo), nil
}

// goodputArgs is run's argument check. vLLM's --goodput takes several words
// (--goodput ttft:500 tpot:50); a flag parser gives the first to --goodput and leaves
// the others as arguments, so those that are SLO targets are taken back into it.
// Anything else is an error, as run takes no arguments.
func goodputArgs(rf *rateFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for _, a := range args {
			if len(rf.goodput) == 0 || !sloPart.MatchString(a) {
				return fmt.Errorf("run takes no arguments, got %q (flags start with --; see llmbench run --help)", a)
			}
			rf.goodput = append(rf.goodput, a)
		}
		return nil
	}
}
