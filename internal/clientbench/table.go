package clientbench

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Write prints the table in Markdown: per stream count, each client's tokens per
// CPU-second (median over the repetitions, with the range), and each client's ratio to
// the floor taken run by run against the floor run next to it.
func (t *Table) Write(w io.Writer) {
	kinds := []Kind{Floor, LLMBench}
	if t.Options.VLLMRequestFunc != "" {
		kinds = append(kinds, VLLM)
	}
	head := []string{"streams", "floor: bare Go reader"}
	for _, k := range kinds[1:] {
		head = append(head, kindTitle(k), kindTitle(k)+" ÷ floor")
	}
	head = append(head, "tok/s offered", "tok/s read (floor · llmbench)", "llmbench CPU busy", "peak RSS MiB (floor · llmbench)")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, n := range t.Options.Streams {
		runs := t.Runs[n]
		if len(runs[Floor]) == 0 {
			continue
		}
		row := []string{fmt.Sprint(n), spread(perCPU(runs[Floor]), "%.0f")}
		for _, k := range kinds[1:] {
			row = append(row, spread(perCPU(runs[k]), "%.0f"), spread(ratios(runs[k], runs[Floor]), "%.2f"))
		}
		offered := "—"
		if t.Options.Step > 0 {
			offered = fmt.Sprintf("%.0f", float64(n)/t.Options.Step.Seconds())
		}
		row = append(row, offered, spread(perSecond(runs[Floor]), "%.0f")+" · "+spread(perSecond(runs[LLMBench]), "%.0f"), spread(busy(runs[LLMBench]), "%.0f%%"),
			spread(rss(runs[Floor]), "%.0f")+" · "+spread(rss(runs[LLMBench]), "%.0f"))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintf(w, "\nTokens per CPU-second of the client process, median of %d runs (min–max). Server step %s, %d tokens a request, %s window after %s settling; %s.\n",
		t.Options.Reps, t.Options.Step, t.Options.MaxTokens, t.Options.Window, t.Options.Settle, t.Pinned)
	for _, f := range t.Failed {
		fmt.Fprintf(w, "\nFailed: %s\n", f)
	}
}

func kindTitle(k Kind) string {
	switch k {
	case LLMBench:
		return "llmbench"
	case VLLM:
		return "vLLM client (Python, aiohttp)"
	}
	return string(k)
}

func perCPU(rs []Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.TokensPerCPUSecond()
	}
	return out
}

// busy is the share of its CPUs the client process used in the window: near 100% the
// client is the bottleneck, reads several events per wake-up, and looks cheaper per
// token than it would be keeping up.
func busy(rs []Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		if r.WindowS > 0 && r.Procs > 0 {
			out[i] = 100 * r.CPUS / r.WindowS / float64(r.Procs)
		}
	}
	return out
}

func rss(rs []Result) []float64 {
	var out []float64
	for _, r := range rs {
		if r.MaxRSSMiB > 0 {
			out = append(out, r.MaxRSSMiB)
		}
	}
	return out
}

func perSecond(rs []Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.TokensPerSecond()
	}
	return out
}

// ratios pairs each run of a kind with the floor run of the same repetition: they ran
// back to back.
func ratios(rs, floor []Result) []float64 {
	var out []float64
	for _, r := range rs {
		for _, f := range floor {
			if f.Rep == r.Rep && f.TokensPerCPUSecond() > 0 {
				out = append(out, r.TokensPerCPUSecond()/f.TokensPerCPUSecond())
			}
		}
	}
	return out
}

// spread is "median (min–max)", or the one value.
func spread(v []float64, format string) string {
	if len(v) == 0 {
		return "—"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return fmt.Sprintf(format, med)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", med, s[0], s[len(s)-1])
}
