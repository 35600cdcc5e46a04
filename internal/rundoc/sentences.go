package rundoc

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Besides the over-capacity reasons and the --repeat note (texts.go), llmbench
// writes other sentences into documents and errors in English from a few parts: why a
// window has no energy figure, why an open-loop cell's latencies are the client's, a
// price's notes, why a latency target cannot be read. Each is a Sentence here: the
// writer fills its parts (Write), a page or a report in another language reads them
// back (ReadSentence) and says the sentence in its own by the sentence's Key (the
// report package holds the translations), parts kept as written. Writing and reading
// one pattern, they cannot drift apart.

// Sentence is one of those sentences: its English with %s for each part.
type Sentence struct {
	Key     string
	English string
	re      *regexp.Regexp
}

// sentences are every Sentence, in the order ReadSentence tries them: a sentence that
// another's pattern would also take comes before it (the SLO sentences before
// SLOValue's "SLO %s: %s"), and one whose pattern would take another whole comes after
// it (MillisNotDuration's "%s is not a duration", which SLOValue wraps).
var sentences []*Sentence

func sentence(key, english string) *Sentence {
	s := &Sentence{Key: key, English: english, re: SentencePattern(english)}
	sentences = append(sentences, s)
	return s
}

// SentencePattern reads a sentence written from english, a format with %s for each
// part: the whole text, each part a group.
func SentencePattern(english string) *regexp.Regexp {
	var pat strings.Builder
	pat.WriteString("^")
	for i, part := range strings.Split(english, "%s") {
		if i > 0 {
			pat.WriteString("(.+?)")
		}
		pat.WriteString(regexp.QuoteMeta(part))
	}
	pat.WriteString("$")
	return regexp.MustCompile(pat.String())
}

// Write is the sentence with its parts, in order.
func (s *Sentence) Write(parts ...string) string {
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = p
	}
	return fmt.Sprintf(s.English, args...)
}

// Error is Write as an error.
func (s *Sentence) Error(parts ...string) error { return errors.New(s.Write(parts...)) }

// Sentences lists every sentence, for the reports' translations and their tests.
func Sentences() []*Sentence { return sentences }

// ReadSentence finds which sentence text is and its parts; ok is false for any other
// text (another tool's, a hand-written one).
func ReadSentence(text string) (s *Sentence, parts []string, ok bool) {
	for _, s := range sentences {
		if m := s.re.FindStringSubmatch(text); m != nil {
			return s, m[1:], true
		}
	}
	return nil, nil, false
}

// Why a measurement window has no energy figure (power.Score).
var (
	EnergyForeign   = sentence("sent_energy_foreign", "other compute processes used the GPU during this window (%s): their power would be counted as the server's")
	EnergyNoDevice  = sentence("sent_energy_no_device", "the telemetry source reported no device")
	EnergyNoLength  = sentence("sent_energy_no_length", "the window has no length")
	EnergyNoStart   = sentence("sent_energy_no_start", "device %s: no sample at or before the window's start")
	EnergyNoEnd     = sentence("sent_energy_no_end", "device %s: no sample at or after the window's end (the sampler stopped or lags)")
	EnergyGap       = sentence("sent_energy_gap", "device %s: %s s between two samples in the window (sampling every %s)")
	EnergyTooFew    = sentence("sent_energy_too_few", "too few samples: %s from device %s in a %s s window (sampling every %s; at least %s needed)")
	EnergyNoReading = sentence("sent_energy_no_reading", "device %s: no power reading in the window")
)

// Why an open-loop cell's latencies are partly the measuring client's (openloop).
var (
	RateClientLate = sentence("sent_rate_client_late", "the client sent %s of %s requests over %s late (median %s ms): the latencies are partly the client's")
	RateClientCPU  = sentence("sent_rate_client_cpu", "the measuring client used nearly all CPUs: the figures may be the client's limit")
)

// A catalog price's notes (perf.PriceEntry.RunPrice), joined by PriceNoteJoin in
// Price.Note.
var (
	PriceGPUs    = sentence("sent_price_gpus", "%s GPUs × $%s per GPU-hour")
	PriceUndated = sentence("sent_price_undated", "the page is undated: %s is when it was read")
)

// PriceNoteJoin joins a price's notes.
const PriceNoteJoin = "; "

// Why an SLO or a latency target cannot be read (ParseSLO, ParseMillis).
var (
	SLOTarget      = sentence("sent_slo_target", "SLO target %s: give a share of requests in (0, 1], e.g. 0.95")
	SLONotKeyValue = sentence("sent_slo_not_kv", "SLO %s: write name=duration, e.g. ttft=500ms")
	SLOUnknown     = sentence("sent_slo_unknown", "SLO %s: the targets are ttft, tpot and e2e")
	SLONone        = sentence("sent_slo_none", "SLO %s names no target (ttft, tpot, e2e)")
	// SLOValue wraps a target's own error (MillisNotDuration, MillisNotPositive).
	SLOValue          = sentence("sent_slo_value", "SLO %s: %s")
	MillisNotDuration = sentence("sent_millis_not_duration", "%s is not a duration (500ms, 2s)")
	MillisNotPositive = sentence("sent_millis_not_positive", "the target must be positive")
)
