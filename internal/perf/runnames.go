package perf

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/internal/names"
)

// The catalog's names for what a run's document says it ran on and in: the site
// stores and groups runs by them, so that one GPU or one weight format is one row of
// its pages however tools print it.

// GPUName is the catalog's name for a GPU as a tool printed it ("NVIDIA GeForce RTX
// 4090" from nvidia-smi is "RTX 4090", "NVIDIA H100 80GB HBM3" is "H100 SXM"), or the
// name as given, trimmed, where the catalog does not hold it or the name stops short
// of saying which of several it is: "H100" begins both "H100 SXM" and "H100 PCIe", and
// the calculator's reading of it as the SXM part is a default, not a fact about a run.
func (c *Catalog) GPUName(name string) string {
	g, via, err := c.gpuKey(name)
	if err != nil || prefixOfAnother(c.GPUs, gpuKeys, g.ID, normalizeName(via)) {
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

// QuantName is the catalog's name for a weight format as a run or a tool labels it
// ("Q4_K_M", Ollama's, and "GGUF Q4_K_M" are GGUF Q4_K_M; "AWQ", "awq" and "AWQ INT4
// g128" are AWQ INT4 g128), or the label as given, trimmed, where the catalog does not
// hold it, where the label stops short of saying which of several it is ("int8" is
// W8A8 or W8A16, "q4" Q4_0 or Q4_K_M, "gptq" 4 or 8 bits), or where it names no
// format ("auto": the model's own dtype).
func (c *Catalog) QuantName(label string) string {
	q, via, err := lookupKey("quant", label, c.Quants, quantKeys)
	if err != nil || normalizeName(label) == "auto" || prefixOfAnother(c.Quants, quantKeys, q.ID, normalizeName(via)) {
		return strings.TrimSpace(label)
	}
	return q.Name
}

func quantKeys(q Quant) (string, []string) { return q.ID, append([]string{q.Name}, q.Aliases...) }

// prefixOfAnother says whether key, normalized, begins a key of a catalog entry other
// than the one whose id is own.
func prefixOfAnother[T any](items []T, keys func(T) (string, []string), own, key string) bool {
	for _, it := range items {
		id, aliases := keys(it)
		if id == own {
			continue
		}
		for _, k := range append(aliases, id) {
			if n := normalizeName(k); n != key && strings.HasPrefix(n, key) {
				return true
			}
		}
	}
	return false
}
