package clientbench

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmbench/llmbench/internal/clock"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed python/vllm_client.py
var vllmDriver []byte

// TableOptions configure the benchmark: which clients, at how many streams, how often.
type TableOptions struct {
	Streams   []int
	Reps      int
	Step      time.Duration // the server's decode step
	MaxTokens int
	Settle    time.Duration
	Window    time.Duration
	// ServerCPUs and ClientCPUs pin the server process and each client process; empty
	// means no pinning.
	ServerCPUs, ClientCPUs []int
	// Self is this program's path: the server and the Go clients are this program
	// again, with -role server or -role client.
	Self string
	// VLLMRequestFunc is a copy of vLLM's endpoint_request_func.py; empty leaves vLLM's
	// client out. Python is the interpreter (default python3).
	VLLMRequestFunc, Python string
	// ProfileDir, if set, gets a CPU and an allocation profile of every llmbench run.
	ProfileDir string
	Log        io.Writer
}

// Table is every run's result, by streams then kind, in the order run.
type Table struct {
	Options TableOptions
	Runs    map[int]map[Kind][]Result
	Pinned  string   // what pinning was done, in words
	Failed  []string // runs that measured nothing, and why
}

// NewTable is an empty table for o.
func NewTable(o TableOptions) *Table {
	return &Table{Options: o, Runs: map[int]map[Kind][]Result{}, Pinned: pinning(o)}
}

// RunTable starts the server process, runs every client at every stream count Reps
// times, alternating which kind goes first so that a drift in the machine's load
// falls on both, and collects the results.
func RunTable(ctx context.Context, o TableOptions) (*Table, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	kinds := []Kind{Floor, LLMBench}
	var driver string
	if o.VLLMRequestFunc != "" {
		if o.Python == "" {
			o.Python = "python3"
		}
		f, err := os.CreateTemp("", "llmbench-vllm-client-*.py")
		if err != nil {
			return nil, err
		}
		defer os.Remove(f.Name())
		if _, err := f.Write(vllmDriver); err != nil {
			return nil, err
		}
		f.Close()
		driver = f.Name()
		kinds = append(kinds, VLLM)
	}
	t := NewTable(o)
	base, stop, err := startServer(ctx, o)
	if err != nil {
		return nil, err
	}
	defer stop()
	fmt.Fprintf(o.Log, "zero-compute server at %s, step %s; %s\n", base, o.Step, t.Pinned)
	for _, n := range o.Streams {
		t.Runs[n] = map[Kind][]Result{}
		for rep := 0; rep < o.Reps; rep++ {
			for i := range kinds {
				k := kinds[(i+rep)%len(kinds)]
				if err := waitActiveBelow(ctx, base, 1, time.Minute); err != nil {
					return t, err
				}
				res, err := runClientProcess(ctx, o, k, base, n, rep, driver)
				if err != nil {
					if ctx.Err() != nil {
						return t, ctx.Err()
					}
					// One failed run leaves a gap in the table, not an empty table.
					fmt.Fprintf(o.Log, "%s at %d streams, run %d: %v\n", k, n, rep+1, err)
					t.Failed = append(t.Failed, fmt.Sprintf("%s at %d streams, run %d: %v", k, n, rep+1, err))
					continue
				}
				res.Rep = rep
				fmt.Fprintln(o.Log, res)
				t.Runs[n][k] = append(t.Runs[n][k], res)
			}
		}
	}
	return t, nil
}

func pinning(o TableOptions) string {
	switch {
	case !canPin:
		return "not pinned (this OS has no sched_setaffinity): server and clients share every CPU"
	case len(o.ServerCPUs) == 0 && len(o.ClientCPUs) == 0:
		return "not pinned: server and clients share every CPU"
	}
	return fmt.Sprintf("server pinned to CPU %s, each client to CPU %s", cpuList(o.ServerCPUs), cpuList(o.ClientCPUs))
}

func cpuList(c []int) string {
	if len(c) == 0 {
		return "(any)"
	}
	s := make([]string, len(c))
	for i, v := range c {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// startServer starts the zero-compute server process and reads its address from the
// first line it prints.
func startServer(ctx context.Context, o TableOptions) (string, func(), error) {
	writers := max(1, len(o.ServerCPUs))
	cmd := exec.CommandContext(ctx, o.Self, "-role", "server", "-addr", "127.0.0.1:0", "-step", o.Step.String(), "-writers", strconv.Itoa(writers))
	cmd.Stderr = o.Log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := startPinned(cmd, o.ServerCPUs); err != nil {
		return "", nil, fmt.Errorf("starting the server process: %w", err)
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("reading the server's address: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

func runClientProcess(ctx context.Context, o TableOptions, k Kind, base string, n, rep int, driver string) (Result, error) {
	var cmd *exec.Cmd
	common := []string{"--url", base, "--streams", strconv.Itoa(n), "--max-tokens", strconv.Itoa(o.MaxTokens),
		"--settle", strconv.FormatFloat(o.Settle.Seconds(), 'f', -1, 64), "--window", strconv.FormatFloat(o.Window.Seconds(), 'f', -1, 64)}
	var control io.WriteCloser
	if k == VLLM {
		// vLLM's driver times its own window (it asks the server from inside its loop).
		cmd = exec.CommandContext(ctx, o.Python, append([]string{driver, "--request-func", o.VLLMRequestFunc}, common...)...)
	} else {
		args := append([]string{"-role", "client", "-kind", string(k), "-control", "stdin"}, common...)
		if o.ProfileDir != "" && k == LLMBench {
			stem := filepath.Join(o.ProfileDir, fmt.Sprintf("llmbench-%d-%d", n, rep))
			args = append(args, "-cpuprofile", stem+".cpu.pprof", "-memprofile", stem+".allocs.pprof")
		}
		cmd = exec.CommandContext(ctx, o.Self, args...)
		var err error
		if control, err = cmd.StdinPipe(); err != nil {
			return Result{}, err
		}
	}
	cmd.Stderr = o.Log
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := startPinned(cmd, o.ClientCPUs); err != nil {
		return Result{}, err
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	var server int64
	if control != nil {
		var err error
		if server, err = driveWindow(ctx, o, base, n, control, exited); err != nil {
			cmd.Process.Kill()
			<-exited
			return Result{}, err
		}
	}
	<-exited
	if err := waitErr; err != nil {
		return Result{}, fmt.Errorf("the client process failed: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		return Result{}, fmt.Errorf("reading the client's result %q: %w", lines[len(lines)-1], err)
	}
	if control != nil {
		res.ServerToks = server
	}
	if res.Tokens == 0 || res.CPUS <= 0 {
		return res, errors.New("the client read nothing in its window")
	}
	return res, nil
}

// driveWindow opens a client process's window from here: it waits until the server
// has all n streams in flight, lets the client settle, and writes "open"; the client
// times its window and exits. It counts what the server wrote over the window as it
// sees it. The client under test answers no question, so a client saturated by
// thousands of streams is still measured. It returns early with an error if the
// client exits before its window opens.
func driveWindow(ctx context.Context, o TableOptions, base string, n int, control io.WriteCloser, exited <-chan struct{}) (int64, error) {
	defer control.Close()
	// Until the window opens, a client that exits ends the wait.
	pre, stopPre := context.WithCancel(ctx)
	defer stopPre()
	gone := make(chan struct{})
	go func() {
		select {
		case <-exited:
			close(gone)
			stopPre()
		case <-pre.Done():
		}
	}()
	fail := func(err error) (int64, error) {
		select {
		case <-gone:
			return 0, errors.New("the client process stopped before its window")
		default:
			return 0, err
		}
	}
	if err := waitActive(pre, base, n, 10*time.Minute); err != nil {
		return fail(err)
	}
	if err := clock.SleepErr(pre, o.Settle); err != nil {
		return fail(err)
	}
	s0, err := serverStats(pre, base)
	if err != nil {
		return fail(err)
	}
	if _, err := io.WriteString(control, "open\n"); err != nil {
		return fail(fmt.Errorf("opening the window: %w", err))
	}
	// The client's window closes a window after it reads the line; a client that
	// exits sooner has measured, or failed and says so.
	select {
	case <-time.After(o.Window):
	case <-exited:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	s1, err := serverStats(ctx, base)
	if err != nil {
		return 0, err
	}
	return s1.Tokens - s0.Tokens, nil
}

// waitActiveBelow waits until the previous client's streams are gone from the server.
func waitActiveBelow(ctx context.Context, base string, n int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		st, err := serverStats(ctx, base)
		if err != nil {
			return err
		}
		if st.Active < n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server still writes %d streams of the last client", st.Active)
		}
		if err := clock.SleepErr(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}
