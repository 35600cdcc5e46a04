//go:build !unix

package engine

import "os/exec"

func setProcessGroup(c *exec.Cmd) {}

func terminate(c *exec.Cmd) {
	if c.Process != nil {
		c.Process.Kill()
	}
}

func kill(c *exec.Cmd) {
	if c.Process != nil {
		c.Process.Kill()
	}
}
