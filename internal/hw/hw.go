// Package hw owns hardware detection and power telemetry. Detection: the GPUs (NVIDIA
// through nvidia-smi, AMD through sysfs, Apple through system_profiler), CPU, RAM, OS
// and kernel of the machine a server runs on, and hand-written hardware files for
// remote servers. Telemetry (telemetry.go): a Meter that samples the machine's power
// during a run (nvidia-smi, amdgpu sysfs or amd-smi, RAPL, powermetrics) and the agent
// that serves one over HTTP to a run on another machine. Readers take a root path (for
// /proc, /sys, /etc) and a CommandRunner, so tests feed fixture trees and recorded
// command outputs.
package hw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"gopkg.in/yaml.v3"
)

// CommandRunner runs a program and returns its standard output.
type CommandRunner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs real programs, each bounded to 20 s (nvidia-smi can hang on a
// GPU in a bad state).
type ExecRunner struct{}

// Run runs name with args and returns its standard output.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", name, err)
	}
	return out, nil
}

// NvidiaQuery is the nvidia-smi query Detect runs (and the file name of its
// recording in testdata).
var NvidiaQuery = []string{"--query-gpu=name,memory.total,driver_version,power.limit,pcie.link.gen.max,pcie.link.width.max", "--format=csv,noheader,nounits"}

// Detect describes this machine. root is "/" on a live system. What cannot be read
// is left empty; an error is returned only when nothing at all could be read.
func Detect(ctx context.Context, root string, run CommandRunner) (rundoc.Hardware, error) {
	var h rundoc.Hardware
	if out, err := run.Run(ctx, "nvidia-smi", NvidiaQuery...); err == nil {
		h.GPUs = append(h.GPUs, ParseNvidiaSMI(out)...)
	}
	h.GPUs = append(h.GPUs, amdSysfs(root)...)
	apple := false
	if len(h.GPUs) == 0 {
		if out, err := run.Run(ctx, "system_profiler", "SPDisplaysDataType", "SPHardwareDataType", "-json"); err == nil {
			if ah, ok := parseSystemProfiler(out); ok {
				h.GPUs, h.CPU, h.RAMBytes = ah.GPUs, ah.CPU, ah.RAMBytes
				apple = true
			}
		}
	}
	if h.CPU == nil {
		h.CPU = cpuInfo(root)
	}
	if h.RAMBytes == 0 {
		h.RAMBytes = memTotal(root)
	}
	h.OS = osRelease(root)
	if h.OS == "" && apple {
		h.OS = "macOS"
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/osrelease")); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if root == "/" {
		liveFallback(ctx, &h)
	}
	switch {
	case apple:
		h.Type = "apple_silicon"
	case len(h.GPUs) > 0:
		h.Type = "discrete_gpu"
	default:
		h.Type = "cpu"
	}
	if len(h.GPUs) == 0 && h.CPU == nil && h.RAMBytes == 0 && h.OS == "" {
		return h, errors.New("detecting hardware: no GPU tool answered and nothing under " + root + " could be read")
	}
	return h, nil
}

// ParseNvidiaSMI reads `nvidia-smi --query-gpu=name,memory.total,driver_version,
// power.limit,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader,nounits`
// and groups identical GPUs into one entry with a count.
func ParseNvidiaSMI(out []byte) []rundoc.GPU {
	var gpus []rundoc.GPU
	for _, rec := range csvRecords(out) {
		if len(rec) < 2 {
			continue
		}
		field := func(i int) string {
			if i >= len(rec) {
				return ""
			}
			v := rec[i]
			if strings.HasPrefix(v, "[") || v == "N/A" { // "[N/A]", "[Not Supported]"
				return ""
			}
			return v
		}
		if field(0) == "" {
			continue
		}
		g := rundoc.GPU{Name: field(0), Vendor: "nvidia", Count: 1, Driver: field(2)}
		if mib, err := strconv.ParseFloat(field(1), 64); err == nil {
			g.VRAMBytes = int64(mib * (1 << 20))
		}
		if w, err := strconv.ParseFloat(field(3), 64); err == nil {
			g.PowerLimitW = w
		}
		if gen, width := field(4), field(5); gen != "" && width != "" {
			g.PCIe = "Gen" + gen + " x" + width
		}
		gpus = append(gpus, g)
	}
	return group(gpus)
}

// csvRecords reads nvidia-smi's --format=csv,noheader output: records of any length,
// each field trimmed; nil when it is not CSV.
func csvRecords(out []byte) [][]string {
	r := csv.NewReader(bytes.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil
	}
	for _, rec := range recs {
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
	}
	return recs
}

// group merges identical GPUs, keeping first-seen order.
func group(gpus []rundoc.GPU) []rundoc.GPU {
	var out []rundoc.GPU
	for _, g := range gpus {
		merged := false
		for i := range out {
			o := out[i]
			if o.Name == g.Name && o.Vendor == g.Vendor && o.VRAMBytes == g.VRAMBytes && o.Driver == g.Driver && o.PowerLimitW == g.PowerLimitW && o.PCIe == g.PCIe {
				out[i].Count += g.Count
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, g)
		}
	}
	return out
}

// amdSysfs finds AMD GPUs (PCI vendor 0x1002) under root/sys/class/drm.
func amdSysfs(root string) []rundoc.GPU {
	var gpus []rundoc.GPU
	for _, d := range amdDevices(root) {
		g := rundoc.GPU{Vendor: "amd", Count: 1, VRAMBytes: d.vramBytes, Name: d.product}
		if g.Name == "" {
			g.Name = "AMD GPU " + d.id
		}
		gpus = append(gpus, g)
	}
	return group(gpus)
}

// amdDevice is one amdgpu-driven device under root/sys/class/drm.
type amdDevice struct {
	dir       string // its sysfs device directory
	id        string // the PCI device id ("0x744c")
	product   string // product_name; "" when the driver gives none
	vramBytes int64
}

// amdDevices lists the AMD GPUs (PCI vendor 0x1002 with VRAM) under root/sys/class/drm,
// each once, in card order: what Detect describes and the AMD meter reads.
func amdDevices(root string) []amdDevice {
	cards, _ := filepath.Glob(filepath.Join(root, "sys/class/drm/card*/device/vendor"))
	sort.Strings(cards)
	var devs []amdDevice
	seen := map[string]bool{}
	for _, vf := range cards {
		dev := filepath.Dir(vf)
		// card0-DP-1 connectors link to the same device as card0.
		if strings.Contains(filepath.Base(filepath.Dir(dev)), "-") {
			continue
		}
		b, err := os.ReadFile(vf)
		if err != nil || strings.TrimSpace(string(b)) != "0x1002" {
			continue
		}
		d := amdDevice{dir: dev}
		if b, err := os.ReadFile(filepath.Join(dev, "mem_info_vram_total")); err == nil {
			d.vramBytes, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		}
		if d.vramBytes == 0 {
			continue // not an amdgpu-driven device (e.g. an AMD audio function)
		}
		key := dev
		if real, err := filepath.EvalSymlinks(dev); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		if b, err := os.ReadFile(filepath.Join(dev, "device")); err == nil {
			d.id = strings.TrimSpace(string(b))
		}
		if b, err := os.ReadFile(filepath.Join(dev, "product_name")); err == nil {
			d.product = strings.TrimSpace(string(b))
		}
		devs = append(devs, d)
	}
	return devs
}

// parseSystemProfiler reads `system_profiler SPDisplaysDataType SPHardwareDataType
// -json` on a Mac.
func parseSystemProfiler(out []byte) (rundoc.Hardware, bool) {
	var sp struct {
		Displays []struct {
			Model  string `json:"sppci_model"`
			Cores  string `json:"sppci_cores"`
			Vendor string `json:"spdisplays_vendor"`
		} `json:"SPDisplaysDataType"`
		Hardware []struct {
			Chip       string `json:"chip_type"`
			CPUType    string `json:"cpu_type"`
			Processors string `json:"number_processors"`
			Memory     string `json:"physical_memory"`
		} `json:"SPHardwareDataType"`
	}
	if json.Unmarshal(out, &sp) != nil || (len(sp.Displays) == 0 && len(sp.Hardware) == 0) {
		return rundoc.Hardware{}, false
	}
	var h rundoc.Hardware
	if len(sp.Hardware) > 0 {
		hw := sp.Hardware[0]
		name := hw.Chip
		if name == "" {
			name = hw.CPUType
		}
		cpu := &rundoc.CPU{Model: name}
		// "proc 12:8:4" = 12 cores (8 performance, 4 efficiency).
		if f := strings.Fields(hw.Processors); len(f) > 0 {
			total, _, _ := strings.Cut(f[len(f)-1], ":")
			cpu.Cores, _ = strconv.Atoi(total)
		}
		h.CPU = cpu
		h.RAMBytes = parseSize(hw.Memory)
	}
	for _, d := range sp.Displays {
		if d.Model == "" {
			continue
		}
		g := rundoc.GPU{Name: d.Model, Vendor: "apple", Count: 1, VRAMBytes: h.RAMBytes}
		if c, err := strconv.Atoi(d.Cores); err == nil && c > 0 {
			g.Name = fmt.Sprintf("%s (%d-core GPU)", d.Model, c)
		}
		if !strings.Contains(strings.ToLower(d.Vendor), "apple") && d.Vendor != "" {
			g.Vendor = strings.ToLower(strings.TrimPrefix(d.Vendor, "sppci_vendor_"))
		}
		h.GPUs = append(h.GPUs, g)
	}
	return h, true
}

// parseSize reads "96 GB" / "16 GB" (system_profiler, binary gigabytes).
func parseSize(s string) int64 {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0
	}
	n, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	switch strings.ToUpper(f[1]) {
	case "TB":
		return int64(n * (1 << 40))
	case "GB":
		return int64(n * (1 << 30))
	case "MB":
		return int64(n * (1 << 20))
	}
	return 0
}

// cpuInfo reads the model name and logical CPU count from root/proc/cpuinfo.
func cpuInfo(root string) *rundoc.CPU {
	f, err := os.Open(filepath.Join(root, "proc/cpuinfo"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var c rundoc.CPU
	siblings := 0
	packages := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			c.Cores++
		case "model name", "Model", "cpu model":
			if c.Model == "" {
				c.Model = v
			}
		case "siblings":
			siblings, _ = strconv.Atoi(v)
		case "physical id":
			packages[v] = true
		}
	}
	// Cores counts logical CPUs (what nproc says). "siblings" is the logical count of
	// one package, so it also covers a cpuinfo read only in part.
	if n := siblings * max(len(packages), 1); n > c.Cores {
		c.Cores = n
	}
	if c.Model == "" && c.Cores == 0 {
		return nil
	}
	return &c
}

// memTotal reads MemTotal from root/proc/meminfo, in bytes.
func memTotal(root string) int64 {
	b, err := os.ReadFile(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// osRelease reads PRETTY_NAME from root/etc/os-release (or usr/lib/os-release).
func osRelease(root string) string {
	for _, p := range []string{"etc/os-release", "usr/lib/os-release"} {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				return strings.Trim(strings.TrimSpace(v), `"'`)
			}
		}
	}
	return ""
}

// ReadHardwareFile reads a hand-written hardware description (YAML or JSON, with
// the run document's field names) for a server llmbench cannot inspect.
func ReadHardwareFile(path string) (rundoc.Hardware, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return rundoc.Hardware{}, fmt.Errorf("reading hardware file: %w", err)
	}
	var generic any
	if err := yaml.Unmarshal(b, &generic); err != nil { // YAML is a superset of JSON
		return rundoc.Hardware{}, fmt.Errorf("parsing hardware file %s: %w", path, err)
	}
	j, err := json.Marshal(generic)
	if err != nil {
		return rundoc.Hardware{}, fmt.Errorf("parsing hardware file %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	var h rundoc.Hardware
	if err := dec.Decode(&h); err != nil {
		return rundoc.Hardware{}, fmt.Errorf("hardware file %s: %w (fields: type, gpus[name, vendor, vram_bytes, count, driver, power_limit_w, pcie], cpu{model, cores}, ram_bytes, os, kernel)", path, err)
	}
	for i, g := range h.GPUs {
		if g.Name == "" {
			return rundoc.Hardware{}, fmt.Errorf("hardware file %s: gpus[%d] has no name", path, i)
		}
		if g.Count == 0 {
			h.GPUs[i].Count = 1
		}
	}
	return h, nil
}
