#!/usr/bin/env bash
# Before `npm test`: the medium tests need PostgreSQL (with pgvector), Redis, a chromium and
# Debian's Python 3 with httpx, pytest and setuptools (the Python client's suite).
# Checks they are there; installs pgvector when the server lacks it (scripts/provision-pgvector.sh)
# and Debian's chromium and Python packages when they are missing (both need root).
#
# Env: TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), an owner/superuser URL;
#      TEST_REDIS_URL (redis://127.0.0.1:6379); CHROMIUM_PATH (/usr/bin/chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

db_url="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
redis_url="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

if ! psql "$db_url" -XtAqc 'select 1' >/dev/null 2>&1; then
  echo "test-services: PostgreSQL does not answer at $db_url (set TEST_DATABASE_URL, or start it)" >&2
  exit 1
fi
if ! psql "$db_url" -XtAqc "select 1 from pg_available_extensions where name = 'vector'" | grep -q 1; then
  echo "test-services: pgvector is missing; installing it"
  # The provisioning script reads the server from PGHOST/PGPORT/PGUSER.
  eval "$(node -e '
    const u = new URL(process.argv[1]);
    console.log(`export PGHOST=${u.hostname || "127.0.0.1"} PGPORT=${u.port || 5432} PGUSER=${decodeURIComponent(u.username) || "postgres"}`);
  ' "$db_url")"
  scripts/provision-pgvector.sh
fi

node -e '
  const net = require("node:net");
  const u = new URL(process.argv[1]);
  const s = net.connect(Number(u.port || 6379), u.hostname || "127.0.0.1");
  s.setTimeout(2000);
  s.on("connect", () => s.write("PING\r\n"));
  s.on("data", (d) => { s.end(); process.exit(String(d).startsWith("+PONG") || String(d).startsWith("-NOAUTH") ? 0 : 1); });
  s.on("error", () => process.exit(1));
  s.on("timeout", () => process.exit(1));
' "$redis_url" || { echo "test-services: Redis does not answer at $redis_url (set TEST_REDIS_URL, or start it)" >&2; exit 1; }

# test/citus.test.ts needs Citus (it starts a private cluster): built from the vendored source when
# it is missing and we are root (about 5 minutes, once); without the source that suite skips itself.
pg_config_bin="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
if [ -x "$pg_config_bin" ] && [ ! -f "$("$pg_config_bin" --pkglibdir)/citus.so" ]; then
  if [ "$(id -u)" = 0 ] && { [ -f ../shared/vendor/citus/citus-13.2.2.tar.gz ] || [ -f /work/shared/vendor/citus/citus-13.2.2.tar.gz ] || [ -n "${CITUS_SOURCE:-}" ]; }; then
    echo "test-services: Citus is missing; building it (scripts/provision-citus.sh, about 5 minutes)"
    scripts/provision-citus.sh
  else
    echo "test-services: Citus is not installed (scripts/provision-citus.sh, as root); test/citus.test.ts will fail or skip" >&2
  fi
fi

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ] && [ "$chromium" = /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test-services: chromium is missing; installing Debian's package"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
if [ ! -x "$chromium" ]; then
  echo "test-services: no chromium at $chromium: the admin dashboard's browser test needs it" >&2
  echo "  (Debian/Ubuntu: apt-get install -y --no-install-recommends chromium; or set CHROMIUM_PATH)" >&2
  exit 1
fi

# test/python-client.test.ts runs /usr/bin/python3 (never a pyenv or virtualenv one): Debian's
# packages only, nothing from PyPI.
python_modules_present() { /usr/bin/python3 -c 'import httpx, pytest, setuptools' >/dev/null 2>&1; }
python_packages="python3 python3-httpx python3-pytest python3-setuptools"
if ! python_modules_present && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test-services: Debian's python3-httpx, python3-pytest or python3-setuptools is missing; installing them"
  # shellcheck disable=SC2086 # the list is meant to split
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $python_packages >/dev/null
fi
if ! python_modules_present; then
  echo "test-services: /usr/bin/python3 cannot import httpx, pytest and setuptools: the Python client's tests need them" >&2
  echo "  (Debian/Ubuntu: apt-get install -y --no-install-recommends $python_packages)" >&2
  exit 1
fi
