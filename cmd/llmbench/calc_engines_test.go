package main

import (
	"strings"
	"testing"
)

// TestCalcRefusesWhatTheServerRefuses checks calc gives no figures for setups the
// engine would not start, and says why.
func TestCalcRefusesWhatTheServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "h100-sxm", "--gpus", "3", "--model", "qwen3-32b", "--quant", "bf16"}, "does not divide Qwen3 32B's 64 attention heads"},
		{[]string{"--gpu", "h100-sxm", "--pipeline-parallel-size", "5", "--model", "qwen3-32b", "--quant", "bf16"}, "5 pipeline stages do not divide"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b", "--quant", "awq", "--engine", "llama.cpp"}, "llama.cpp does not run AWQ"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b", "--quant", "awq", "--kv-dtype", "q8_0"}, "vLLM has no"},
	} {
		out, err := runCalcCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("calc %s: %v (output %d bytes); want a refusal saying %q", strings.Join(tc.args, " "), err, len(out), tc.want)
		}
	}
	if _, err := runCalcCmd(t, "--gpu", "h100-sxm", "--gpus", "4", "--pipeline-parallel-size", "2", "--model", "qwen3-32b", "--quant", "bf16"); err != nil {
		t.Errorf("tp 4 × pp 2 of Qwen3 32B refused: %v", err)
	}
}

// TestCalcEngineVersion checks an older build's prediction says which factors it used, and that an undatable version is an error.
func TestCalcEngineVersion(t *testing.T) {
	args := []string{"--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--quant", "q4_k_m", "--engine", "llama.cpp",
		"--contexts", "0", "--concurrency", "1", "--prefill", "8K", "--format", "json"}
	old, err := runCalcCmd(t, append(args, "--engine-version", "b5900")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(old, "dated 2025-07, the date of b5863") || !strings.Contains(old, `"version": "b5900"`) {
		t.Errorf("b5900's note or version missing:\n%s", old)
	}
	gen, err := runCalcCmd(t, append(args, "--engine-version", "2023-11")...)
	if err != nil || !strings.Contains(gen, "llama.cpp-cuda@2023") {
		t.Errorf("a 2023 build: %v; want the llama.cpp-cuda@2023 factors", err)
	}
	for _, bad := range []string{"b100", "yesterday"} {
		if _, err := runCalcCmd(t, append(args, "--engine-version", bad)...); err == nil {
			t.Errorf("--engine-version %s accepted", bad)
		}
	}
	out, err := runCalcCmd(t, "--list", "engines")
	if err != nil || !strings.Contains(out, "b7901") || !strings.Contains(out, "OWN WORK TAKES") {
		t.Errorf("--list engines: %v\n%s", err, out)
	}
}
