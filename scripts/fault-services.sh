#!/usr/bin/env bash
# Private PostgreSQL and Redis instances that a fault test may stop, start and restart
# (test/faults.test.ts; issue 8 "faults against the real services"). They never touch the
# machine's shared PostgreSQL (5432) or Redis (6379): each instance lives under FAULT_DIR, on a
# port chosen at its first start and kept there, so a restart comes back at the same URL (what a
# client that reconnects by itself needs).
#
#   scripts/fault-services.sh redis|postgres start|stop|restart|url|status
#   scripts/fault-services.sh all clean        # stops both, removes FAULT_DIR
#
# start, stop and restart are idempotent; start, restart and url print the instance's URL on
# stdout (postgres: a superuser URL to the `postgres` database, trust authentication on
# 127.0.0.1 only). status exits 0 when the instance answers, 1 when not.
#
# Env: FAULT_DIR (default ${TMPDIR:-/tmp}/engram-faults): where the instances keep their data,
#      ports, pid files and logs. PG_BIN (/usr/lib/postgresql/15/bin): initdb and pg_ctl; the
#      cluster finds pgvector where scripts/provision-pgvector.sh installed it for that version.
#
# PostgreSQL refuses to run as root: as root the cluster runs as the OS user `postgres`.
set -euo pipefail

dir="${FAULT_DIR:-${TMPDIR:-/tmp}/engram-faults}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
mkdir -p "$dir"
# The postgres user must traverse it to reach its own subdirectories.
chmod 755 "$dir"

usage() {
  echo "usage: $0 redis|postgres start|stop|restart|url|status, or: $0 all clean" >&2
  exit 2
}

# The instance's port: chosen once (a free one, by binding port 0), then kept in FAULT_DIR.
port_of() {
  local file="$dir/$1.port"
  if [ ! -s "$file" ]; then
    node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });' >"$file"
  fi
  cat "$file"
}

wait_until() {
  local what="$1"; shift
  for _ in $(seq 1 100); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  echo "fault-services: timed out waiting for $what" >&2
  return 1
}

# --- Redis: a daemonised redis-server without persistence (a restart comes back empty, as a
# cache-only Redis does after a crash or failover).
redis_up() { redis-cli -h 127.0.0.1 -p "$(port_of redis)" ping >/dev/null 2>&1; }
redis_down() { ! redis_up; }
redis_url() { echo "redis://127.0.0.1:$(port_of redis)"; }

redis_start() {
  if ! redis_up; then
    redis-server --port "$(port_of redis)" --bind 127.0.0.1 --save '' --appendonly no \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" >/dev/null
    wait_until "redis to answer" redis_up
  fi
  redis_url
}

redis_stop() {
  if [ -s "$dir/redis.pid" ]; then
    # Only the instance this script started, by its pid.
    kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
    wait_until "redis to stop" redis_down
    rm -f "$dir/redis.pid"
  fi
}

# --- PostgreSQL: a cluster of its own (initdb at first start), run by pg_ctl.
pg_data="$dir/pg/data"
pg_run="$dir/pg/run"

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_up() { as_pg "$pg_bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; }
pg_ready() { pg_isready -q -h 127.0.0.1 -p "$(port_of postgres)"; }
pg_url() { echo "postgres://postgres@127.0.0.1:$(port_of postgres)/postgres"; }

pg_init() {
  [ -f "$pg_data/PG_VERSION" ] && return 0
  mkdir -p "$dir/pg" "$pg_run"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir/pg"; fi
  as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/pg-initdb.log"
}

pg_start() {
  pg_init
  if ! pg_up; then
    # fsync off: a test cluster, thrown away; restarts are clean shutdowns anyway.
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_run/postgres.log" -w -t 30 \
      -o "-p $(port_of postgres) -k $pg_run -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60" start >/dev/null
  fi
  wait_until "postgres to accept connections" pg_ready
  pg_url
}

pg_stop() {
  if [ -f "$pg_data/PG_VERSION" ] && pg_up; then
    # Fast: open sessions are terminated (57P01), as in a real restart of the server.
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w -t 30 stop >/dev/null
  fi
}

[ $# -eq 2 ] || usage
case "$1:$2" in
  redis:start) redis_start ;;
  redis:stop) redis_stop ;;
  redis:restart) redis_stop; redis_start ;;
  redis:url) redis_url ;;
  redis:status) redis_up ;;
  postgres:start) pg_start ;;
  postgres:stop) pg_stop ;;
  postgres:restart) pg_stop; pg_start ;;
  postgres:url) pg_url ;;
  postgres:status) pg_ready ;;
  all:clean) redis_stop; pg_stop; rm -rf "$dir" ;;
  *) usage ;;
esac
