#!/usr/bin/env bash
# A private Citus cluster (issue 17): a coordinator and two workers on one machine, each its own
# PostgreSQL data directory and port under CITUS_DIR, with Citus and pgvector on every node. It
# never touches the machine's shared PostgreSQL (5432). Needs Citus installed
# (scripts/provision-citus.sh) and pgvector (scripts/provision-pgvector.sh).
#
#   scripts/citus-cluster.sh start    # idempotent; prints the coordinator's superuser URL
#   scripts/citus-cluster.sh stop     # idempotent
#   scripts/citus-cluster.sh url      # the coordinator's URL
#   scripts/citus-cluster.sh status   # exit 0 when all three nodes answer
#   scripts/citus-cluster.sh clean    # stop, then remove CITUS_DIR
#
# Ports are chosen at the first start (free ones, by binding port 0) and kept in CITUS_DIR. The
# database is `postgres`; trust authentication on 127.0.0.1 only. The settings are PostgreSQL's
# defaults (shared_buffers 128 MB) but for what Citus needs (shared_preload_libraries) and a
# throwaway cluster's fsync=off.
#
# Env: CITUS_DIR (default ${TMPDIR:-/tmp}/engram-citus); PG_BIN (/usr/lib/postgresql/15/bin).
# PostgreSQL refuses to run as root: as root the nodes run as the OS user `postgres`.
set -euo pipefail

dir="${CITUS_DIR:-${TMPDIR:-/tmp}/engram-citus}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
nodes=(coordinator worker1 worker2)
mkdir -p "$dir"
chmod 755 "$dir"

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_of() {
  local file="$dir/$1.port"
  if [ ! -s "$file" ]; then
    node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });' >"$file"
  fi
  cat "$file"
}

data_of() { echo "$dir/$1/data"; }
ready() { pg_isready -q -h 127.0.0.1 -p "$(port_of "$1")"; }
psql_on() { local node="$1"; shift; psql -XtAq -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(port_of "$node")" -U postgres -d postgres "$@"; }
url() { echo "postgres://postgres@127.0.0.1:$(port_of coordinator)/postgres"; }

wait_ready() {
  for _ in $(seq 1 150); do
    if ready "$1"; then return 0; fi
    sleep 0.2
  done
  echo "citus-cluster: $1 did not start (log: $dir/$1/postgres.log)" >&2
  return 1
}

start_node() {
  local node="$1" data
  data="$(data_of "$node")"
  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$dir/$node"
    if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir/$node"; fi
    as_pg "$pg_bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/$node-initdb.log"
  fi
  if ! as_pg "$pg_bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$pg_bin/pg_ctl" -D "$data" -l "$dir/$node/postgres.log" -w -t 60 \
      -o "-p $(port_of "$node") -k $dir/$node -c listen_addresses=127.0.0.1 -c fsync=off -c shared_preload_libraries=citus -c max_connections=100" \
      start >/dev/null
  fi
  wait_ready "$node"
  # Once a worker is in the cluster, DDL there is refused: create the extensions only on a new node.
  for ext in citus vector; do
    if [ "$(psql_on "$node" -c "select count(*) from pg_extension where extname = '$ext'")" = 0 ]; then
      psql_on "$node" -c "create extension $ext" >/dev/null
    fi
  done
}

start() {
  for node in "${nodes[@]}"; do start_node "$node"; done
  psql_on coordinator -c "select citus_set_coordinator_host('127.0.0.1', $(port_of coordinator))" >/dev/null
  for worker in worker1 worker2; do
    local port
    port=$(port_of "$worker")
    if [ "$(psql_on coordinator -c "select count(*) from pg_dist_node where nodeport = $port")" = 0 ]; then
      psql_on coordinator -c "select citus_add_node('127.0.0.1', $port)" >/dev/null
    fi
  done
  url
}

stop() {
  for node in "${nodes[@]}"; do
    local data
    data="$(data_of "$node")"
    if [ -f "$data/PG_VERSION" ] && as_pg "$pg_bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
      as_pg "$pg_bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null
    fi
  done
}

status() {
  for node in "${nodes[@]}"; do ready "$node" || return 1; done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  status) status ;;
  clean) stop; rm -rf "$dir" ;;
  *) echo "usage: $0 start|stop|url|status|clean" >&2; exit 2 ;;
esac
