package site

// A matrix's reasons. A failed or over-capacity cell says why on hover, but a run may
// hold 64 × 64 cells with reasons of up to 1,024 characters each: repeated on every
// cell, they made a run page 7 MB and a report embedding the run 1.8 MB per embed
// (issue 37). So while a matrix's reasons are short in all they stay on their cells,
// and past that each distinct reason is written once, numbered, below the matrix, and
// a cell carries its number.
const (
	// inlineReasonBytes is how much reason text a matrix repeats on its cells: a few
	// dozen cells with a sentence each.
	inlineReasonBytes = 16 << 10
	// maxMatrixNotes bounds the reasons listed below one matrix (at most 1,024
	// characters each); the others are counted.
	maxMatrixNotes = 32
)

// placeReasons puts m's reasons on its cells' hover text, or lists each distinct one
// once in m.Notes and numbers the cells.
func placeReasons(m *matrixView) {
	total := 0
	for _, row := range m.Rows {
		for _, c := range row.Cells {
			total += len(c.Reason)
		}
	}
	index := map[string]int{} // reason → its number, 0 past the list
	for i := range m.Rows {
		for j := range m.Rows[i].Cells {
			c := &m.Rows[i].Cells[j]
			switch {
			case c.Reason == "":
			case total <= inlineReasonBytes:
				c.Title = c.Reason
			default:
				c.Note = m.note(index, c.Reason)
			}
		}
	}
}

// note is reason's number among m's Notes, adding it when it is new and the list has
// room; 0 when it does not.
func (m *matrixView) note(index map[string]int, reason string) int {
	if n, ok := index[reason]; ok {
		return n
	}
	n := 0
	if len(m.Notes) < maxMatrixNotes {
		m.Notes = append(m.Notes, reason)
		n = len(m.Notes)
	} else {
		m.MoreNotes++
	}
	index[reason] = n
	return n
}
