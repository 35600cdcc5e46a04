# Headless Chromium for the browser tests of the html report and the site
# (internal/browsertest). setup-00-apt.sh installs the Debian package "chromium" (and a
# Japanese font, so Japanese screenshots show glyphs rather than boxes); this script
# tells the tests where the browser is and where to save their screenshots.
if [ -z "${LLMBENCH_CHROMIUM:-}" ]; then
	for c in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
		if [ -x "$c" ]; then
			export LLMBENCH_CHROMIUM="$c"
			break
		fi
	done
fi
if [ -z "${LLMBENCH_CHROMIUM:-}" ]; then
	echo "setup-20-chromium: no Chromium found; the browser tests will fail under CI=true" >&2
else
	echo "chromium: $LLMBENCH_CHROMIUM ($("$LLMBENCH_CHROMIUM" --version 2>/dev/null | head -n1))"
fi
export LLMBENCH_ARTIFACTS="${LLMBENCH_ARTIFACTS:-${TMPDIR:-/tmp}/llmbench-artifacts}"
mkdir -p "$LLMBENCH_ARTIFACTS"
echo "browser test screenshots: $LLMBENCH_ARTIFACTS"
