package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The seed page's figures, copied from ../shared/seed/000_f4746f295f65ae80.txt. The
// renderers must reproduce every one of them from seed-run.json.

var seedPrefill = [][]string{ // context, prompt tok/s, TTFT
	{"8K", "2,163", "3,808 ms"},
	{"16K", "2,039", "7,978 ms"},
	{"32K", "1,871", "17,286 ms"},
	{"56K", "1,664", "33,908 ms"},
}

const oc = "Over capacity"

// seedMatrix is the Sustained decode table: rows 0, 16K, 32K, 56K; columns 1 … 128.
var seedMatrix = [][]string{
	{"48.2 (85 ms)", "89.4 (133 ms)", "172.1 (283 ms)", "329.4 (496 ms)", oc, oc, oc, oc},
	{"46.6 (377 ms)", "86.2 (562 ms)", oc, oc, oc, oc, oc, oc},
	{"45.3 (746 ms)", oc, oc, oc, oc, oc, oc, oc},
	{"43.5 (1,310 ms)", oc, oc, oc, oc, oc, oc, oc},
}

// seedAll is the All measurements table. One deliberate difference: the seed page
// prints nothing under "Completed requests" for decode cells whose count is 0; we
// print the 0 the run document holds (no request finished inside a 30 s window).
var seedAll = func() [][]string {
	rows := [][]string{
		{"Prefill", "8K", "1", "Valid", "2,163.0", "—", "3,808 ms", "—", "—", "1", "—", "—"},
		{"Prefill", "16K", "1", "Valid", "2,039.0", "—", "7,978 ms", "—", "—", "1", "—", "—"},
		{"Prefill", "32K", "1", "Valid", "1,871.0", "—", "17,286 ms", "—", "—", "1", "—", "—"},
		{"Prefill", "56K", "1", "Valid", "1,664.0", "—", "33,908 ms", "—", "—", "1", "—", "—"},
	}
	valid := map[string][]string{
		"0/1":   {"48.2", "48.2", "85 ms", "20.7 ms", "1.00", "0", "1,445", "30.0 s"},
		"0/2":   {"89.4", "44.7", "133 ms", "22.4 ms", "2.00", "0", "2,682", "30.0 s"},
		"0/4":   {"172.1", "43.1", "283 ms", "23.2 ms", "4.00", "0", "5,164", "30.0 s"},
		"0/8":   {"329.4", "41.3", "496 ms", "24.2 ms", "8.00", "0", "9,878", "30.0 s"},
		"16K/1": {"46.6", "46.6", "377 ms", "21.5 ms", "1.00", "0", "1,397", "30.0 s"},
		"16K/2": {"86.2", "42.9", "562 ms", "23.3 ms", "2.00", "0", "2,584", "30.0 s"},
		"32K/1": {"45.3", "45.3", "746 ms", "22.1 ms", "1.00", "0", "1,358", "30.0 s"},
		"56K/1": {"43.5", "43.6", "1,310 ms", "23.0 ms", "1.00", "0", "1,305", "30.0 s"},
	}
	for _, ctx := range []string{"0", "16K", "32K", "56K"} {
		for _, n := range []string{"1", "2", "4", "8", "16", "32", "64", "128"} {
			row := []string{"Sustained decode", ctx, n}
			if v, ok := valid[ctx+"/"+n]; ok {
				row = append(append(row, "Valid"), v...)
			} else {
				row = append(row, oc, "—", "—", "—", "—", "—", "—", "—", "—")
			}
			rows = append(rows, row)
		}
	}
	return rows
}()

var seedHeader = []string{
	"Qwen3.8-27B-INT4 on RTX 3090 24GB",
	"vllm · 0.32.0 · INT4 W4A16 g128",
	"4 contexts (0–56K) × 8 concurrency levels (1–128) · prefill at 8K, 16K, 32K, 56K",
	"by @Sandberg", "llm-inference-bench v0.8.0", "Measured",
}

var seedNotes = []string{
	"Over capacity: not run because this many requests at this context would exceed the server's KV cache.",
	"TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.",
	"Latencies are medians. Total tok/s is output across all simultaneous requests.",
}

var columnGap = regexp.MustCompile(`\s{2,}`)

// textTable returns the rows of the text table under the line that starts with title:
// the header line is skipped, and the table ends at the first blank line.
func textTable(t *testing.T, out, title string) [][]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, title) {
			continue
		}
		var rows [][]string
		for _, r := range lines[i+2:] {
			if strings.TrimSpace(r) == "" {
				break
			}
			rows = append(rows, columnGap.Split(strings.TrimSpace(r), -1))
		}
		return rows
	}
	t.Fatalf("no table %q in:\n%s", title, out)
	return nil
}

func TestTextReproducesSeedTables(t *testing.T) {
	out := render(t, readSeed(t), Options{Format: "text"})
	for _, s := range append(seedHeader, seedNotes...) {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q", s)
		}
	}
	if diff := cmp.Diff(seedPrefill, textTable(t, out, "Prefill —")); diff != "" {
		t.Errorf("Prefill table (-seed +text):\n%s", diff)
	}
	var matrix [][]string
	for _, r := range textTable(t, out, "Sustained decode —") {
		matrix = append(matrix, r[1:])
	}
	if diff := cmp.Diff(seedMatrix, matrix); diff != "" {
		t.Errorf("Sustained decode table (-seed +text):\n%s", diff)
	}
	if diff := cmp.Diff(seedAll, textTable(t, out, "All measurements —")); diff != "" {
		t.Errorf("All measurements table (-seed +text):\n%s", diff)
	}
}

// mdTable returns the body rows of the Markdown table that follows the heading.
func mdTableRows(t *testing.T, out, heading string) [][]string {
	t.Helper()
	_, after, ok := strings.Cut(out, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("no section %q", heading)
	}
	var rows [][]string
	started := false
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows[2:] // header and alignment rows
}

func TestMarkdownReproducesSeedTables(t *testing.T) {
	out := render(t, readSeed(t), Options{Format: "md"})
	for _, s := range []string{"# Qwen3.8-27B-INT4 on RTX 3090 24GB", "**Measured**", "- **VRAM:** 24 GB", "- **RAM:** 32 GB", "- **Type:** Discrete GPU",
		"- **Max output:** 8,192 tokens", "- **Time per measurement:** 30 s", "- **Prefill mode:** Measured during decode warm-up", "- **Decode test:** Fixed duration",
		"vllm serve RedHatAI/Qwen3.8-27B-INT4 --max-model-len 65536"} {
		if !strings.Contains(out, s) {
			t.Errorf("markdown report lacks %q", s)
		}
	}
	if diff := cmp.Diff(seedPrefill, mdTableRows(t, out, "Prefill")); diff != "" {
		t.Errorf("Prefill table (-seed +md):\n%s", diff)
	}
	var matrix [][]string
	for _, r := range mdTableRows(t, out, "Sustained decode") {
		matrix = append(matrix, r[1:])
	}
	if diff := cmp.Diff(seedMatrix, matrix); diff != "" {
		t.Errorf("Sustained decode table (-seed +md):\n%s", diff)
	}
	if diff := cmp.Diff(seedAll, mdTableRows(t, out, "All measurements")); diff != "" {
		t.Errorf("All measurements table (-seed +md):\n%s", diff)
	}
}
