package ui

import "github.com/llmbench/llmbench/internal/report"

// placeReasons puts m's reasons on its cells' hover text while they are short in all,
// or lists each distinct one once in m.Notes and numbers the cells (report.PlaceReasons:
// a run of 64 × 64 cells with long reasons made a run page 7 MB, issue 37).
func placeReasons(m *matrixView) {
	var reasons []string
	for _, row := range m.Rows {
		for _, c := range row.Cells {
			reasons = append(reasons, c.Reason)
		}
	}
	placed := report.PlaceReasons(reasons)
	m.Notes, m.MoreNotes = placed.Notes, placed.More
	for i := range m.Rows {
		for j := range m.Rows[i].Cells {
			c := &m.Rows[i].Cells[j]
			switch n, listed := placed.Number(c.Reason); {
			case c.Reason == "":
			case !listed:
				c.Title = c.Reason
			default:
				c.Note = n
			}
		}
	}
}
