package perf

import (
	"errors"
	"fmt"
	"math"
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

// GPUName is the catalog's name for a GPU as a tool printed it ("NVIDIA GeForce RTX
// 4090" from nvidia-smi is "RTX 4090", "NVIDIA H100 80GB HBM3" is "H100 SXM"), or the
// name as given, trimmed, where the catalog does not hold it or the name stops short
// of saying which of several it is: "H100" begins both "H100 SXM" and "H100 PCIe", and
// the calculator's reading of it as the SXM part is a default, not a fact about a run.
func (c *Catalog) GPUName(name string) string {
	g, via, err := c.gpuKey(name)
	if err != nil || c.gpuPrefixOfAnother(g, normalizeName(via)) {
		return strings.TrimSpace(name)
	}
	return g.Name
}

func gpuKeys(g GPU) (string, []string) { return g.ID, append([]string{g.Name}, g.Aliases...) }

// gpuKey finds the GPU a name means and the key that matched: as written, else with a
// memory size written after it ("RTX 4090 24 GB", as the site labels a run's GPU;
// "h100 80gb") read apart (names.GPUMemory) when the catalog's GPU of the rest has
// that memory. A size that is not the GPU's ("RTX 4090 48 GB") is another card: an
// error, not the catalog's.
func (c *Catalog) gpuKey(name string) (GPU, string, error) {
	g, via, err := lookupKey("gpu", name, c.GPUs, gpuKeys)
	var nf *NotFoundError
	if err == nil || !errors.As(err, &nf) {
		return g, via, err
	}
	base, gb, ok := names.GPUMemory(name)
	if !ok {
		return g, via, err
	}
	bg, bvia, berr := lookupKey("gpu", base, c.GPUs, gpuKeys)
	switch {
	case berr != nil:
		return g, via, err
	case math.Abs(bg.VRAMGiB-gb) > 0.05*bg.VRAMGiB:
		return GPU{}, "", fmt.Errorf("%q: the catalog's %s has %g GB, not %g; give a GPU it holds (see llmbench calc --list gpus) or one by its figures (--bandwidth, --tflops, --vram)", name, bg.Name, bg.VRAMGiB, gb)
	}
	return bg, bvia, nil
}

// gpuPrefixOfAnother says whether key, normalized, begins a key of a catalog GPU other
// than g.
func (c *Catalog) gpuPrefixOfAnother(g GPU, key string) bool {
	for _, o := range c.GPUs {
		if o.ID == g.ID {
			continue
		}
		id, aliases := gpuKeys(o)
		for _, k := range append(aliases, id) {
			if n := normalizeName(k); n != key && strings.HasPrefix(n, key) {
				return true
			}
		}
	}
	return false
}
