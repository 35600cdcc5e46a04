# Debian packages the tests need, one per line in .ci/apt-packages. Installed once.
pkgs=$(grep -v '^\s*#' .ci/apt-packages | xargs)
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
fi
