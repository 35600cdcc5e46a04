package measure

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// MachineTicks are the whole machine's CPU time counters (Linux /proc/stat, in clock
// ticks): busy and total. ok is false where they cannot be read.
type MachineTicks struct {
	busy, total uint64
	ok          bool
}

// ReadMachineTicks reads the aggregate "cpu" line of /proc/stat.
func ReadMachineTicks() MachineTicks {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return MachineTicks{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return MachineTicks{}
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return MachineTicks{}
	}
	var t MachineTicks
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return MachineTicks{}
		}
		if i >= 8 {
			break // guest time is already counted in user time
		}
		t.total += v
		if i != 3 && i != 4 { // idle, iowait
			t.busy += v
		}
	}
	t.ok = true
	return t
}

// BusySince is the share of the machine's CPU time that was busy between t and later.
func (t MachineTicks) BusySince(later MachineTicks) *float64 {
	if !t.ok || !later.ok || later.total <= t.total {
		return nil
	}
	share := float64(later.busy-t.busy) / float64(later.total-t.total)
	return &share
}
