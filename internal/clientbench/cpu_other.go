//go:build !unix

package clientbench

import "time"

// processCPU is not measured on this platform: the benchmark needs getrusage.
func processCPU() time.Duration { return 0 }

// maxRSSMiB is not measured on this platform.
func maxRSSMiB() float64 { return 0 }
