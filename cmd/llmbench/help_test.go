package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpExamplesRun runs every example line of every command's --help (help/*.txt)
// that needs neither a GPU nor a file the reader must bring, as TestDocumentedCommandsRun
// does for the docs: calc, report, hw, probe and token commands for real, run as a dry
// run against the emulator. Issue 34: calc --help's own MoE example was refused and no
// test noticed.
func TestHelpExamplesRun(t *testing.T) {
	root := filepath.Join("..", "..")
	seedRun := filepath.Join(root, "internal", "seed", "seed-run.json")
	servers := &docServers{t: t, base: map[string]string{}}
	db := filepath.Join(t.TempDir(), "site.db")
	ran, notRun := map[string]int{}, map[string]int{}
	for _, hc := range helpCommands(t) {
		args, why := runnableHelp(hc.args, root, seedRun, t.TempDir(), db)
		if why != "" {
			notRun[why]++
			continue
		}
		if args[0] == "run" || args[0] == "probe" {
			args = servers.aim(args, hc.preset)
		}
		args = servers.againstLocal(args)
		ran[args[0]]++
		if out, err := runCmd(t, args...); err != nil {
			t.Errorf("%s: %q failed: %v\n%s", hc.where, hc.line, err, out)
		}
	}
	t.Logf("ran %v; not run here: %v", ran, notRun)
	for _, c := range []string{"calc", "run", "report", "probe", "hw", "serve"} {
		if ran[c] == 0 {
			t.Errorf("no %s example ran: the help files' extraction is broken", c)
		}
	}
}

// helpCommands are the llmbench command lines of the help files' examples.
func helpCommands(t *testing.T) []docCommand {
	t.Helper()
	names, err := fs.Glob(helpFiles, "help/*.examples.txt")
	if err != nil || len(names) < 10 {
		t.Fatalf("help files: %v (%d)", err, len(names))
	}
	var cmds []docCommand
	for _, name := range names {
		text := helpText(strings.TrimPrefix(name, "help/"))
		cmds = append(cmds, commandsIn(name, "```sh\n"+text+"\n```", -1)...)
	}
	return cmds
}

// runnableHelp is runnable for help examples, which also show the token commands (run
// against a temporary database) and files that exist only on the reader's machine.
func runnableHelp(args []string, root, seedRun, tmp, db string) ([]string, string) {
	if len(args) >= 2 && args[0] == "serve" && args[1] == "token" {
		for i, a := range args {
			if a == "--db" && i+1 < len(args) {
				args = append(append([]string{}, args[:i]...), args[i+2:]...)
				break
			}
		}
		if len(args) > 2 && args[2] == "revoke" && len(args) == 4 && !strings.HasPrefix(args[3], "-") {
			return nil, "a token the reader has (revoke TOKEN: store.TestRevokeTokens)"
		}
		return append(args, "--db", db), ""
	}
	for i, a := range args {
		if i > 0 && (args[i-1] == "--config" || args[i-1] == "--gguf") && !fileExists(filepath.Join(root, a)) {
			return nil, "a file the reader brings"
		}
	}
	return runnable(args, root, seedRun, tmp)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
