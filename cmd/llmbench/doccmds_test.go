package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/sim"
)

// TestDocumentedCommandsRun runs every llmbench command that README.md and docs/
// show in a sh block and that needs neither a GPU nor a file the reader must bring:
// calc, report (a run document named in the docs is the seed's), hw, --help; probe
// against the emulator; and run as a dry run against the emulator (--dry-run: the
// probe, the plan and its fit, every flag; measuring is what TestRun* test). The
// server a block's commands reach is the default emulator, or the preset a
// "<!-- doc-test: sim --preset NAME -->" line before the block names. A command the
// docs say is refused, or stops, must fail; the "# llmbench: …" lines after a command
// (its output) must be what it printed. The others are listed with why they are not run here.
func TestDocumentedCommandsRun(t *testing.T) {
	root := filepath.Join("..", "..")
	seedRun := filepath.Join(root, "internal", "seed", "seed-run.json")
	servers := &docServers{t: t, base: map[string]string{}}
	ran, notRun := 0, map[string]int{}
	for _, dc := range documentedCommands(t, root) {
		args, why := runnable(dc.args, root, seedRun, t.TempDir())
		if why != "" {
			notRun[why]++
			continue
		}
		if args[0] == "run" || args[0] == "probe" {
			args = servers.aim(args, dc.preset)
		}
		args = servers.againstLocal(args)
		ran++
		out, err := runCmd(t, args...)
		refused := regexp.MustCompile(`(?i)refus|\bstops\b`).MatchString(dc.comment)
		switch {
		case refused && err == nil:
			t.Errorf("%s: %q is documented as refused but ran:\n%s", dc.where, dc.line, out)
		case !refused && err != nil:
			t.Errorf("%s: %q failed: %v\n%s", dc.where, dc.line, err, out)
		}
		if err != nil {
			out += err.Error()
		}
		if want := oneLine(dc.output); want != "" && !strings.Contains(oneLine(out), want) {
			t.Errorf("%s: %q printed\n%s\nnot what the docs show after it:\n%s", dc.where, dc.line, out, dc.output)
		}
	}
	t.Logf("ran %d documented commands (%d emulators); not run here: %v", ran, len(servers.base), notRun)
	if ran < 30 {
		t.Fatalf("only %d documented commands ran: the extraction is broken", ran)
	}
}

// docServers are the emulators documented commands run against, one per preset.
type docServers struct {
	t       *testing.T
	base    map[string]string
	against string // the loopback site of --against (againstLocal), once started
}

// aim points a run or probe command at the emulator: its --endpoint (any of its
// spellings) and --model are the emulator's, --out a temporary file, and run is a dry
// run. A command without --endpoint keeps it so (run then starts its own emulator).
func (s *docServers) aim(args []string, preset string) []string {
	if preset == "" {
		preset = "rtx3090-27b-int4"
	}
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "--endpoint" || a == "--base-url") && i+1 < len(args):
			out = append(out, a, s.start(preset))
			i++
		case a == "--model" && i+1 < len(args):
			i++ // the emulator's one model is the default
		default:
			out = append(out, a)
		}
	}
	if args[0] == "run" {
		out = append(out, "--dry-run")
	}
	return out
}

func (s *docServers) start(preset string) string {
	if b, ok := s.base[preset]; ok {
		return b
	}
	base, shutdown, err := sim.StartLocal(context.Background(), preset, 0)
	if err != nil {
		s.t.Fatalf("starting the %s emulator: %v", preset, err)
	}
	s.t.Cleanup(func() { shutdown(context.Background()) })
	s.base[preset] = base
	return base
}

// oneLine is s with its "# " comment marks dropped and its blanks collapsed.
func oneLine(s string) string {
	var words []string
	for _, w := range strings.Fields(s) {
		if w != "#" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

type docCommand struct {
	where, line, comment string
	output               string // "# llmbench: …" lines right after it: what it printed
	preset               string // the emulator its block names (doc-test marker)
	args                 []string
	next                 int // the line after it, where the docs may show its output
}

var docTestPreset = regexp.MustCompile(`<!-- doc-test: sim --preset (\S+) -->`)

// documentedCommands are the llmbench command lines of every ```sh block, with
// continuation lines joined and their trailing comments apart.
func documentedCommands(t *testing.T, root string) []docCommand {
	t.Helper()
	var cmds []docCommand
	for _, f := range docFiles(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, commandsIn(filepath.Base(f), string(data), 0)...)
	}
	return cmds
}

// commandsIn are the llmbench command lines of text's sh blocks; a command's where is
// name and its line, lineOffset added.
func commandsIn(name, text string, lineOffset int) []docCommand {
	var cmds []docCommand
	inSh := false
	var pending, preset, nextPreset string
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := docTestPreset.FindStringSubmatch(trimmed); m != nil {
			nextPreset = m[1]
		}
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inSh = !inSh && (trimmed == "```sh" || trimmed == "```bash")
			preset, nextPreset = nextPreset, ""
			continue
		case !inSh:
			continue
		}
		if pending != "" {
			trimmed = pending + " " + trimmed
			pending = ""
		}
		if strings.HasSuffix(trimmed, "\\") {
			pending = strings.TrimSuffix(trimmed, "\\")
			continue
		}
		if strings.HasPrefix(trimmed, "#") && len(cmds) > 0 && cmds[len(cmds)-1].next == i {
			// The line after a command showing what it printed: "# llmbench: … refuses …".
			// Lines from "# llmbench: …" on are its output, which it must print.
			last := &cmds[len(cmds)-1]
			last.comment += " " + trimmed
			if last.output != "" || strings.HasPrefix(trimmed, "# llmbench:") {
				last.output += strings.Replace(trimmed, "# llmbench:", "#", 1) + "\n"
			}
			last.next = i + 1
			continue
		}
		code, comment, _ := strings.Cut(trimmed, " #")
		words := shellWords(code)
		if len(words) < 1 || words[0] != "llmbench" {
			continue
		}
		cmds = append(cmds, docCommand{where: name + ":" + strconv.Itoa(i+1+lineOffset), line: trimmed, comment: comment, preset: preset, args: words[1:], next: i + 1})
	}
	return cmds
}

// runnable says how to run a documented command here, or why it is not run.
func runnable(args []string, root, seedRun, tmp string) ([]string, string) {
	if len(args) == 0 {
		return nil, "no command"
	}
	for _, a := range args {
		if strings.ContainsAny(a, "|<>$`…") || strings.Contains(a, "*") {
			return nil, "pipes, variables or globs"
		}
	}
	switch args[0] {
	case "calc", "report", "hw", "run", "probe":
	default:
		if args[len(args)-1] == "--help" {
			return args, ""
		}
		return nil, args[0] + " (needs a server, a site or time: tested on its own)"
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-o" || a == "--output" || a == "--out") && i+1 < len(args):
			out = append(out, a, filepath.Join(tmp, filepath.Base(args[i+1])))
			i++
			continue
		case a == ">":
			return out, ""
		case a == "--resume":
			return nil, "a run document the reader has (--resume: TestRunInterruptAndResume)"
		case a == "--rescore":
			return nil, "a run's events log (--rescore: TestReportRescoreReproducesAnEnergyRun)"
		case strings.HasSuffix(a, ".json") && args[0] == "report":
			if _, err := os.Stat(filepath.Join(root, a)); err != nil {
				a = seedRun // the docs' run.json: any run document will do
			} else {
				a = filepath.Join(root, a)
			}
		case strings.HasSuffix(a, ".gguf"), strings.HasSuffix(a, ".yaml"):
			return nil, "a file the reader brings"
		case strings.Contains(a, "/") && !strings.HasPrefix(a, "-") && i > 0 && slices.Contains([]string{"--config", "--dataset", "--trace", "--prompt-text"}, args[i-1]):
			a = filepath.Join(root, a)
		}
		out = append(out, a)
	}
	return out, ""
}

// shellWords splits a command line as sh would for the simple lines docs hold: blanks
// separate words, and single or double quotes group them.
func shellWords(s string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

// TestDocLinksResolve: every relative link in README.md and docs/ names a file or
// folder of the repository (a newcomer following one must not find nothing).
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	link := regexp.MustCompile(`\]\(([^)\s#]+)(#[^)\s]*)?\)`)
	checked := 0
	for _, f := range docFiles(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d relative links found: the extraction is broken", checked)
	}
}

// TestArchitectureListsEveryPackage: docs/ARCHITECTURE.md's package table names every
// package of the repository (a folder with Go files outside testdata) and no other.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\|").FindAllStringSubmatch(string(data), -1) {
		listed[m[1]] = true
	}
	found := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			found[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 20 {
		t.Fatalf("found only %d packages: the walk is broken", len(found))
	}
	for p := range found {
		if !listed[p] {
			t.Errorf("package %s is not in docs/ARCHITECTURE.md's table", p)
		}
	}
	for p := range listed {
		if !found[p] {
			t.Errorf("docs/ARCHITECTURE.md lists %s, which is not a package", p)
		}
	}
}
