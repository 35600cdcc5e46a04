//go:build race

package sim

// raceEnabled slows timing tests down: the race detector makes every token several
// times more expensive to serve, and a rate test must not measure the CPU.
const raceEnabled = true
