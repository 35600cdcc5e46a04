package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/hw"
)

func init() { commands = append(commands, newHWCmd) }

func newHWCmd() *cobra.Command {
	var format, file string
	cmd := &cobra.Command{
		Use:     "hw",
		Short:   "Say what this machine is: GPUs, VRAM, driver, CPU, RAM, OS",
		Long:    helpLong("hw"),
		Example: helpExamples("hw"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := textOrJSON(format); err != nil {
				return err
			}
			h, err := hw.Describe(cmd.Context(), file)
			if err != nil {
				return err
			}
			return hw.Write(cmd.OutOrStdout(), h, format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&file, "hardware", "", "read a hand-written hardware file (YAML or JSON) instead of this machine")
	return cmd
}

// textOrJSON checks the --format of hw and probe, before they look at anything.
func textOrJSON(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("--format %q: use text or json", format)
	}
	return nil
}
