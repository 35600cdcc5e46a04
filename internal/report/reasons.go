package report

import (
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// A document's over-capacity reasons and its --repeat note are English sentences that
// llmbench wrote from a few numbers (rundoc's texts.go). A report or a page in another
// language writes them again from those numbers; a reason or note in any other form
// (another tool's, a hand-written one) is shown as the document has it.

// priceNoteIn is a price's notes (rundoc.PriceNoteJoin between them) in lang.
func priceNoteIn(lang, note string) string {
	parts := strings.Split(note, rundoc.PriceNoteJoin)
	for i, p := range parts {
		parts[i] = locale.SentenceIn(lang, p)
	}
	return strings.Join(parts, rundoc.PriceNoteJoin)
}

// CapacityReason is an over-capacity reason in lang.
func CapacityReason(reason, lang string) string {
	f, ok := rundoc.ParseFitReason(reason)
	n := func(v int64) string { return FormatInt(lang, int(v)) }
	switch {
	case !ok:
		return reason
	case f.ByLength && f.SlotTokens > 0:
		slots := locale.T(lang, "slots_n", n(f.Slots))
		if f.Slots == 1 {
			slots = locale.T(lang, "slots_one")
		}
		if f.Prompt > 0 {
			return locale.T(lang, "reason_over_slot_prompt", n(f.Prompt), n(f.PerRequest), n(f.SlotTokens), slots, n(f.SlotTokens))
		}
		return locale.T(lang, "reason_over_slot", n(f.PerRequest), n(f.SlotTokens), slots, n(f.SlotTokens))
	case f.ByLength && f.Prompt > 0:
		return locale.T(lang, "reason_over_length_prompt", n(f.Prompt), n(f.PerRequest), n(f.MaxModelLen))
	case f.ByLength:
		return locale.T(lang, "reason_over_length", FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.MaxModelLen)))
	case f.PerSlot:
		return locale.T(lang, "reason_over_kv_slots", n(f.Concurrency), n(f.PerRequest), n(f.Need), n(f.KVCache))
	case f.Concurrency == 1:
		return locale.T(lang, "reason_over_kv_one", FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.KVCache)))
	}
	return locale.T(lang, "reason_over_kv", FormatInt(lang, int(f.Concurrency)), FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.Need)), FormatInt(lang, int(f.KVCache)))
}

// NoteText is a run note in lang.
func NoteText(note, lang string) string {
	n, ok := rundoc.ParseRepeatNote(note)
	if !ok {
		return note
	}
	s := locale.T(lang, "note_repeat", strconv.Itoa(n.Repeats))
	if len(n.Unstable) > 0 {
		sep := ", "
		if locale.Norm(lang) == "ja" {
			sep = "、"
		}
		s += locale.T(lang, "note_repeat_unstable", strings.Join(n.Unstable, sep))
	}
	return s
}
