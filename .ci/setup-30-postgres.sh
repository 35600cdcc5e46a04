# Sourced by .ci/run: start Debian's PostgreSQL cluster and export the URL the site's
# store tests use (LLMBENCH_TEST_POSTGRES_URL). Idempotent: reuses a running cluster,
# an existing role and database.
if ! command -v pg_lsclusters >/dev/null 2>&1; then
	echo "setup-30-postgres: PostgreSQL is not installed (apt package postgresql); its store tests will be skipped"
else
	pg_version=$(ls /usr/lib/postgresql | sort -n | tail -1)
	if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$pg_version main"; then
		pg_createcluster "$pg_version" main
	fi
	if ! pg_lsclusters -h | awk '$1=="'"$pg_version"'" && $2=="main" {print $4}' | grep -q online; then
		pg_ctlcluster "$pg_version" main start
	fi
	pg_port=$(pg_lsclusters -h | awk '$1=="'"$pg_version"'" && $2=="main" {print $3}')
	pg_psql() { su postgres -c "psql -p $pg_port -tAq $*"; }
	for _ in $(seq 1 30); do
		pg_psql "-c 'SELECT 1'" >/dev/null 2>&1 && break
		sleep 1
	done
	if [ "$(pg_psql "-c \"SELECT 1 FROM pg_roles WHERE rolname='llmbench'\"")" != "1" ]; then
		pg_psql "-c \"CREATE ROLE llmbench LOGIN PASSWORD 'llmbench' CREATEDB\""
	fi
	if [ "$(pg_psql "-c \"SELECT 1 FROM pg_database WHERE datname='llmbench_test'\"")" != "1" ]; then
		pg_psql "-c \"CREATE DATABASE llmbench_test OWNER llmbench\""
	fi
	export LLMBENCH_TEST_POSTGRES_URL="postgres://llmbench:llmbench@127.0.0.1:${pg_port}/llmbench_test?sslmode=disable"
	echo "setup-30-postgres: PostgreSQL $pg_version on port $pg_port; LLMBENCH_TEST_POSTGRES_URL set"
fi
