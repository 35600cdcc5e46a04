package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/hw"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func init() { commands = append(commands, newHWCmd) }

func newHWCmd() *cobra.Command {
	var format, file string
	cmd := &cobra.Command{
		Use:   "hw",
		Short: "Say what this machine is: GPUs, VRAM, driver, CPU, RAM, OS",
		Long: `hw describes the machine it runs on, as a run document's hardware block:
NVIDIA GPUs through nvidia-smi (name, memory, driver, power limit, PCIe generation and
width; identical GPUs are grouped with a count), AMD GPUs through sysfs, Apple silicon
through system_profiler, the CPU model and logical cores, RAM, OS and kernel.

With --hardware FILE it reads and checks a hand-written description instead (YAML or
JSON with the same field names), as "llmbench run --hardware FILE" does for a remote
server.`,
		Example: `  llmbench hw
  llmbench hw --format json > hardware.json
  llmbench hw --hardware remote-box.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: use text or json", format)
			}
			var h rundoc.Hardware
			var err error
			if file != "" {
				h, err = hw.ReadHardwareFile(file)
			} else {
				h, err = hw.Detect(cmd.Context(), "/", hw.ExecRunner{})
			}
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(h)
			}
			writeHWText(cmd.OutOrStdout(), h)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&file, "hardware", "", "read a hand-written hardware file (YAML or JSON) instead of this machine")
	return cmd
}

func writeHWText(w io.Writer, h rundoc.Hardware) {
	gib := func(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	fmt.Fprintf(w, "%-8s %s\n", "type:", hwOrUnknown(h.Type))
	if len(h.GPUs) == 0 {
		fmt.Fprintf(w, "%-8s none found\n", "gpus:")
	}
	for _, g := range h.GPUs {
		parts := []string{fmt.Sprintf("%d× %s", max(g.Count, 1), g.Name)}
		if g.VRAMBytes > 0 {
			parts = append(parts, gib(g.VRAMBytes))
		}
		if g.Driver != "" {
			parts = append(parts, "driver "+g.Driver)
		}
		if g.PowerLimitW > 0 {
			parts = append(parts, fmt.Sprintf("%.0f W", g.PowerLimitW))
		}
		if g.PCIe != "" {
			parts = append(parts, "PCIe "+g.PCIe)
		}
		fmt.Fprintf(w, "%-8s %s\n", "gpu:", strings.Join(parts, ", "))
	}
	if h.CPU != nil {
		fmt.Fprintf(w, "%-8s %s (%d logical cores)\n", "cpu:", h.CPU.Model, h.CPU.Cores)
	} else {
		fmt.Fprintf(w, "%-8s unknown\n", "cpu:")
	}
	ram := "unknown"
	if h.RAMBytes > 0 {
		ram = gib(h.RAMBytes)
	}
	fmt.Fprintf(w, "%-8s %s\n", "ram:", ram)
	fmt.Fprintf(w, "%-8s %s\n", "os:", hwOrUnknown(h.OS))
	fmt.Fprintf(w, "%-8s %s\n", "kernel:", hwOrUnknown(h.Kernel))
}

func hwOrUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
