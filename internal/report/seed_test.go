package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

// seedTables are the seed page's tables and words (internal/seed's seed-tables.json).
type seedTables = seedcopy.Tables

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

func TestTextReproducesSeedTables(t *testing.T) {
	seed := seedcopy.PageTables()
	out := render(t, readSeed(t), Options{Format: "text"})
	for _, s := range append(seed.Header, seed.Notes...) {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q", s)
		}
	}
	checkSeedTables(t, seed, "text", func(title string) [][]string { return textTable(t, out, title+" —") })
}

// checkSeedTables compares a report's three tables, read from it by title, with the
// seed's (the matrix without its row labels).
func checkSeedTables(t *testing.T, seed seedTables, format string, table func(title string) [][]string) {
	t.Helper()
	var matrix [][]string
	for _, r := range table("Sustained decode") {
		matrix = append(matrix, r[1:])
	}
	for _, c := range []struct {
		title     string
		seed, got [][]string
	}{{"Prefill", seed.Prefill, table("Prefill")}, {"Sustained decode", seed.Matrix, matrix}, {"All measurements", seed.All, table("All measurements")}} {
		if diff := cmp.Diff(c.seed, c.got); diff != "" {
			t.Errorf("%s table (-seed +%s):\n%s", c.title, format, diff)
		}
	}
}

func TestMarkdownReproducesSeedTables(t *testing.T) {
	seed := seedcopy.PageTables()
	out := render(t, readSeed(t), Options{Format: "md"})
	for _, s := range []string{"# Qwen3.8-27B-INT4 on RTX 3090 24GB", "**Measured**", "- **VRAM:** 24 GB", "- **RAM:** 32 GB", "- **Type:** Discrete GPU",
		"- **Max output:** 8,192 tokens", "- **Time per measurement:** 30 s", "- **Prefill mode:** Measured during decode warm-up", "- **Decode test:** Fixed duration",
		"vllm serve RedHatAI/Qwen3.8-27B-INT4 --max-model-len 65536"} {
		if !strings.Contains(out, s) {
			t.Errorf("markdown report lacks %q", s)
		}
	}
	checkSeedTables(t, seed, "md", func(title string) [][]string { return mdTableRows(t, out, title) })
}
