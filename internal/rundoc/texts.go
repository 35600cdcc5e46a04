package rundoc

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Some of a document's reasons and notes are written by llmbench itself from a few
// numbers: an over-capacity cell's reason (Fit) and a --repeat run's note. They are
// stored as the English sentences below; a page in another language reads the
// numbers back (ParseFitReason, ParseRepeatNote) and writes the sentence in its own.
// Writing and reading live here together, so that the two cannot drift apart.

// FitReason is what an over-capacity reason says. With ByLength, a request of
// PerRequest tokens (context + max output) is longer than MaxModelLen, or than one
// slot of SlotTokens where the server runs Slots of them (llama-server -np); otherwise
// Concurrency requests of PerRequest tokens need Need tokens of KV cache, more than
// KVCache — PerSlot: the requests one per slot, the others waiting for one. Prompt is
// the prompt's tokens where they are more than the context (the chat template and the
// request's tail at context 0), 0 otherwise.
type FitReason struct {
	ByLength                   bool
	Concurrency, PerRequest    int64
	Need, KVCache, MaxModelLen int64
	Prompt                     int64
	SlotTokens, Slots          int64
	PerSlot                    bool
}

// String is the reason as Fit and Limits.Check write it into a document.
func (f FitReason) String() string {
	what := "context + max output"
	if f.Prompt > 0 {
		what = fmt.Sprintf("the prompt (%d tokens with the chat template) + max output", f.Prompt)
	}
	switch {
	case f.ByLength && f.SlotTokens > 0:
		slots := fmt.Sprintf("%d slots", f.Slots)
		if f.Slots == 1 {
			slots = "1 slot"
		}
		return fmt.Sprintf("%s = %d tokens exceeds one slot's context of %d tokens (the server runs %s of %d)", what, f.PerRequest, f.SlotTokens, slots, f.SlotTokens)
	case f.ByLength:
		return fmt.Sprintf("%s = %d tokens exceeds max_model_len %d", what, f.PerRequest, f.MaxModelLen)
	case f.PerSlot:
		return fmt.Sprintf("%d requests at once (one per slot) × %d tokens = %d exceeds the KV cache (%d tokens)", f.Concurrency, f.PerRequest, f.Need, f.KVCache)
	}
	return fmt.Sprintf("%d requests × %d tokens = %d exceeds the KV cache (%d tokens)", f.Concurrency, f.PerRequest, f.Need, f.KVCache)
}

const fitWhat = `^(?:context \+ max output|the prompt \((\d+) tokens with the chat template\) \+ max output) = (\d+) tokens `

var (
	fitByLength = regexp.MustCompile(fitWhat + `exceeds max_model_len (\d+)$`)
	fitBySlot   = regexp.MustCompile(fitWhat + `exceeds one slot's context of (\d+) tokens \(the server runs (\d+) slots? of (\d+)\)$`)
	fitByKV     = regexp.MustCompile(`^(\d+) requests?( at once \(one per slot\))? × (\d+) tokens = (\d+) exceeds the KV cache \((\d+) tokens\)$`)
)

// ParseFitReason reads an over-capacity reason that Fit or Limits.Check wrote; ok is
// false for any other text (a document written by another tool, or by hand).
func ParseFitReason(s string) (f FitReason, ok bool) {
	if m := fitByLength.FindStringSubmatch(s); m != nil {
		if n, ok := atoi64s(withZero(m[1:])); ok {
			return FitReason{ByLength: true, Prompt: n[0], PerRequest: n[1], MaxModelLen: n[2]}, true
		}
	}
	if m := fitBySlot.FindStringSubmatch(s); m != nil && m[3] == m[5] {
		if n, ok := atoi64s(withZero(m[1:5])); ok {
			return FitReason{ByLength: true, Prompt: n[0], PerRequest: n[1], SlotTokens: n[2], Slots: n[3]}, true
		}
	}
	if m := fitByKV.FindStringSubmatch(s); m != nil {
		if n, ok := atoi64s([]string{m[1], m[3], m[4], m[5]}); ok {
			return FitReason{Concurrency: n[0], PerRequest: n[1], Need: n[2], KVCache: n[3], PerSlot: m[2] != ""}, true
		}
	}
	return FitReason{}, false
}

// withZero reads an absent optional number as 0.
func withZero(ss []string) []string {
	out := slices.Clone(ss)
	for i, s := range out {
		if s == "" {
			out[i] = "0"
		}
	}
	return out
}

func atoi64s(ss []string) ([]int64, bool) {
	out := make([]int64, len(ss))
	for i, s := range ss {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// RepeatNote is the note a run measured with --repeat carries: how many times the
// plan ran, and the cells whose repeats disagree beyond their intervals ("16K × 4").
type RepeatNote struct {
	Repeats  int
	Unstable []string
}

const (
	repeatNoteLead     = "Every cell and prefill row was measured "
	repeatNoteBody     = " times, the plan run whole once per repeat: each shows its median repeat, with the 95% interval over the repeats."
	repeatNoteUnstable = " Unstable (repeats disagree beyond their intervals): "
)

// String is the note as a --repeat run writes it into its document.
func (n RepeatNote) String() string {
	s := repeatNoteLead + strconv.Itoa(n.Repeats) + repeatNoteBody
	if len(n.Unstable) > 0 {
		s += repeatNoteUnstable + strings.Join(n.Unstable, ", ") + "."
	}
	return s
}

// IsRepeatNote says whether a note is a --repeat run's (which a resumed run replaces).
func IsRepeatNote(s string) bool { return strings.HasPrefix(s, repeatNoteLead) }

// ParseRepeatNote reads a note that RepeatNote.String wrote; ok is false for any
// other text.
func ParseRepeatNote(s string) (n RepeatNote, ok bool) {
	rest, found := strings.CutPrefix(s, repeatNoteLead)
	if !found {
		return RepeatNote{}, false
	}
	count, rest, found := strings.Cut(rest, repeatNoteBody)
	var err error
	if n.Repeats, err = strconv.Atoi(count); !found || err != nil {
		return RepeatNote{}, false
	}
	if rest == "" {
		return n, true
	}
	list, found := strings.CutPrefix(rest, repeatNoteUnstable)
	if !found || !strings.HasSuffix(list, ".") {
		return RepeatNote{}, false
	}
	n.Unstable = strings.Split(strings.TrimSuffix(list, "."), ", ")
	return n, !slices.Contains(n.Unstable, "")
}
