//go:build !linux

package e2e

import "os/exec"

// Elsewhere the server is stopped on its own; Ollama stops its runner when it exits.
func ownProcessGroup(cmd *exec.Cmd) {}

func stopGroup(cmd *exec.Cmd, kill bool) { _ = cmd.Process.Kill() }
