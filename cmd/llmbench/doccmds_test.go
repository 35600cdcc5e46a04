package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocumentedCommandsRun runs every llmbench command that README.md and docs/
// show in a sh block and that needs neither a GPU, a server nor a file the reader must
// bring: calc, report (a run document named in the docs is the seed's), hw, --help.
// A command the docs say is refused must fail. The others are listed with why they
// are not run here (run, probe, serve, submit … are run by their own tests).
func TestDocumentedCommandsRun(t *testing.T) {
	root := filepath.Join("..", "..")
	seedRun := filepath.Join(root, "internal", "seed", "seed-run.json")
	ran, notRun := 0, map[string]int{}
	for _, dc := range documentedCommands(t, root) {
		args, why := runnable(dc.args, root, seedRun, t.TempDir())
		if why != "" {
			notRun[why]++
			continue
		}
		ran++
		out, err := runCmd(t, args...)
		refused := regexp.MustCompile(`(?i)refus`).MatchString(dc.comment)
		switch {
		case refused && err == nil:
			t.Errorf("%s: %q is documented as refused but ran:\n%s", dc.where, dc.line, out)
		case !refused && err != nil:
			t.Errorf("%s: %q failed: %v\n%s", dc.where, dc.line, err, out)
		}
	}
	t.Logf("ran %d documented commands; not run here: %v", ran, notRun)
	if ran < 15 {
		t.Fatalf("only %d documented commands ran: the extraction is broken", ran)
	}
}

type docCommand struct {
	where, line, comment string
	args                 []string
	next                 int // the line after it, where the docs may show its output
}

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
		inSh := false
		var pending string
		for i, line := range strings.Split(string(data), "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(trimmed, "```"):
				inSh = !inSh && (trimmed == "```sh" || trimmed == "```bash")
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
				cmds[len(cmds)-1].comment += " " + trimmed
				continue
			}
			code, comment, _ := strings.Cut(trimmed, " #")
			words := shellWords(code)
			if len(words) < 1 || words[0] != "llmbench" {
				continue
			}
			cmds = append(cmds, docCommand{where: filepath.Base(f) + ":" + strconv.Itoa(i+1), line: trimmed, comment: comment, args: words[1:], next: i + 1})
		}
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
	case "calc", "report", "hw":
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
		case strings.HasSuffix(a, ".json") && args[0] == "report":
			if _, err := os.Stat(filepath.Join(root, a)); err != nil {
				a = seedRun // the docs' run.json: any run document will do
			} else {
				a = filepath.Join(root, a)
			}
		case strings.HasSuffix(a, ".gguf"), strings.HasSuffix(a, ".yaml"):
			return nil, "a file the reader brings"
		case strings.Contains(a, "/") && !strings.HasPrefix(a, "-") && i > 0 && (args[i-1] == "--config"):
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
