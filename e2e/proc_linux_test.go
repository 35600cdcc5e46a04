//go:build linux

package e2e

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in a process group of its own, so that the engine
// processes it starts (Ollama's runner) can be stopped with it, and has the kernel stop
// it if this test process dies first (a test binary killed by -timeout runs no cleanup).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// stopGroup asks the server to shut down (it stops its runners itself); kill ends the
// whole group at once when it did not.
func stopGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
