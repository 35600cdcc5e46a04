# Ollama, a real engine (llama.cpp inside), for the end-to-end test in e2e/: built from
# the Go module proxy, reused when the right version is already there. Sourced by
# .ci/run (bash, set -euo pipefail, cwd = repo root); exports LLMBENCH_OLLAMA.
#
# Why these flags: the cgo build compiles llama.cpp's CPU kernels. Without -march they
# have no SIMD and prefill runs ~10x slower; -march=native fails to link on CPUs with
# AMX; x86-64-v3 (AVX2, FMA, F16C) is what every recent x86 CPU runs. Newer versions
# of the module do not build from the proxy (headers they vendor are not in it). The
# -X flag makes the binary report its version (otherwise 0.0.0).
llmbench_ollama_version=0.6.5
llmbench_ollama_dir=$(go env GOBIN)
[ -n "$llmbench_ollama_dir" ] || llmbench_ollama_dir="$(go env GOPATH)/bin"
llmbench_ollama_bin="$llmbench_ollama_dir/ollama"

# OLLAMA_HOST points at a port nothing listens on, so that --version prints the
# client's own version rather than a running server's.
if OLLAMA_HOST=127.0.0.1:9 "$llmbench_ollama_bin" --version 2>&1 | grep -q "client version is $llmbench_ollama_version\$"; then
	echo "ollama $llmbench_ollama_version: reusing $llmbench_ollama_bin"
else
	llmbench_ollama_march=""
	if [ "$(uname -m)" = x86_64 ]; then
		llmbench_ollama_march="-march=x86-64-v3"
	fi
	echo "ollama $llmbench_ollama_version: building from the Go module proxy (cgo, -O3 $llmbench_ollama_march; a few minutes)"
	llmbench_ollama_start=$(date +%s)
	# In a temporary directory so that this repository's go.mod is not touched.
	(
		cd "$(mktemp -d)"
		CGO_ENABLED=1 \
			CGO_CFLAGS="-O3 $llmbench_ollama_march" \
			CGO_CXXFLAGS="-O3 $llmbench_ollama_march" \
			GOFLAGS=-mod=mod \
			go install -ldflags "-X github.com/ollama/ollama/version.Version=$llmbench_ollama_version" \
			"github.com/ollama/ollama@v$llmbench_ollama_version"
	)
	echo "ollama $llmbench_ollama_version: built in $(($(date +%s) - llmbench_ollama_start))s"
fi
export LLMBENCH_OLLAMA="$llmbench_ollama_bin"
unset llmbench_ollama_version llmbench_ollama_dir llmbench_ollama_bin llmbench_ollama_march llmbench_ollama_start
