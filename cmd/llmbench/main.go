// Command llmbench measures, predicts, renders and publishes the speed test matrix of
// LLM inference servers. The command files here are thin: flags in, library calls, exit
// code out. Each command registers itself in init so that command files stay independent.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; otherwise it
// comes from the module's build info.
var version = ""

// commands are added to the root command by each command file's init.
var commands []func() *cobra.Command

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

func newRootCmd() *cobra.Command {
	var verbose bool
	root := &cobra.Command{
		Use:           "llmbench",
		Short:         "Measure what an LLM inference server really does: prefill, decode at N users, KV capacity",
		Long:          helpLong("llmbench"),
		Example:       helpExamples("llmbench"),
		Version:       toolVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
		},
	}
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log debug detail to stderr")
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

func main() {
	// The first Ctrl-C cancels the context so that long work stops cleanly and saves
	// what it has; a second one kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore default handling: a second signal exits at once
	}()
	root := newRootCmd()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "llmbench:", err)
		var ec exitCoder
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(1)
	}
}

// exitCoder lets a command choose its exit code (e.g. 130 after an interrupt).
type exitCoder interface{ ExitCode() int }

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }
