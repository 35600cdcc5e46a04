//go:build !race

package openloop

const raceEnabled = false
