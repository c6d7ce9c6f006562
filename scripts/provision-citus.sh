#!/usr/bin/env bash
# Builds and installs Citus (distributed PostgreSQL, issue 17) into the machine's PostgreSQL
# from the vendored source (../shared/vendor/citus: release 13.2.2, AGPL-3.0, with its README's
# one-line patch for PostgreSQL 15.20+). Citus is not among Debian's packages.
# Idempotent: exits at once when this Citus version is already installed for that PostgreSQL.
# Only installs the extension's files: no server is changed (scripts/citus-cluster.sh starts a
# private cluster that loads it).
#
# Env: CITUS_SOURCE (the vendor folder; default ../shared/vendor/citus beside the repository,
#      else /work/shared/vendor/citus); PG_CONFIG (/usr/lib/postgresql/15/bin/pg_config).
set -euo pipefail
cd "$(dirname "$0")/.."

version=13.2.2
pg_config="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
stamp_of() { echo "$("$pg_config" --sharedir)/extension/engram-citus.version"; }

if [ -x "$pg_config" ] && [ -f "$("$pg_config" --pkglibdir)/citus.so" ] && [ "$(cat "$(stamp_of)" 2>/dev/null)" = "$version" ]; then
  echo "citus: ${version} already installed for $("$pg_config" --version)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "citus ${version} is not installed and installing it needs root (apt-get, make install). Run: sudo $0" >&2
  exit 1
fi

source_dir="${CITUS_SOURCE:-}"
if [ -z "$source_dir" ]; then
  for candidate in ../shared/vendor/citus /work/shared/vendor/citus; do
    if [ -f "$candidate/citus-${version}.tar.gz" ]; then source_dir="$candidate"; break; fi
  done
fi
tarball="${source_dir}/citus-${version}.tar.gz"
if [ ! -f "$tarball" ]; then
  echo "citus: no source at ${tarball:-../shared/vendor/citus/citus-${version}.tar.gz}; set CITUS_SOURCE to the vendor folder" >&2
  exit 1
fi
source_dir=$(cd "$source_dir" && pwd)
tarball="${source_dir}/citus-${version}.tar.gz"
# The vendor README gives the archive's sha256: refuse anything else.
echo "dd2453caec20a830e5e63f1def5c5a98cb6f57ae510407cdcd800916fcdab430  ${tarball}" | sha256sum -c --quiet

export DEBIAN_FRONTEND=noninteractive
major=$("$pg_config" --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/' || echo 15)
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-${major}" build-essential liblz4-dev libzstd-dev libkrb5-dev \
  libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev libcurl4-openssl-dev >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$tarball" -C "$work"
cd "$work/citus-${version}"
patch -s -p1 <"${source_dir}/pg15-have-createdb-privilege.patch"
echo "citus: building ${version} for PostgreSQL ${major} (about 3 minutes on 2 cores)"
./configure -q --without-libcurl PG_CONFIG="$pg_config" >/dev/null
make -s -j"$(nproc)" >/dev/null 2>&1 || make -s >/dev/null
make -s install >/dev/null
echo "$version" >"$(stamp_of)"
echo "citus: ${version} installed"
