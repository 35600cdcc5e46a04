package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

// narrowAll gathers the All measurements rows of a narrow text report, whose columns
// come in groups each led by the three key columns: the keys, then every group's
// cells in order, so the result compares with the seed's full rows.
func narrowAll(t *testing.T, out string) [][]string {
	t.Helper()
	_, after, ok := strings.Cut(out, "\nAll measurements —")
	if !ok {
		t.Fatalf("no All measurements in:\n%s", out)
	}
	var order []string
	rows := map[string][]string{}
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "Over capacity:") || strings.HasPrefix(l, "Notes") {
			break
		}
		if !strings.HasPrefix(l, "Prefill") && !strings.HasPrefix(l, "Sustained decode") {
			continue // a header line or a blank between groups
		}
		cells := columnGap.Split(strings.TrimSpace(l), -1)
		key := strings.Join(cells[:3], "|")
		if _, seen := rows[key]; !seen {
			order = append(order, key)
			rows[key] = cells[:3]
		}
		rows[key] = append(rows[key], cells[3:]...)
	}
	var all [][]string
	for _, k := range order {
		all = append(all, rows[k])
	}
	return all
}

// TestNarrowSeedKeepsEveryFigure: at 80 and 60 columns the seed's report has no wider
// line, in English and Japanese, and still prints every figure of the seed page: the
// matrix transposed, All measurements in column groups.
func TestNarrowSeedKeepsEveryFigure(t *testing.T) {
	seed := seedcopy.PageTables()
	for _, width := range []int{80, 60} {
		for _, lang := range []string{"en", "ja"} {
			out := render(t, readSeed(t), Options{Format: "text", Lang: lang, Width: width})
			for i, l := range strings.Split(out, "\n") {
				if w := displayWidth(l); w > width {
					t.Errorf("%s at %d columns: line %d is %d wide: %q", lang, width, i+1, w, l)
				}
			}
		}
		out := render(t, readSeed(t), Options{Format: "text", Width: width})
		if diff := cmp.Diff(seed.Prefill, textTable(t, out, "Prefill —")); diff != "" {
			t.Errorf("%d columns: Prefill table (-seed +text):\n%s", width, diff)
		}
		if diff := cmp.Diff(seed.All, narrowAll(t, out)); diff != "" {
			t.Errorf("%d columns: All measurements (-seed +text):\n%s", width, diff)
		}
	}
	out := render(t, readSeed(t), Options{Format: "text", Width: 80})
	if !strings.Contains(out, "\nRequests at once  0               16K            32K            56K\n") {
		t.Fatalf("the 80-column matrix is not transposed:\n%s", out)
	}
	_, after, _ := strings.Cut(out, "Sustained decode —")
	var transposed [][]string
	for _, l := range strings.Split(after, "\n")[3:] { // the subtitle's wrapped line, the header
		if strings.TrimSpace(l) == "" {
			break
		}
		transposed = append(transposed, columnGap.Split(strings.TrimSpace(l), -1)[1:])
	}
	for ci, row := range seed.Matrix {
		for ni, cell := range row {
			if ni >= len(transposed) || ci >= len(transposed[ni]) || transposed[ni][ci] != cell {
				t.Errorf("transposed matrix: context row %d, concurrency column %d: want %q in:\n%s", ci, ni, cell, after)
			}
		}
	}
}

// TestWideIsTheFullTable: width 0 (--wide, a pipe) prints the seed's tables one line a row.
func TestWideIsTheFullTable(t *testing.T) {
	wide := render(t, readSeed(t), Options{Format: "text"})
	if !strings.Contains(wide, "Context  1                2              4") {
		t.Fatalf("the full-width matrix is not rows context, columns concurrency:\n%s", wide)
	}
	long := 0
	for _, l := range strings.Split(wide, "\n") {
		long = max(long, displayWidth(l))
	}
	if long <= 150 {
		t.Errorf("the widest line is %d cells: the full All measurements table should be one line a row", long)
	}
}

func TestWrapWords(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"Requests at once", 8, []string{"Requests", "at once"}},
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"TTFT はベンチ", 7, []string{"TTFT は", "ベンチ"}},
		{"short", 0, []string{"short"}},
	} {
		if got := wrapWords(tc.in, tc.width); !cmp.Equal(got, tc.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
