//go:build !unix

package clientbench

import "time"

// processCPU is not measured on this platform: the benchmark needs getrusage.
func processCPU() time.Duration { return 0 }
