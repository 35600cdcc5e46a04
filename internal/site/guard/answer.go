package guard

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/site/wire"
)

// TooMany writes a 429 with Retry-After and a JSON error body.
func TooMany(w http.ResponseWriter, wait time.Duration, why string) {
	secs := RetryAfter(w, wait)
	wire.WriteError(w, http.StatusTooManyRequests, "", fmt.Sprintf("%s; try again in %d s", why, secs))
}

// RetryAfter sets Retry-After to wait, rounded up to whole seconds, and returns them.
func RetryAfter(w http.ResponseWriter, wait time.Duration) int {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return secs
}
