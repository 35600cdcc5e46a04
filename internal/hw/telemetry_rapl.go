package hw

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// CPU packages are metered from the powercap RAPL energy counters (energy_uj, read
// every interval, wrap-around handled).

// raplZone is one top-level powercap package domain.
type raplZone struct {
	index        int
	name         string
	energy       string // energy_uj
	maxRangeUJ   float64
	last, carryJ float64
	started      bool
}

// raplZones finds the package domains under root/sys/class/powercap: intel-rapl:N
// (sub-domains intel-rapl:N:M are parts of a package and would count twice; psys,
// where present, overlaps the packages too).
func raplZones(root string) ([]*raplZone, error) {
	dirs, _ := filepath.Glob(filepath.Join(root, "sys/class/powercap/intel-rapl:*"))
	sort.Strings(dirs)
	var zones []*raplZone
	var firstErr error
	for _, d := range dirs {
		if strings.Count(filepath.Base(d), ":") != 1 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "name"))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(b)), "package") {
			continue
		}
		z := &raplZone{index: len(zones), name: strings.TrimSpace(string(b)), energy: filepath.Join(d, "energy_uj")}
		if v, err := readNumber(filepath.Join(d, "max_energy_range_uj")); err == nil {
			z.maxRangeUJ = v
		}
		if _, err := readNumber(z.energy); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		zones = append(zones, z)
	}
	if len(zones) == 0 {
		if firstErr != nil {
			if errors.Is(firstErr, os.ErrPermission) {
				return nil, fmt.Errorf("rapl: %w (current kernels let only root read energy_uj; run as root, or meter the GPUs instead)", firstErr)
			}
			return nil, fmt.Errorf("rapl: %w", firstErr)
		}
		return nil, errors.New("rapl: no package domain under /sys/class/powercap")
	}
	return zones, nil
}

// read returns the zone's energy in joules since its first reading, across the
// counter's wrap at max_energy_range_uj.
func (z *raplZone) read() (float64, error) {
	uj, err := readNumber(z.energy)
	if err != nil {
		return 0, err
	}
	if z.started {
		d := uj - z.last
		if d < 0 { // the counter wrapped at max_energy_range_uj
			if z.maxRangeUJ > 0 {
				d += z.maxRangeUJ
			} else {
				d = uj // no range published: assume it restarted from 0
			}
		}
		z.carryJ += d / 1e6
	}
	z.started, z.last = true, uj
	return z.carryJ, nil
}

func startRAPL(ctx context.Context, o TelemetryOptions) (*Meter, error) {
	zones, err := raplZones(o.Root)
	if err != nil {
		return nil, err
	}
	var infos []rundoc.TelemetryDevice
	var idx []int
	var names []string
	for _, z := range zones {
		infos = append(infos, rundoc.TelemetryDevice{Index: z.index, Name: z.name})
		idx = append(idx, z.index)
		names = append(names, z.name)
	}
	what := "CPU package energy of " + strings.Join(names, ", ") + " from RAPL (powercap energy_uj). Memory (unless inside the package), GPUs and the power supply are not included."
	m := newMeter(SourceRAPL, o, infos, idx, what)
	m.run(ctx, raplLoop(m, zones, o.Interval))
	return m, nil
}

// raplLoop reads every zone each interval; power is each interval's energy over its
// length, placed at the interval's end like the counter.
func raplLoop(m *Meter, zones []*raplZone, interval time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		prevE := map[int]float64{}
		var prevAt time.Time
		for {
			now := time.Now()
			var ss []power.Sample
			for _, z := range zones {
				e, err := z.read()
				if err != nil {
					m.fail("reading " + z.energy + ": " + err.Error())
					continue
				}
				s := power.Sample{At: now, Device: z.index, EnergyJ: fptr(e)}
				if !prevAt.IsZero() {
					if dt := now.Sub(prevAt).Seconds(); dt > 0 {
						s.PowerW = fptr((e - prevE[z.index]) / dt)
					}
				}
				prevE[z.index] = e
				ss = append(ss, s)
			}
			prevAt = now
			m.add(ss...)
			if !clock.Sleep(ctx, interval) {
				return nil
			}
		}
	}
}
