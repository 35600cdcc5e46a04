package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
)

func TestCalibratePrintsTheCeiling(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ceiling needs per-thread CPU time")
	}
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"calibrate", "--streams", "8", "--duration", "300ms", "--format", "json"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var got struct {
		Ceiling float64 `json:"ceiling_tok_s"`
		Cores   int     `json:"cores"`
		Tokens  int64   `json:"tokens"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if got.Ceiling <= 0 || got.Cores != runtime.GOMAXPROCS(0) || got.Tokens <= 0 {
		t.Errorf("got %+v", got)
	}
}

func TestCalibrateRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--format", "xml"}, {"--streams", "0"}} {
		root := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append([]string{"calibrate"}, args...))
		if err := root.Execute(); err == nil {
			t.Errorf("calibrate %v: no error", args)
		}
	}
}
