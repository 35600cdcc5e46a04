package hw

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Which GPU processes are the server's. A process on a counted GPU that was not there
// when the run began voids the energy figures, unless it descends from the server: a
// GPU process present at the start, or the process listening on the server's port
// (Ollama starts its model runner, a child of `ollama serve`, on the first request).
// Linux only, read from root/proc; elsewhere every new process counts as foreign.

// parentPID reads a process's parent from root/proc/PID/stat.
func parentPID(root string, pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join(root, "proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// descendsFrom reports whether pid is one of ancestors or their descendant.
func descendsFrom(root string, pid int, ancestors map[int]bool) bool {
	for range 64 { // a chain longer than this is not a process tree
		if ancestors[pid] {
			return true
		}
		ppid, ok := parentPID(root, pid)
		if !ok || ppid <= 1 || ppid == pid {
			return false
		}
		pid = ppid
	}
	return false
}

// listeningPIDs finds the processes holding a listening TCP socket on port, from
// root/proc/net/tcp{,6} and the processes' file descriptors (readable for this user's
// processes, or all as root).
func listeningPIDs(root string, port int) []int {
	if port <= 0 {
		return nil
	}
	inodes := map[string]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(root, "proc/net", name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); ok && err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return nil
	}
	var pids []int
	dirs, _ := filepath.Glob(filepath.Join(root, "proc/[0-9]*/fd"))
	for _, d := range dirs {
		fds, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(d, fd.Name())); err == nil && inodes[link] {
				if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}
