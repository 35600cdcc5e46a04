#!/usr/bin/env bash
# A user's machine has the repository and Go, nothing else: no ../shared beside the
# checkout, no PostgreSQL URL, no Chromium, no Ollama, CI unset. This clones the
# committed tree into an empty folder and runs the README's two commands there with an
# environment of only Go, so a test that reads a file outside the repository, or that
# fails instead of skipping without a service, fails CI. Run by .ci/run; runnable alone.
set -euo pipefail
cd "$(dirname "$0")/.."
go=$(command -v go)
gocache=$(go env GOCACHE)
gomodcache=$(go env GOMODCACHE)
gopath=$(go env GOPATH)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q . "$dir/llmbench"
cd "$dir/llmbench"
# No LLMBENCH_* service variables; a Chromium path that does not exist, so the browser
# tests take the path a machine without Chromium takes (skip with a message).
only_go=(env -i "HOME=$HOME" "PATH=$(dirname "$go"):/usr/bin:/bin" "GOCACHE=$gocache" "GOMODCACHE=$gomodcache"
	"GOPATH=$gopath" "GOFLAGS=${GOFLAGS:-}" "TMPDIR=${TMPDIR:-/tmp}" LLMBENCH_CHROMIUM=/nonexistent/chromium)
echo "fresh clone in $dir/llmbench (nothing beside it); environment: only Go"
status=0
"${only_go[@]}" go test ./... >"$dir/test.log" 2>&1 || status=$?
tail -n 40 "$dir/test.log"
if [ "$status" -ne 0 ]; then
	# The tail may not reach the failing package: say which tests failed and why.
	echo "fresh clone: go test ./... failed (exit $status); the failures:"
	grep -E -A12 '^(--- FAIL|FAIL|panic:)' "$dir/test.log" | head -n 200
	exit "$status"
fi
echo "fresh clone: go test ./... passed; what skipped for want of a service (count, message):"
"${only_go[@]}" go test -count=1 -v ./internal/site/... ./internal/report/... ./e2e 2>&1 |
	grep -iE '^\s+[a-z_]+\.go:[0-9]+: .*(skip|not set)' | sed -E 's/^\s+[a-z_]+\.go:[0-9]+: //' | sort | uniq -c || true
