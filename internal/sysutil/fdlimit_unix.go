//go:build unix

package sysutil

import (
	"fmt"
	"syscall"
)

// RaiseFileLimit raises the soft RLIMIT_NOFILE to need, as far as the hard limit
// allows (Go raises it to the hard limit at start-up on some systems already; this
// makes sure, and says when even the hard limit is too low). It never lowers it and
// never touches the hard limit.
func RaiseFileLimit(need uint64) (FileLimit, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return FileLimit{Need: need}, fmt.Errorf("reading the open-file limit: %w", err)
	}
	l := FileLimit{Need: need, Before: uint64(rl.Cur), Soft: uint64(rl.Cur), Hard: uint64(rl.Max), Supported: true}
	if l.Soft >= need {
		return l, nil
	}
	want := min(need, l.Hard)
	if want <= l.Soft {
		return l, nil
	}
	rl.Cur = want
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return l, fmt.Errorf("raising the open-file limit to %d: %w", want, err)
	}
	l.Soft, l.Raised = want, true
	return l, nil
}
