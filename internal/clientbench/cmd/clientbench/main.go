// Command clientbench measures what llmbench's streaming client costs per token, beside
// a bare reader (the floor) and, given a copy of vLLM's source, vLLM's benchmark
// client: each in its own process, against a zero-compute server in another process,
// pinned to other CPUs where the machine has them. It prints a Markdown table of
// tokens per CPU-second.
//
//	go run ./internal/clientbench/cmd/clientbench                      # 32…4096 streams, 3 runs each
//	go run ./internal/clientbench/cmd/clientbench -streams 128,256 -reps 5 -profile /tmp/prof
//	go run ./internal/clientbench/cmd/clientbench -vllm ~/vllm/vllm/benchmarks/lib/endpoint_request_func.py
//
// The same binary is the server (-role server) and the Go clients (-role client).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/clientbench"
	"github.com/llmbench/llmbench/internal/zerostream"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "clientbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("clientbench", flag.ContinueOnError)
	role := fs.String("role", "table", "table (run everything), server or client (the child processes)")
	// The table.
	streams := fs.String("streams", "32,128,256,1024,4096", "stream counts")
	reps := fs.Int("reps", 3, "runs of each client at each stream count")
	step := fs.Duration("step", 2*time.Millisecond, "the server's decode step: one token per stream per step")
	serverCPUs := fs.String("server-cpus", "", "CPUs for the server process (default: the upper half; none on a 1-CPU machine)")
	clientCPUs := fs.String("client-cpus", "", "CPUs for each client process (default: the lower half)")
	noPin := fs.Bool("no-pin", false, "do not pin the processes to CPUs")
	vllm := fs.String("vllm", "", "a copy of vLLM's vllm/benchmarks/lib/endpoint_request_func.py: adds vLLM's Python client")
	python := fs.String("python", "python3", "the Python with aiohttp, regex and tqdm, for -vllm")
	profile := fs.String("profile", "", "write CPU and allocation profiles of every llmbench run to this directory")
	jsonOut := fs.String("json", "", "also write every run's result to this file")
	fromJSON := fs.String("from-json", "", "print the table of a -json file instead of running (give the same -streams, -reps and timing flags)")
	// The server.
	addr := fs.String("addr", "127.0.0.1:0", "server: where to listen")
	writers := fs.Int("writers", 1, "server: writer goroutines")
	// A client (flag names shared with the Python driver).
	kind := fs.String("kind", "llmbench", "client: floor or llmbench")
	url := fs.String("url", "", "client: the server's root URL")
	maxTokens := fs.Int("max-tokens", 2048, "output tokens per request")
	settle := fs.Float64("settle", 1, "seconds to wait after every stream is in flight, before the window")
	window := fs.Float64("window", 10, "seconds of the measurement window")
	cpuProfile := fs.String("cpuprofile", "", "client: CPU profile of the window")
	memProfile := fs.String("memprofile", "", "client: allocation profile at the window's end (and .base at its start)")
	control := fs.String("control", "", `client: "stdin" to have the window opened and closed by the lines "open" and "close" on stdin (the table does); default: the client times it`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *role {
	case "server":
		return zerostream.Run(ctx, *addr, zerostream.Config{Step: *step, Writers: *writers, ContinuousUsage: true}, func(s *zerostream.Server) {
			fmt.Println(s.URL())
		})
	case "client":
		count, err := strconv.Atoi(*streams)
		if err != nil {
			return fmt.Errorf("-streams: a client runs one count: %w", err)
		}
		co := clientbench.ClientOptions{
			Kind: clientbench.Kind(*kind), BaseURL: *url, Streams: count, MaxTokens: *maxTokens,
			Settle: seconds(*settle), Window: seconds(*window), CPUProfile: *cpuProfile, MemProfile: *memProfile,
		}
		switch *control {
		case "stdin":
			co.Control = os.Stdin
		case "":
		default:
			return fmt.Errorf("-control %q: stdin or nothing", *control)
		}
		res, err := clientbench.RunClient(ctx, co)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(res)
	case "table":
	default:
		return fmt.Errorf("-role %q: table, server or client", *role)
	}

	counts, err := ints(*streams)
	if err != nil {
		return fmt.Errorf("-streams: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	o := clientbench.TableOptions{
		Streams: counts, Reps: *reps, Step: *step, MaxTokens: *maxTokens,
		Settle: seconds(*settle), Window: seconds(*window), Self: self,
		VLLMRequestFunc: *vllm, Python: *python, ProfileDir: *profile, Log: os.Stderr,
	}
	if !*noPin {
		o.ServerCPUs, o.ClientCPUs = defaultCPUs(runtime.NumCPU())
		if *serverCPUs != "" {
			if o.ServerCPUs, err = ints(*serverCPUs); err != nil {
				return fmt.Errorf("-server-cpus: %w", err)
			}
		}
		if *clientCPUs != "" {
			if o.ClientCPUs, err = ints(*clientCPUs); err != nil {
				return fmt.Errorf("-client-cpus: %w", err)
			}
		}
	}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			return err
		}
	}
	if *fromJSON != "" {
		b, err := os.ReadFile(*fromJSON)
		if err != nil {
			return err
		}
		t := clientbench.NewTable(o)
		if err := json.Unmarshal(b, &t.Runs); err != nil {
			return fmt.Errorf("reading %s: %w", *fromJSON, err)
		}
		t.Write(os.Stdout)
		return nil
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t, err := clientbench.RunTable(ctx, o)
	if t != nil && *jsonOut != "" {
		b, _ := json.MarshalIndent(t.Runs, "", "  ")
		if werr := os.WriteFile(*jsonOut, b, 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if t != nil {
		t.Write(os.Stdout) // what was measured, even when a later run failed
	}
	return err
}

// defaultCPUs splits the machine: the server on the upper half, each client on the
// lower half (on 2 CPUs: server on CPU 1, client on CPU 0). One CPU: no pinning.
func defaultCPUs(n int) (server, client []int) {
	if n < 2 {
		return nil, nil
	}
	for c := 0; c < n; c++ {
		if c < n/2 {
			client = append(client, c)
		} else {
			server = append(server, c)
		}
	}
	return server, client
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
