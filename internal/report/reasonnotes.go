package report

import "github.com/llmbench/llmbench/internal/locale"

// A matrix's reasons. A failed or over-capacity cell says why on hover, but a run may
// hold 64 × 64 cells with reasons of up to 1,024 characters each: repeated on every
// cell (its hover text, its footnote, its row of All measurements), they made the html
// report of such a run 11 MB and the site's run page 7 MB (issue 37). So while a
// matrix's reasons are short in all they stay on their cells, and past that each
// distinct reason is written once, numbered, below the matrix, and a cell carries its
// number. The html report and the site's matrix views (internal/site) both place
// their reasons here.

const (
	// InlineReasonBytes is how much reason text a matrix repeats on its cells: a few
	// dozen cells with a sentence each.
	InlineReasonBytes = 16 << 10
	// MaxReasonNotes bounds the reasons listed below one matrix (at most 1,024
	// characters each); the others are counted.
	MaxReasonNotes = 32
)

// ReasonNotes are a matrix's reasons as placed: on their cells (Inline), or each
// distinct one once in Notes, numbered from 1 in the order the cells first give them,
// and More past the list.
type ReasonNotes struct {
	Inline bool
	Notes  []string
	More   int
	number map[string]int // a listed reason's number; 0 for one past the list
}

// PlaceReasons places reasons, one a cell ("" for none), in the matrix's order.
func PlaceReasons(reasons []string) ReasonNotes {
	total := 0
	for _, r := range reasons {
		total += len(r)
	}
	n := ReasonNotes{Inline: total <= InlineReasonBytes, number: map[string]int{}}
	if n.Inline {
		return n
	}
	for _, r := range reasons {
		if _, seen := n.number[r]; seen || r == "" {
			continue
		}
		if len(n.Notes) < MaxReasonNotes {
			n.Notes = append(n.Notes, r)
			n.number[r] = len(n.Notes)
		} else {
			n.number[r] = 0
			n.More++
		}
	}
	return n
}

// Number is reason's number among Notes (0 when it is past the list); listed is false
// when reason stays on its cell: the reasons are inline, or it is not one of them.
func (n ReasonNotes) Number(reason string) (num int, listed bool) {
	num, listed = n.number[reason]
	return num, listed
}

// reasonRef is what a cell, its footnote and its row say of a listed reason, "" for
// one that stays on its cell.
func (n ReasonNotes) reasonRef(lang, reason string) (string, bool) {
	num, listed := n.Number(reason)
	switch {
	case !listed:
		return "", false
	case num == 0:
		return locale.T(lang, "reason_unlisted"), true
	}
	return locale.T(lang, "reason_ref", num), true
}
