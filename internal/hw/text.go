package hw

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Describe is the hardware block "llmbench hw" shows: the hand-written file when one
// is named, else this machine as detected.
func Describe(ctx context.Context, file string) (rundoc.Hardware, error) {
	if file != "" {
		return ReadHardwareFile(file)
	}
	return Detect(ctx, "/", ExecRunner{})
}

// Write writes a hardware block: format "json" is the block itself, indented, as a
// run document holds it; anything else the text of WriteText.
func Write(w io.Writer, h rundoc.Hardware, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(h)
	}
	WriteText(w, h)
	return nil
}

// WriteText prints one fact a line, a line per group of identical GPUs, "unknown" for
// what was not found.
func WriteText(w io.Writer, h rundoc.Hardware) {
	gib := func(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	fmt.Fprintf(w, "%-8s %s\n", "type:", orUnknown(h.Type))
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
	fmt.Fprintf(w, "%-8s %s\n", "os:", orUnknown(h.OS))
	fmt.Fprintf(w, "%-8s %s\n", "kernel:", orUnknown(h.Kernel))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
