package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// The seed page's plan as the flags' defaults of run and calc: one source,
// rundoc.SeedConfig, which the performance model's matrix reads too.
var (
	seedPlan           = rundoc.SeedConfig()
	defaultContexts    = rundoc.FormatTokenList(seedPlan.Contexts)
	defaultConcurrency = intList(seedPlan.Concurrency)
	defaultPrefill     = rundoc.FormatTokenList(seedPlan.PrefillContexts)
	defaultDuration    = time.Duration(seedPlan.DurationS * float64(time.Second))
)

func intList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}
