package sim

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Run serves cfg on addr until ctx ends, then stops it. It says on out what it serves
// and where, and when it has stopped.
func Run(ctx context.Context, out io.Writer, addr string, cfg Config) error {
	url, shutdown, err := Serve(ctx, addr, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "llmbench sim %s: emulated engine %q serving model %q at %s/v1\n", Version, cfg.Preset, cfg.ServedModel, url)
	fmt.Fprintf(out, "  KV cache %d tokens (%d blocks × %d), max_num_seqs %d, max_model_len %d, chunk budget %d tokens/step, prefix caching %v, speed ×%g\n",
		cfg.KVCacheTokens(), cfg.NumBlocks, cfg.BlockSize, cfg.MaxNumSeqs, cfg.MaxModelLen, cfg.MaxBatchedTokens, cfg.PrefixCaching, cfg.Speed)
	fmt.Fprintln(out, "  Ctrl-C to stop")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(stopCtx); err != nil {
		return fmt.Errorf("stopping the emulator: %w", err)
	}
	fmt.Fprintln(out, "llmbench sim: stopped")
	return nil
}
