//go:build !unix

package bench

import "time"

// cpuTime is not measured on this platform; the client-limit check is then skipped.
func cpuTime() time.Duration { return 0 }
