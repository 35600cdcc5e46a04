// Package sysutil owns what llmbench asks of the operating system for a large run:
// enough file descriptors for every stream.
package sysutil

import "fmt"

// FileLimit says what the soft RLIMIT_NOFILE was and became, and whether it covers what
// a run needs.
type FileLimit struct {
	Need   uint64 // descriptors the run needs
	Before uint64 // the soft limit found
	Soft   uint64 // the soft limit now
	Hard   uint64 // the hard limit (the most an unprivileged process may raise to)
	Raised bool   // Soft was raised by RaiseFileLimit
	// Supported is false where the limit cannot be read (then nothing was changed).
	Supported bool
}

// Enough reports whether the soft limit covers the need.
func (l FileLimit) Enough() bool { return !l.Supported || l.Soft >= l.Need }

// String says what happened, for a warning or a debug log.
func (l FileLimit) String() string {
	switch {
	case !l.Supported:
		return "the open-file limit cannot be read on this platform"
	case l.Soft < l.Need:
		return fmt.Sprintf("the run needs about %d open files but the limit is %d (hard limit %d): raise it (ulimit -n, or LimitNOFILE= for a service) or run fewer streams", l.Need, l.Soft, l.Hard)
	case l.Raised:
		return fmt.Sprintf("raised the open-file limit from %d to %d for %d needed", l.Before, l.Soft, l.Need)
	}
	return fmt.Sprintf("the open-file limit %d covers the %d needed", l.Soft, l.Need)
}

// FilesForStreams is how many descriptors a run of this many concurrent streams needs:
// one connection per stream, two when the server is in this process too (the built-in
// emulator), plus room for the run's own files, discovery and metrics connections.
func FilesForStreams(streams int, serverInProcess bool) uint64 {
	perStream := uint64(1)
	if serverInProcess {
		perStream = 2
	}
	return uint64(max(streams, 0))*perStream + 256
}
