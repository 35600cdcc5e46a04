//go:build !linux

package clientbench

import "os/exec"

// startPinned cannot pin here: the processes share every CPU.
func startPinned(cmd *exec.Cmd, _ []int) error { return cmd.Start() }

const canPin = false
