#!/usr/bin/env bash
# A private Redis Cluster (issue 17 §4): three masters, no replicas, on one machine, each
# redis-server with its own port, cluster config file, pid file and log under REDIS_CLUSTER_DIR.
# No persistence (a restart comes back empty). It never touches the machine's shared Redis (6379).
#
#   scripts/redis-cluster.sh start    # idempotent; prints REDIS_URL (the three nodes, comma-separated)
#   scripts/redis-cluster.sh stop     # idempotent; the cluster's state goes with it (start makes a new one)
#   scripts/redis-cluster.sh url      # the REDIS_URL of the cluster
#   scripts/redis-cluster.sh status   # exit 0 when every node answers and the cluster is ok
#   scripts/redis-cluster.sh clean    # stop, then remove REDIS_CLUSTER_DIR
#
# Use it with REDIS_CLUSTER=true REDIS_URL="$(scripts/redis-cluster.sh start)".
# Ports (a client port and a cluster-bus port per node) are chosen at the first start (free
# ones, by binding port 0) and kept in REDIS_CLUSTER_DIR. Needs redis-server ≥ 7 (--cluster-port).
#
# Env: REDIS_CLUSTER_DIR (default ${TMPDIR:-/tmp}/engram-redis-cluster).
set -euo pipefail

dir="${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/engram-redis-cluster}"
nodes=(node1 node2 node3)
mkdir -p "$dir"

usage() {
  echo "usage: $0 start|stop|url|status|clean" >&2
  exit 2
}

port_of() {
  local file="$dir/$1.port"
  if [ ! -s "$file" ]; then
    local port
    # Never 6379, the shared Redis, even if it happens to be free now.
    while :; do
      port="$(node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
      [ "$port" != 6379 ] && break
    done
    echo "$port" >"$file"
  fi
  cat "$file"
}

cli() { local node="$1"; shift; redis-cli -h 127.0.0.1 -p "$(port_of "$node")" "$@"; }
node_up() { cli "$1" ping >/dev/null 2>&1; }
node_down() { ! node_up "$1"; }
cluster_ok() { cli node1 cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }
all_ok() {
  for n in "${nodes[@]}"; do node_up "$n" || return 1; done
  cluster_ok
}
# Every master knows the others (the cluster bus has gossiped): what a client's CLUSTER SLOTS needs.
all_known() {
  for n in "${nodes[@]}"; do
    [ "$(cli "$n" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_known_nodes://p')" = "${#nodes[@]}" ] || return 1
    cli "$n" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  done
}

url() {
  local urls=()
  for n in "${nodes[@]}"; do urls+=("redis://127.0.0.1:$(port_of "$n")"); done
  (IFS=,; echo "${urls[*]}")
}

wait_until() {
  local what="$1"; shift
  for _ in $(seq 1 150); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  echo "redis-cluster: timed out waiting for $what (logs: $dir/*.log)" >&2
  return 1
}

start_node() {
  local n="$1"
  node_up "$n" && return 0
  # A cluster config file from an earlier run names node ids and slots of a cluster that is
  # gone (nothing was persisted): start from a blank one, and create the cluster again.
  rm -f "$dir/$n.nodes.conf"
  # The cluster bus gets a port of its own too: the default, port + 10000, may be taken or
  # past 65535.
  redis-server --port "$(port_of "$n")" --cluster-port "$(port_of "$n-bus")" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-config-file "$dir/$n.nodes.conf" --cluster-node-timeout 5000 \
    --save '' --appendonly no --daemonize yes \
    --pidfile "$dir/$n.pid" --logfile "$dir/$n.log" --dir "$dir" >/dev/null
  wait_until "$n to answer" node_up "$n"
}

start() {
  if all_ok; then url; return 0; fi
  for n in "${nodes[@]}"; do start_node "$n"; done
  if ! cluster_ok; then
    # Blank nodes, or a half-made cluster (a node that restarted alone): make every node blank
    # (a reset needs an empty node) and create the cluster anew.
    for n in "${nodes[@]}"; do cli "$n" flushall >/dev/null; cli "$n" cluster reset hard >/dev/null; done
    local addrs=()
    for n in "${nodes[@]}"; do addrs+=("127.0.0.1:$(port_of "$n")"); done
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 || {
      cat "$dir/create.log" >&2
      exit 1
    }
  fi
  wait_until "the cluster to be ok on every node" all_known
  url
}

stop() {
  for n in "${nodes[@]}"; do
    if [ -s "$dir/$n.pid" ]; then
      # Only the servers this script started, by their pids.
      kill "$(cat "$dir/$n.pid")" 2>/dev/null || true
      wait_until "$n to stop" node_down "$n"
      rm -f "$dir/$n.pid"
    fi
  done
}

[ $# -eq 1 ] || usage
case "$1" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  status) all_ok ;;
  clean) stop; rm -rf "$dir" ;;
  *) usage ;;
esac
