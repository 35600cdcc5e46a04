package clientbench

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"
)

// startPinned starts cmd on the given CPUs (all of them when cpus is empty). The child
// inherits the affinity of the thread that forks it, so the fork happens on a thread
// locked and pinned for the purpose, which then exits with its goroutine (it is never
// unlocked, so no other goroutine runs on it). Go children size GOMAXPROCS from it.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var mask [16]uint64 // 1,024 CPUs
		for _, c := range cpus {
			if c < 0 || c >= 64*len(mask) {
				errc <- fmt.Errorf("CPU %d is out of range", c)
				return
			}
			mask[c/64] |= 1 << (c % 64)
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask))); e != 0 {
			errc <- fmt.Errorf("pinning to CPUs %v: %w", cpus, e)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

const canPin = true
