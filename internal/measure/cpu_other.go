//go:build !unix

package measure

import "time"

// CPUTime is not measured on this platform; the client-limit check is then skipped.
func CPUTime() time.Duration { return 0 }
