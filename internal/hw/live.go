package hw

import (
	"context"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"
)

// liveFallback fills, on a live system, what the root tree could not tell: macOS and
// Windows have no /proc or /etc/os-release, and gopsutil asks their own interfaces.
// Tests pass a fixture root and never get here.
func liveFallback(ctx context.Context, h *rundoc.Hardware) {
	if h.CPU == nil {
		if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
			c := &rundoc.CPU{Model: strings.TrimSpace(infos[0].ModelName)}
			if n, err := cpu.CountsWithContext(ctx, true); err == nil {
				c.Cores = n
			}
			if c.Model != "" || c.Cores > 0 {
				h.CPU = c
			}
		}
	}
	if h.RAMBytes == 0 {
		if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
			h.RAMBytes = int64(vm.Total)
		}
	}
	if h.OS == "" || h.Kernel == "" {
		if hi, err := host.InfoWithContext(ctx); err == nil {
			if h.OS == "" {
				h.OS = strings.TrimSpace(hi.Platform + " " + hi.PlatformVersion)
			}
			if h.Kernel == "" {
				h.Kernel = hi.KernelVersion
			}
		}
	}
}
