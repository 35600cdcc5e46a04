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
	f := bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch f.role {
	case "server":
		return zerostream.Run(ctx, f.addr, zerostream.Config{Step: f.step, Writers: f.writers, ContinuousUsage: true}, func(s *zerostream.Server) {
			fmt.Println(s.URL())
		})
	case "client":
		return runClient(ctx, f)
	case "table":
		return runTable(ctx, f)
	}
	return fmt.Errorf("-role %q: table, server or client", f.role)
}

// flags are clientbench's: the table's, the server's, a client's (names shared with
// the Python driver).
type flags struct {
	role, streams, serverCPUs, clientCPUs, vllm, python, profile, jsonOut, fromJSON string
	reps, writers, maxTokens                                                        int
	step                                                                            time.Duration
	noPin                                                                           bool
	addr, kind, url, cpuProfile, memProfile, control                                string
	settle, window                                                                  float64
}

func bindFlags(fs *flag.FlagSet) *flags {
	f := &flags{}
	fs.StringVar(&f.role, "role", "table", "table (run everything), server or client (the child processes)")
	fs.StringVar(&f.streams, "streams", "32,128,256,1024,4096", "stream counts")
	fs.IntVar(&f.reps, "reps", 3, "runs of each client at each stream count")
	fs.DurationVar(&f.step, "step", 2*time.Millisecond, "the server's decode step: one token per stream per step")
	fs.StringVar(&f.serverCPUs, "server-cpus", "", "CPUs for the server process (default: the upper half; none on a 1-CPU machine)")
	fs.StringVar(&f.clientCPUs, "client-cpus", "", "CPUs for each client process (default: the lower half)")
	fs.BoolVar(&f.noPin, "no-pin", false, "do not pin the processes to CPUs")
	fs.StringVar(&f.vllm, "vllm", "", "a copy of vLLM's vllm/benchmarks/lib/endpoint_request_func.py: adds vLLM's Python client")
	fs.StringVar(&f.python, "python", "python3", "the Python with aiohttp, regex and tqdm, for -vllm")
	fs.StringVar(&f.profile, "profile", "", "write CPU and allocation profiles of every llmbench run to this directory")
	fs.StringVar(&f.jsonOut, "json", "", "also write every run's result to this file")
	fs.StringVar(&f.fromJSON, "from-json", "", "print the table of a -json file instead of running (give the same -streams, -reps and timing flags)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "server: where to listen")
	fs.IntVar(&f.writers, "writers", 1, "server: writer goroutines")
	fs.StringVar(&f.kind, "kind", "llmbench", "client: floor or llmbench")
	fs.StringVar(&f.url, "url", "", "client: the server's root URL")
	fs.IntVar(&f.maxTokens, "max-tokens", 2048, "output tokens per request")
	fs.Float64Var(&f.settle, "settle", 1, "seconds to wait after every stream is in flight, before the window")
	fs.Float64Var(&f.window, "window", 10, "seconds of the measurement window")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "client: CPU profile of the window")
	fs.StringVar(&f.memProfile, "memprofile", "", "client: allocation profile at the window's end (and .base at its start)")
	fs.StringVar(&f.control, "control", "", `client: "stdin" to have the window opened and closed by the lines "open" and "close" on stdin (the table does); default: the client times it`)
	return f
}

// runClient is one client process: it reads the server's streams and prints its
// result as JSON.
func runClient(ctx context.Context, f *flags) error {
	count, err := strconv.Atoi(f.streams)
	if err != nil {
		return fmt.Errorf("-streams: a client runs one count: %w", err)
	}
	co := clientbench.ClientOptions{
		Kind: clientbench.Kind(f.kind), BaseURL: f.url, Streams: count, MaxTokens: f.maxTokens,
		Settle: seconds(f.settle), Window: seconds(f.window), CPUProfile: f.cpuProfile, MemProfile: f.memProfile,
	}
	switch f.control {
	case "stdin":
		co.Control = os.Stdin
	case "":
	default:
		return fmt.Errorf("-control %q: stdin or nothing", f.control)
	}
	res, err := clientbench.RunClient(ctx, co)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// runTable runs every client at every stream count (or prints a -json file's table)
// and prints the table.
func runTable(ctx context.Context, f *flags) error {
	o, err := tableOptions(f)
	if err != nil {
		return err
	}
	if f.fromJSON != "" {
		b, err := os.ReadFile(f.fromJSON)
		if err != nil {
			return err
		}
		t := clientbench.NewTable(o)
		if err := json.Unmarshal(b, &t.Runs); err != nil {
			return fmt.Errorf("reading %s: %w", f.fromJSON, err)
		}
		t.Write(os.Stdout)
		return nil
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t, err := clientbench.RunTable(ctx, o)
	if t != nil && f.jsonOut != "" {
		b, _ := json.MarshalIndent(t.Runs, "", "  ")
		if werr := os.WriteFile(f.jsonOut, b, 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if t != nil {
		t.Write(os.Stdout) // what was measured, even when a later run failed
	}
	return err
}

func tableOptions(f *flags) (clientbench.TableOptions, error) {
	counts, err := ints(f.streams)
	if err != nil {
		return clientbench.TableOptions{}, fmt.Errorf("-streams: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return clientbench.TableOptions{}, err
	}
	o := clientbench.TableOptions{
		Streams: counts, Reps: f.reps, Step: f.step, MaxTokens: f.maxTokens,
		Settle: seconds(f.settle), Window: seconds(f.window), Self: self,
		VLLMRequestFunc: f.vllm, Python: f.python, ProfileDir: f.profile, Log: os.Stderr,
	}
	if !f.noPin {
		o.ServerCPUs, o.ClientCPUs = defaultCPUs(runtime.NumCPU())
		if f.serverCPUs != "" {
			if o.ServerCPUs, err = ints(f.serverCPUs); err != nil {
				return o, fmt.Errorf("-server-cpus: %w", err)
			}
		}
		if f.clientCPUs != "" {
			if o.ClientCPUs, err = ints(f.clientCPUs); err != nil {
				return o, fmt.Errorf("-client-cpus: %w", err)
			}
		}
	}
	if f.profile != "" {
		if err := os.MkdirAll(f.profile, 0o755); err != nil {
			return o, err
		}
	}
	return o, nil
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
