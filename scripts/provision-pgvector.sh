#!/usr/bin/env bash
# Installs pgvector into the machine's PostgreSQL server by building Debian's own source package
# (bookworm ships no pgvector package; trixie's source builds cleanly against PG 15).
# Idempotent: exits at once when the server already offers the `vector` extension.
#
# Env: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres) say which server to check.
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"

has_vector() {
  psql -XtAq -d postgres -c "select 1 from pg_available_extensions where name = 'vector'" 2>/dev/null | grep -q 1
}

if has_vector; then
  echo "pgvector: already available on ${PGHOST}:${PGPORT}"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "pgvector is missing on ${PGHOST}:${PGPORT} and installing it needs root (apt-get, make install)." >&2
  echo "Run: sudo $0" >&2
  exit 1
fi

# The server's major version decides which dev headers and pg_config to build against.
major=$(psql -XtAq -d postgres -c "show server_version_num" | cut -c1-2)
echo "pgvector: building for PostgreSQL ${major}"

export DEBIAN_FRONTEND=noninteractive
src_list=/etc/apt/sources.list.d/engram-trixie-src.sources
if [ ! -f "$src_list" ]; then
  cat >"$src_list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-${major}" build-essential dpkg-dev >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source -qq pgvector >/dev/null
cd "$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
make -s PG_CONFIG="/usr/lib/postgresql/${major}/bin/pg_config" OPTFLAGS="" >/dev/null
make -s PG_CONFIG="/usr/lib/postgresql/${major}/bin/pg_config" install >/dev/null

if has_vector; then
  echo "pgvector: installed"
else
  echo "pgvector: built and installed, but the server still does not list it" >&2
  exit 1
fi
