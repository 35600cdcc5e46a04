package hw

import (
	"context"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestLiveFallback: on the machine the tests run on, gopsutil tells CPU, RAM and OS, as
// it does on macOS and Windows where the root tree has nothing to read.
func TestLiveFallback(t *testing.T) {
	var h rundoc.Hardware
	liveFallback(context.Background(), &h)
	if h.CPU == nil || h.CPU.Cores == 0 {
		t.Errorf("no CPU from gopsutil: %+v", h.CPU)
	}
	if h.RAMBytes <= 0 || h.OS == "" {
		t.Errorf("RAM %d, OS %q from gopsutil", h.RAMBytes, h.OS)
	}
	// Fields already known are kept.
	h = rundoc.Hardware{OS: "Given OS", RAMBytes: 42}
	liveFallback(context.Background(), &h)
	if h.OS != "Given OS" || h.RAMBytes != 42 {
		t.Errorf("liveFallback overwrote known fields: %+v", h)
	}
}
