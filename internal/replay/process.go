package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// EnvConfig is the environment variable that makes a test binary serve a replay
// (ServeFromEnv) instead of running its tests.
const EnvConfig = "LLMBENCH_REPLAY_CONFIG"

// ServeFromEnv serves the Config in $LLMBENCH_REPLAY_CONFIG, prints its URL on
// stdout and serves until stdin closes, then exits. Without the variable it returns
// at once. Call it first in TestMain, so that StartProcess can run a replay in a
// process of its own: a server that does not share the client's CPU time slices, as
// a real engine does not.
func ServeFromEnv() {
	raw := os.Getenv(EnvConfig)
	if raw == "" {
		return
	}
	var cfg Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "replay config:", err)
		os.Exit(2)
	}
	s, err := newServer(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(2)
	}
	go http.Serve(ln, s)
	fmt.Printf("http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Remote is a replay served by a child process.
type Remote struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// StartProcess runs cfg in a child process: the current test binary, whose TestMain
// calls ServeFromEnv.
func StartProcess(cfg Config) (*Remote, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvConfig+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the replay process: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("the replay process did not say where it listens: %w", err)
	}
	return &Remote{URL: strings.TrimSpace(line), cmd: cmd, stdin: stdin}, nil
}

// Log fetches what the remote server did with every request.
func (r *Remote) Log() ([]*Record, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(r.URL + "/_replay/log")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []*Record
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// Close stops the child process.
func (r *Remote) Close() {
	r.stdin.Close()
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
}
