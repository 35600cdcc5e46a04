package perf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/names"
)

// ModelMatch is the catalog model a name means, and how it was read.
type ModelMatch struct {
	Model Model
	// Via is the catalog key that matched: the model's id, name, Hugging Face id or
	// one of its aliases.
	Via string
	// StandIn says Via is an alias for a model the catalog does not hold (llama-3-8b,
	// predicted as Llama 3.1 8B), not a spelling of this one: a prediction must say so.
	StandIn bool
	// Quant is the weight format the name states, as it writes it (names.Quant: "awq"
	// of Qwen/Qwen3-32B-AWQ, "q4_k_m" of an Ollama tag); else the one it means
	// without stating it (names.ImpliedQuant: Ollama's Q4_K_M for "qwen3:32b"), and
	// then Implied is true; "" where it neither states nor means one.
	Quant   string
	Implied bool
}

// ResolveModel finds the catalog model a name means, in the forms tools print it: the
// catalog's id, name, Hugging Face id or an alias as written; otherwise the name's
// family (names.Family: the publisher, Ollama's name:tag, a GGUF file name and the
// format words folded away), so that "qwen3:32b-q4_K_M", "Qwen/Qwen3-32B-AWQ" and
// "Qwen3-32B-Q4_K_M.gguf" are Qwen3 32B. A name that is neither is a NotFoundError
// with the closest ids.
func (c *Catalog) ResolveModel(name string) (ModelMatch, error) {
	m, via, err := c.modelKey(name)
	if err != nil {
		var nf *NotFoundError
		family, _ := names.Family(name)
		if !errors.As(err, &nf) || family == "" {
			return ModelMatch{}, err
		}
		var ferr error
		if m, via, ferr = c.modelKey(family); ferr != nil {
			return ModelMatch{}, err // the suggestions for the name as given
		}
	}
	mm := ModelMatch{Model: m, Via: via, StandIn: isStandIn(m, via), Quant: names.Quant(name)}
	if mm.Quant == "" {
		mm.Quant = names.ImpliedQuant(name)
		mm.Implied = mm.Quant != ""
	}
	return mm, nil
}

func (c *Catalog) modelKey(name string) (Model, string, error) {
	return lookupKey("model", name, c.Models, func(m Model) (string, []string) {
		return m.ID, append([]string{m.Name, m.HFID}, m.Aliases...)
	})
}

// isStandIn says an alias names another model than m: its family differs from that
// of m's id, name and Hugging Face id ("llama-3-8b" for Llama 3.1 8B, "qwen2-7b" for
// Qwen2.5 7B), where a mere spelling ("meta-llama-3.1-8b", "qwen2.5-7b-instruct")
// folds to the same one.
func isStandIn(m Model, via string) bool {
	fv, _ := names.Family(via)
	for _, own := range []string{m.ID, m.Name, m.HFID} {
		if own == "" {
			continue
		}
		if f, _ := names.Family(own); normalizeName(f) == normalizeName(fv) {
			return false
		}
	}
	return true
}

// Note is what a reader of a prediction should know about how name was read: a
// stand-in model, or a weight format taken from the name. Empty when the name is the
// model's own.
func (mm ModelMatch) Note(name string, q *Quant) string {
	var parts []string
	if mm.StandIn {
		parts = append(parts, fmt.Sprintf("%q is not in the catalog: predicted as %s, which the catalog gives for %q", name, mm.Model.Name, mm.Via))
	} else if normalizeName(name) != normalizeName(mm.Via) {
		parts = append(parts, fmt.Sprintf("%q read as %s", name, mm.Model.Name))
	}
	switch {
	case q != nil && mm.Implied:
		parts = append(parts, fmt.Sprintf("weights %s, Ollama's format for a tag that names none", q.Name))
	case q != nil:
		parts = append(parts, fmt.Sprintf("weights %s, from the name", q.Name))
	}
	return strings.Join(parts, "; ")
}

// ResolveQuant is the catalog's weight format for the one a model name states, and
// whether it holds one: "awq" is AWQ INT4 g128, "q4_k_m" GGUF Q4_K_M; "4bit" (MLX,
// bitsandbytes) is none it models.
func (c *Catalog) ResolveQuant(mm ModelMatch) (Quant, bool) {
	if mm.Quant == "" {
		return Quant{}, false
	}
	q, err := c.Quant(mm.Quant)
	return q, err == nil
}
