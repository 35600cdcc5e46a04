//go:build !unix

package sysutil

// RaiseFileLimit does nothing where there is no RLIMIT_NOFILE (Windows' handle limit is
// far above what a run needs).
func RaiseFileLimit(need uint64) (FileLimit, error) {
	return FileLimit{Need: need}, nil
}
