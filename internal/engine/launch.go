package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Launched is an engine process started by Launch.
type Launched struct {
	// Command is the shell command line that started the server.
	Command string
	// Image is the container image the command runs, "" if none.
	Image string

	cmd     *exec.Cmd
	tail    *tailBuffer
	done    chan struct{}
	waitErr error
	stop    sync.Once
	stopErr error
}

// Launch starts command with sh -c in its own process group, copies its output to
// logw, and waits until base (the server root) answers /health or /v1/models with
// 200. If the process exits first, or timeout passes, or ctx ends, the process is
// stopped and the error carries the tail of its log.
func Launch(ctx context.Context, command string, base string, timeout time.Duration, logw io.Writer) (*Launched, error) {
	if strings.TrimSpace(command) == "" {
		return nil, errors.New("launch: empty command")
	}
	root, err := NormalizeBase(base)
	if err != nil {
		return nil, err
	}
	if logw == nil {
		logw = io.Discard
	}
	l := &Launched{Command: command, Image: ContainerImage(command), tail: newTailBuffer(64 << 10), done: make(chan struct{})}
	out := io.MultiWriter(logw, l.tail)
	l.cmd = exec.Command("sh", "-c", command)
	l.cmd.Stdout = out
	l.cmd.Stderr = out
	setProcessGroup(l.cmd)
	if err := l.cmd.Start(); err != nil {
		return nil, fmt.Errorf("launching %q: %w", command, err)
	}
	go func() {
		l.waitErr = l.cmd.Wait()
		close(l.done)
	}()

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if healthy(ctx, client, root) {
			return l, nil
		}
		select {
		case <-l.done:
			return nil, fmt.Errorf("the launched server exited before it was healthy (%v); last lines of its log:\n%s", l.waitErr, l.tail.lastLines(30))
		case <-deadline.C:
			l.Stop(context.Background())
			return nil, fmt.Errorf("the launched server did not answer %s/health or /v1/models within %s; last lines of its log:\n%s", root, timeout, l.tail.lastLines(30))
		case <-ctx.Done():
			l.Stop(context.Background())
			return nil, fmt.Errorf("launch interrupted while waiting for the server: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

func healthy(ctx context.Context, c *http.Client, root string) bool {
	for _, path := range []string{"/health", "/v1/models"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+path, nil)
		if err != nil {
			return false
		}
		resp, err := c.Do(req)
		if err != nil {
			return false // not listening yet: no point asking the second route
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return true
		}
	}
	return false
}

// Stop ends the server: SIGTERM to its process group, then SIGKILL if it has not
// exited when ctx ends or after 15 s. It is safe to call more than once.
func (l *Launched) Stop(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.stop.Do(func() {
		select {
		case <-l.done:
			return
		default:
		}
		terminate(l.cmd)
		grace := time.NewTimer(15 * time.Second)
		defer grace.Stop()
		select {
		case <-l.done:
		case <-grace.C:
			kill(l.cmd)
			<-l.done
		case <-ctx.Done():
			kill(l.cmd)
			<-l.done
		}
	})
	return l.stopErr
}

// Done is closed when the server process has exited.
func (l *Launched) Done() <-chan struct{} { return l.done }

// LogTail returns the last n lines the server wrote.
func (l *Launched) LogTail(n int) string { return l.tail.lastLines(n) }

// ContainerImage returns the image a `docker run …` or `podman run …` command line
// runs ("" when the command starts no container).
func ContainerImage(command string) string {
	toks := shellFields(command)
	for i := 0; i < len(toks); i++ {
		base := toks[i][strings.LastIndex(toks[i], "/")+1:]
		if base != "docker" && base != "podman" && base != "nerdctl" {
			continue
		}
		j := i + 1
		if j < len(toks) && toks[j] == "container" {
			j++
		}
		if j >= len(toks) || toks[j] != "run" {
			continue
		}
		for j++; j < len(toks); j++ {
			t := toks[j]
			if !strings.HasPrefix(t, "-") {
				return t
			}
			if strings.Contains(t, "=") {
				continue
			}
			if runValueFlags[t] {
				j++ // the flag's value
			}
		}
	}
	return ""
}

// runValueFlags are `docker run` options that take a separate value.
var runValueFlags = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`-e --env --env-file -p --publish -v --volume --mount --name --gpus --ipc
		--shm-size --network --net -w --workdir --entrypoint -u --user --runtime --device -l --label
		--platform -m --memory --memory-swap --cpus --cpuset-cpus --ulimit --add-host -h --hostname
		--restart --pull --cap-add --cap-drop --security-opt --log-driver --log-opt --tmpfs --pid
		--uts --userns --group-add --dns --expose --health-cmd --stop-signal --stop-timeout
		--volumes-from --device-cgroup-rule --cidfile --annotation`) {
		runValueFlags[f] = true
	}
}

// shellFields splits a command line on blanks, honouring single and double quotes
// and backslash line continuations (enough for launch commands, not a shell).
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	inTok := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			inTok = true
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				inTok = true
			}
		case r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|':
			if inTok {
				out = append(out, cur.String())
				cur.Reset()
				inTok = false
			}
		default:
			cur.WriteRune(r)
			inTok = true
		}
	}
	if inTok {
		out = append(out, cur.String())
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
