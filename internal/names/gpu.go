package names

import (
	"regexp"
	"strconv"
	"strings"
)

// memorySuffix is a GPU's memory written after its name, as sites, shops and tools
// label a card: "RTX 4090 24 GB", "H100 80GB", "A100-SXM4-80GB", "H100 80GB HBM3",
// "RTX 3090 24GB GDDR6X".
var memorySuffix = regexp.MustCompile(`(?i)[\s_-]*([0-9]+(?:\.[0-9]+)?)\s*gi?b(?:[\s_-]*(?:hbm[0-9]e?|gddr[0-9]x?|vram))?\s*$`)

// GPUMemory splits a GPU's name from the memory size written after it ("RTX 4090 24
// GB" is "RTX 4090" with 24 GB), so that a catalog can look the name up and check the
// size against its own. ok is false when the name ends in no size, or is only one.
func GPUMemory(name string) (base string, gb float64, ok bool) {
	name = strings.TrimSpace(name)
	m := memorySuffix.FindStringSubmatchIndex(name)
	if m == nil || m[0] == 0 {
		return name, 0, false
	}
	gb, err := strconv.ParseFloat(name[m[2]:m[3]], 64)
	if err != nil || gb <= 0 {
		return name, 0, false
	}
	return strings.TrimSpace(name[:m[0]]), gb, true
}
