//go:build !linux

package zerostream

import (
	"runtime"
	"time"
)

func lockThread() { runtime.LockOSThread() }

// threadCPU is not measured off Linux: WriterCPU then reports zero.
func threadCPU() time.Duration { return 0 }
