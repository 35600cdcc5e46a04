//go:build unix

package engine

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the shell and everything it starts in a new process group,
// so that stopping the server also stops the children (python workers, docker CLI).
func setProcessGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func terminate(c *exec.Cmd) {
	if c.Process != nil {
		syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	}
}

func kill(c *exec.Cmd) {
	if c.Process != nil {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
