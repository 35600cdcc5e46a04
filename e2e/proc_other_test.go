//go:build !unix

package e2e

import "os/exec"

func ownProcessGroup(cmd *exec.Cmd) {}

func stopGroup(cmd *exec.Cmd, kill bool) { _ = cmd.Process.Kill() }
