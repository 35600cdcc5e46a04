//go:build unix

package engine

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHelperServer is not a test: Launch tests run the test binary again with
// LLMBENCH_HELPER_ADDR set, and it then serves /health there until killed, as an
// engine would.
func TestHelperServer(t *testing.T) {
	addr := os.Getenv("LLMBENCH_HELPER_ADDR")
	if addr == "" {
		t.Skip("helper process for the Launch tests")
	}
	fmt.Println("helper: loading model")
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {})
	// Bounded: the helper exits by itself if nobody stops it.
	srv := &http.Server{Addr: addr, Handler: mux}
	go func() { time.Sleep(60 * time.Second); srv.Close() }()
	srv.ListenAndServe()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// syncBuffer is a bytes.Buffer safe for the log copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLaunchHealthyThenStop(t *testing.T) {
	addr := freeAddr(t)
	cmd := fmt.Sprintf("LLMBENCH_HELPER_ADDR=%s exec %s -test.run='^TestHelperServer$'", addr, os.Args[0])
	var log syncBuffer
	l, err := Launch(context.Background(), cmd, "http://"+addr+"/v1", 30*time.Second, &log)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if resp, err := http.Get("http://" + addr + "/health"); err != nil {
		t.Fatalf("server not up after Launch returned: %v", err)
	} else {
		resp.Body.Close()
	}
	if err := l.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-l.Done():
	default:
		t.Fatal("process still running after Stop")
	}
	if _, err := http.Get("http://" + addr + "/health"); err == nil {
		t.Error("server still answers after Stop")
	}
	if !strings.Contains(log.String(), "helper: loading model") {
		t.Errorf("log did not reach logw: %q", log.String())
	}
	l.Stop(context.Background()) // idempotent
}

func TestLaunchExitsEarly(t *testing.T) {
	addr := freeAddr(t)
	_, err := Launch(context.Background(), "echo 'CUDA out of memory: marker-42' >&2; exit 3", "http://"+addr, 30*time.Second, nil)
	if err == nil {
		t.Fatal("Launch of a failing command succeeded")
	}
	for _, want := range []string{"exited before it was healthy", "marker-42", "exit status 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestLaunchTimeoutStopsTheProcessGroup(t *testing.T) {
	addr := freeAddr(t)
	// A child that never serves; the shell's child must be stopped too.
	_, err := Launch(context.Background(), "echo still-loading; sleep 30 & echo child=$!; wait", "http://"+addr, 500*time.Millisecond, nil)
	if err == nil {
		t.Fatal("Launch of a server that never answers succeeded")
	}
	if !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), "still-loading") {
		t.Errorf("error %q should name the timeout and show the log", err)
	}
	_, after, ok := strings.Cut(err.Error(), "child=")
	if !ok {
		t.Fatalf("no child pid in the log tail: %q", err)
	}
	pid, convErr := strconv.Atoi(strings.Fields(after)[0])
	if convErr != nil {
		t.Fatal(convErr)
	}
	// The shell's child is in the same process group and must be gone (bounded wait:
	// the kernel reaps it shortly after SIGTERM).
	gone := false
	for i := 0; i < 200 && !gone; i++ {
		gone = syscall.Kill(pid, 0) == syscall.ESRCH
		if !gone {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !gone {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("child %d of the launched shell survived Stop", pid)
	}
}

func TestContainerImage(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"docker run --gpus all -p 8000:8000 --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B", "vllm/vllm-openai:v0.11.0"},
		{"sudo docker run --rm -it -e HF_TOKEN=x -v ~/.cache/huggingface:/root/.cache/huggingface --name vllm vllm/vllm-openai:latest", "vllm/vllm-openai:latest"},
		{"podman run --device nvidia.com/gpu=all -p 30000:30000 lmsysorg/sglang:latest python3 -m sglang.launch_server", "lmsysorg/sglang:latest"},
		{"docker container run --shm-size 1g ghcr.io/huggingface/text-generation-inference:3.3.6 --model-id x", "ghcr.io/huggingface/text-generation-inference:3.3.6"},
		{"docker run \\\n  --gpus all \\\n  ghcr.io/ggml-org/llama.cpp:server-cuda -m /models/m.gguf", "ghcr.io/ggml-org/llama.cpp:server-cuda"},
		{"vllm serve Qwen/Qwen3-8B --port 8000", ""},
		{"docker ps", ""},
	}
	for _, tc := range cases {
		if got := ContainerImage(tc.cmd); got != tc.want {
			t.Errorf("ContainerImage(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
