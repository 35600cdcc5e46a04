package session

import (
	"net"
	"net/url"
	"strconv"
)

// IsLocal says whether the server answers on this machine's loopback.
func IsLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// ServerPort is the port of a local server's endpoint (0 when it is not local).
func ServerPort(base string) int {
	u, err := url.Parse(base)
	if err != nil || !IsLocal(base) {
		return 0
	}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}
