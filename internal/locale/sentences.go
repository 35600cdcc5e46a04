package locale

import (
	"regexp"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Some of a run document's text is written by llmbench itself, in English, as one of
// a few sentences with its parts. A report or a page in another language says the
// sentences it knows in its own, parts kept; one it does not know (a later release's,
// a submitter's own) stays as written.

// SentenceIn is a sentence llmbench wrote from a few parts (rundoc.Sentences: energy
// and open-loop reasons, price notes, why an SLO cannot be read) in lang, its parts as
// written — each said in lang itself where it is such a sentence (an SLO's wrapped
// error); any other text as it is.
func SentenceIn(lang, s string) string {
	if Norm(lang) == EN {
		return s
	}
	sen, parts, ok := rundoc.ReadSentence(s)
	if !ok {
		return s
	}
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = SentenceIn(lang, p)
	}
	return T(lang, sen.Key, args...)
}

// docSentence is one of the table's doc_* texts read back: its English as a pattern
// whose groups are the parts that vary.
type docSentence struct {
	key string
	re  *regexp.Regexp
}

// docSentences are the sentences the site says in a page's language beyond
// rundoc.Sentences: a rate cell's saturation evidence (bench.saturationEvidence), why
// a prediction has no telemetry and how its energy was estimated (perf.EstimateEnergy),
// their English exactly as llmbench writes them (doc_* in translations/en.json).
var docSentences = sync.OnceValue(func() []docSentence {
	var out []docSentence
	for key, en := range catalogue()[EN] {
		if strings.HasPrefix(key, "doc_") {
			out = append(out, docSentence{key, rundoc.SentencePattern(en)})
		}
	}
	return out
})

// DocText is a sentence of a run document in lang: one of the doc_* sentences, or one
// that SentenceIn says in lang.
func DocText(lang, s string) string {
	if Norm(lang) == EN {
		return s
	}
	for _, d := range docSentences() {
		if m := d.re.FindStringSubmatch(s); m != nil {
			args := make([]any, len(m)-1)
			for i, a := range m[1:] {
				args[i] = a
			}
			return T(lang, d.key, args...)
		}
	}
	return SentenceIn(lang, s)
}

// DocTexts is DocText of each of ss: ss itself in English.
func DocTexts(lang string, ss []string) []string {
	if Norm(lang) == EN || len(ss) == 0 {
		return ss
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = DocText(lang, s)
	}
	return out
}
