//go:build race

package openloop

// raceEnabled: the race detector slows the in-process test server 5-10×, so timing
// tests keep to what it can still serve on time.
const raceEnabled = true
