package hw

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestWriteTextGroupsGPUs: a GPU group is one line with its count and memory; what
// was not found is "unknown".
func TestWriteTextGroupsGPUs(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "NVIDIA GeForce RTX 3090", Count: 2, VRAMBytes: 24 << 30}}})
	out := b.String()
	for _, want := range []string{"gpu:     2× NVIDIA GeForce RTX 3090, 24.0 GiB\n", "cpu:     unknown\n", "ram:     unknown\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
