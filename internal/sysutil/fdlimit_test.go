//go:build unix

package sysutil

import (
	"syscall"
	"testing"
)

// The test lowers its own soft limit, asks for more, and checks it was raised back as
// far as asked (never above the hard limit), then puts the limit back.
func TestRaiseFileLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	if orig.Max < 600 {
		t.Skipf("hard limit %d is too low to test with", orig.Max)
	}
	low := orig
	low.Cur = 512
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	l, err := RaiseFileLimit(600)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Raised || l.Before != 512 || l.Soft != 600 || !l.Enough() {
		t.Errorf("got %+v, want raised from 512 to 600", l)
	}
	var now syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now)
	if now.Cur != 600 {
		t.Errorf("the soft limit is %d, want 600", now.Cur)
	}

	// Asking for less than there is changes nothing.
	if l, _ := RaiseFileLimit(100); l.Raised || l.Soft != 600 {
		t.Errorf("asking for less: %+v", l)
	}

	// Asking past the hard limit raises to the hard limit and says it is not enough.
	l, err = RaiseFileLimit(uint64(orig.Max) + 1)
	if err != nil {
		t.Fatal(err)
	}
	if l.Soft != uint64(orig.Max) || l.Enough() {
		t.Errorf("asking past the hard limit: %+v", l)
	}
	if l.String() == "" {
		t.Error("no explanation")
	}
}

func TestFilesForStreams(t *testing.T) {
	if got := FilesForStreams(4096, false); got != 4096+256 {
		t.Errorf("4096 remote streams: %d", got)
	}
	if got := FilesForStreams(4096, true); got != 8192+256 {
		t.Errorf("4096 in-process streams: %d", got)
	}
}
