package hw

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// recorded answers commands from files: the key is the program name.
type recorded map[string]string

func (r recorded) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	p, ok := r[name]
	if !ok {
		return nil, errors.New("exec: " + name + ": executable file not found in $PATH")
	}
	if name == "nvidia-smi" && strings.Join(args, " ") != strings.Join(NvidiaQuery, " ") {
		return nil, errors.New("unexpected nvidia-smi arguments: " + strings.Join(args, " "))
	}
	return os.ReadFile(p)
}

const mib = 1 << 20

func TestDetect(t *testing.T) {
	cases := []struct {
		name string
		root string
		run  recorded
		want rundoc.Hardware
	}{
		{
			name: "H200 (recorded)",
			root: "testdata/roots/h200",
			run:  recorded{"nvidia-smi": "testdata/nvidia-smi/h200/query-gpu.csv"},
			want: rundoc.Hardware{
				Type: "discrete_gpu",
				GPUs: []rundoc.GPU{{Name: "NVIDIA H200", Vendor: "nvidia", VRAMBytes: 143771 * mib, Count: 1, Driver: "580.159.04", PowerLimitW: 700, PCIe: "Gen5 x16"}},
				// The recording's nproc.txt says 16.
				CPU:      &rundoc.CPU{Model: "Intel(R) Xeon(R) Processor", Cores: 16},
				RAMBytes: 131981020 * 1024,
				OS:       "Ubuntu 24.04.3 LTS",
				Kernel:   "6.18.44-fc-v657-gpu",
			},
		},
		{
			name: "8x H100 grouped",
			root: "testdata/roots/h200",
			run:  recorded{"nvidia-smi": "testdata/nvidia-smi/8xh100/query-gpu.csv"},
			want: rundoc.Hardware{
				Type:     "discrete_gpu",
				GPUs:     []rundoc.GPU{{Name: "NVIDIA H100 80GB HBM3", Vendor: "nvidia", VRAMBytes: 81559 * mib, Count: 8, Driver: "550.54.15", PowerLimitW: 700, PCIe: "Gen5 x16"}},
				CPU:      &rundoc.CPU{Model: "Intel(R) Xeon(R) Processor", Cores: 16},
				RAMBytes: 131981020 * 1024,
				OS:       "Ubuntu 24.04.3 LTS",
				Kernel:   "6.18.44-fc-v657-gpu",
			},
		},
		{
			name: "AMD through sysfs",
			root: "testdata/roots/amd",
			run:  recorded{},
			want: rundoc.Hardware{
				Type:     "discrete_gpu",
				GPUs:     []rundoc.GPU{{Name: "AMD GPU 0x744c", Vendor: "amd", VRAMBytes: 25753026560, Count: 1}},
				CPU:      &rundoc.CPU{Model: "AMD Ryzen 9 7950X 16-Core Processor", Cores: 32},
				RAMBytes: 65536000 * 1024,
				OS:       "Fedora Linux 41 (Workstation Edition)",
			},
		},
		{
			name: "Apple silicon",
			root: "testdata/roots/none",
			run:  recorded{"system_profiler": "testdata/system_profiler/m2max.json"},
			want: rundoc.Hardware{
				Type:     "apple_silicon",
				GPUs:     []rundoc.GPU{{Name: "Apple M2 Max (38-core GPU)", Vendor: "apple", VRAMBytes: 96 << 30, Count: 1}},
				CPU:      &rundoc.CPU{Model: "Apple M2 Max", Cores: 12},
				RAMBytes: 96 << 30,
				OS:       "macOS",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Detect(context.Background(), tc.root, tc.run)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("hardware (-want +got):\n%s", d)
			}
		})
	}
}

func TestDetectNothing(t *testing.T) {
	_, err := Detect(context.Background(), t.TempDir(), recorded{})
	if err == nil {
		t.Fatal("Detect on an empty tree with no tools succeeded")
	}
}

func TestParseNvidiaSMIMixed(t *testing.T) {
	b, err := os.ReadFile("testdata/nvidia-smi/mixed/query-gpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	got := ParseNvidiaSMI(b)
	want := []rundoc.GPU{
		{Name: "NVIDIA GeForce RTX 3090", Vendor: "nvidia", VRAMBytes: 24576 * mib, Count: 2, Driver: "560.35.03", PowerLimitW: 350, PCIe: "Gen4 x16"},
		{Name: "NVIDIA GeForce RTX 4090", Vendor: "nvidia", VRAMBytes: 24564 * mib, Count: 1, Driver: "560.35.03", PowerLimitW: 450, PCIe: "Gen4 x16"},
		// "[N/A]" power and a narrower link make it a different entry, not a guess.
		{Name: "NVIDIA GeForce RTX 3090", Vendor: "nvidia", VRAMBytes: 24576 * mib, Count: 1, Driver: "560.35.03", PCIe: "Gen4 x8"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GPUs (-want +got):\n%s", d)
	}
}

func FuzzParseNvidiaSMI(f *testing.F) {
	if b, err := os.ReadFile("testdata/nvidia-smi/h200/query-gpu.csv"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("a,\"b\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, g := range ParseNvidiaSMI(b) {
			if g.Count < 1 || g.Name == "" {
				t.Fatalf("bad entry %+v", g)
			}
		}
	})
}

func TestReadHardwareFile(t *testing.T) {
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "hw.yaml")
	os.WriteFile(yamlFile, []byte(`type: discrete_gpu
gpus:
  - name: NVIDIA GeForce RTX 3090
    vram_bytes: 25769803776
    count: 2
cpu:
  model: AMD Ryzen 9 5950X
  cores: 32
ram_bytes: 137438953472
os: Debian 12
`), 0o644)
	jsonFile := filepath.Join(dir, "hw.json")
	os.WriteFile(jsonFile, []byte(`{"type":"discrete_gpu","gpus":[{"name":"NVIDIA GeForce RTX 3090","vram_bytes":25769803776,"count":2}],"cpu":{"model":"AMD Ryzen 9 5950X","cores":32},"ram_bytes":137438953472,"os":"Debian 12"}`), 0o644)
	want := rundoc.Hardware{
		Type:     "discrete_gpu",
		GPUs:     []rundoc.GPU{{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, Count: 2}},
		CPU:      &rundoc.CPU{Model: "AMD Ryzen 9 5950X", Cores: 32},
		RAMBytes: 128 << 30,
		OS:       "Debian 12",
	}
	for _, p := range []string{yamlFile, jsonFile} {
		got, err := ReadHardwareFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", p, d)
		}
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("gpu:\n  - name: x\n"), 0o644)
	if _, err := ReadHardwareFile(bad); err == nil || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("unknown field: err = %v, want one naming it", err)
	}
	noName := filepath.Join(dir, "noname.yaml")
	os.WriteFile(noName, []byte("gpus:\n  - count: 2\n"), 0o644)
	if _, err := ReadHardwareFile(noName); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("GPU without name: err = %v", err)
	}
	if _, err := ReadHardwareFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file gave no error")
	}
}

// TestDetectMatchesTheRealMachine: on the H200 fixture tree and its recorded
// nvidia-smi answer, Detect gives what `llmbench hw --format json` printed on a real
// H200 machine.
func TestDetectMatchesTheRealMachine(t *testing.T) {
	b, err := os.ReadFile("testdata/h200-llmbench-hw.json")
	if err != nil {
		t.Fatal(err)
	}
	var want rundoc.Hardware
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Detect(context.Background(), "testdata/roots/h200", recorded{"nvidia-smi": "testdata/nvidia-smi/h200/query-gpu.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fixture tree vs the real machine (-real +fixture):\n%s", d)
	}
}
