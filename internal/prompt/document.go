package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Document is real text used as the prompt filler in place of random common words.
// Speculative decoding drafts well on real text and badly on random words, so a
// matrix measured on a document shows what drafting gains on what users send. The
// text is taken from its start, word by word, and read again from the start when a
// context is longer than it.
type Document struct {
	// Name is the text's source as a run document names it (the file's base name).
	Name  string
	words []string
	// lineBreak[i] says a line break, not a space, comes before word i: the text
	// keeps its lines (code, verse, lists) while its spacing is normalized.
	lineBreak []bool
}

// ParseDocument makes a document of text, named name.
func ParseDocument(name, text string) (*Document, error) {
	d := &Document{Name: name}
	for i, line := range strings.Split(text, "\n") {
		for j, w := range strings.Fields(line) {
			d.words = append(d.words, w)
			d.lineBreak = append(d.lineBreak, i > 0 && j == 0 && len(d.words) > 1)
		}
	}
	if len(d.words) < 16 {
		return nil, fmt.Errorf("prompt text %s: %d words, too few to fill a prompt (16 at least)", name, len(d.words))
	}
	return d, nil
}

// LoadDocument reads a text file as a document.
func LoadDocument(path string) (*Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading prompt text: %w", err)
	}
	return ParseDocument(filepath.Base(path), string(b))
}

// Words is how many words the document has.
func (d *Document) Words() int { return len(d.words) }

// text returns the document's first n words, from the start again (after a blank
// line) when n is more than it has.
func (d *Document) text(n int) string {
	var sb strings.Builder
	sb.Grow(n * 7)
	for i := 0; i < n; i++ {
		k := i % len(d.words)
		switch {
		case i == 0:
		case k == 0:
			sb.WriteString("\n\n")
		case d.lineBreak[k]:
			sb.WriteByte('\n')
		default:
			sb.WriteByte(' ')
		}
		sb.WriteString(d.words[k])
	}
	return sb.String()
}

// RandomWords is the source of prompts made of the seeded random common words (a
// document's is "text:NAME").
const RandomWords = "random-words"

// Source names what the builder's prompts are made of, for the run document.
func (b *Builder) Source() string {
	if b.Document != nil {
		return "text:" + b.Document.Name
	}
	return RandomWords
}
