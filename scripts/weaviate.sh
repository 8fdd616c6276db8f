#!/usr/bin/env bash
# Runs a real Weaviate server on loopback for ctx's integration tests and CI.
#
#   scripts/weaviate.sh start [--nodes 1|3] [--dir DIR]
#       Builds the server if it is not cached, starts one node or a 3-node
#       cluster on 127.0.0.1, waits until it is ready and prints
#       CTX_WEAVIATE_URL=http://127.0.0.1:PORT as the last line of stdout
#       (progress goes to stderr). If DIR already runs a live cluster its URL
#       is printed again and nothing new starts.
#   scripts/weaviate.sh stop [--dir DIR]
#       Stops every node started in DIR (SIGTERM, SIGKILL after 10 s) and
#       removes their data; exits 0 when nothing runs.
#   scripts/weaviate.sh stop-node N [--dir DIR]
#       Stops node N (0-based) only, to check that a cluster answers with a
#       node down.
#   scripts/weaviate.sh build
#       Builds and caches the server only, and prints the binary's path.
#
# The server is built from the tools module in scripts/weaviate (its go.mod
# pins the version) into
#   ${CTX_WEAVIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx/weaviate}/VERSION/weaviate-server
# A cold build takes minutes and a few GB of module and build caches; later
# runs reuse the binary. DIR defaults to
#   ${CTX_WEAVIATE_STATE:-${TMPDIR:-/tmp}/ctx-weaviate-$(id -u)}
# and holds the pids, ports, data directories and logs (DIR/nodeN.log).
#
# The server flushes its memtables 2 s after their first write instead of
# its default 60 s, and never keeps a small memtable in a reused WAL:
# Weaviate's BM25 ranks by the objects flushed to segments, so
# `ctx index --backend weaviate` waits after writing until they are
# counted (a minute on a server with the defaults). Set
# PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS or
# PERSISTENCE_MAX_REUSE_WAL_SIZE in the environment to override.
#
# Every port is picked free at start, so runs with different DIRs coexist.
# Weaviate binds the gRPC port and the cluster data port on all interfaces,
# not only on 127.0.0.1 (pprof too, which is why it is disabled here): send
# traffic to 127.0.0.1 only.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/scripts/weaviate"

usage() {
  cat >&2 <<'EOF'
usage: scripts/weaviate.sh start [--nodes 1|3] [--dir DIR]
       scripts/weaviate.sh stop [--dir DIR]
       scripts/weaviate.sh stop-node N [--dir DIR]
       scripts/weaviate.sh build
EOF
  exit 2
}

log() { printf 'weaviate.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# version prints the Weaviate version the tools module requires.
version() {
  local v
  v=$(awk '$1 == "github.com/weaviate/weaviate" { print $2; exit }' "$tools/go.mod")
  [ -n "$v" ] || die "no github.com/weaviate/weaviate requirement in $tools/go.mod"
  printf '%s\n' "$v"
}

# binary prints the cached server's path, building it first if it is absent.
# The build writes to a temporary name and renames it, so a killed build
# never leaves half a binary behind.
binary() {
  local cache dir bin tmp start
  cache=${CTX_WEAVIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx/weaviate}
  dir="$cache/$(version)"
  bin="$dir/weaviate-server"
  if [ -x "$bin" ]; then
    printf '%s\n' "$bin"
    return
  fi
  command -v go >/dev/null 2>&1 || die "go is not on PATH; it is needed to build $bin"
  mkdir -p "$dir"
  tmp="$bin.tmp.$$"
  log "building weaviate-server $(version) into $bin (a cold build takes minutes)"
  start=$SECONDS
  if ! (cd "$tools" && GOWORK=off go build -o "$tmp" github.com/weaviate/weaviate/cmd/weaviate-server) >&2; then
    rm -f "$tmp"
    die "building weaviate-server failed"
  fi
  mv -f "$tmp" "$bin"
  log "built in $((SECONDS - start)) s"
  printf '%s\n' "$bin"
}

# used_ports prints every local TCP and UDP port in use, one per line.
used_ports() {
  if command -v ss >/dev/null 2>&1; then
    ss -Htuan 2>/dev/null | awk '{ n = split($5, a, ":"); print a[n] }'
  elif command -v netstat >/dev/null 2>&1; then
    # Linux writes addr:port, macOS addr.port.
    netstat -an 2>/dev/null | awk '$1 ~ /^(tcp|udp)/ { n = split($4, a, /[.:]/); print a[n] }'
  fi
}

# taken lists, space-separated, the ports in use when the run began plus the
# ones it has picked (a string rather than an associative array, which
# macOS's bash 3.2 lacks).
taken=" "

# port_free reports whether P is unused: not in use at the start, not picked
# already, and nothing accepts a TCP connection on it.
port_free() {
  local p=$1
  case $taken in *" $p "*) return 1 ;; esac
  (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && return 1
  return 0
}

# pick_ports N sets $picked to the first of N consecutive free ports. Ports
# come from 15000-31999, below Linux's ephemeral range (32768-60999), so an
# outgoing connection cannot grab one between the pick and the bind.
pick_ports() {
  local n=$1 p i ok tries
  for ((tries = 0; tries < 1000; tries++)); do
    p=$((15000 + (RANDOM * 32768 + RANDOM) % 17000))
    ok=1
    for ((i = 0; i < n; i++)); do
      port_free $((p + i)) || { ok=0; break; }
    done
    if [ $ok = 1 ]; then
      for ((i = 0; i < n; i++)); do taken+="$((p + i)) "; done
      picked=$p
      return
    fi
  done
  die "no $n free consecutive ports found"
}

# alive reports whether the pid in file F runs weaviate-server.
alive() {
  local f=$1 pid
  [ -f "$f" ] || return 1
  pid=$(<"$f")
  [ -n "$pid" ] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  ps -p "$pid" -o args= 2>/dev/null | grep -q weaviate-server
}

# ready reports whether the node with HTTP port P answers its readiness probe.
ready() {
  curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/v1/.well-known/ready" 2>/dev/null
}

# healthy_nodes prints how many nodes GET /v1/nodes on port P lists HEALTHY.
healthy_nodes() {
  curl -fsS --max-time 2 "http://127.0.0.1:$1/v1/nodes" 2>/dev/null |
    grep -o '"status":"HEALTHY"' | wc -l | tr -d ' '
}

# fail_node prints the tail of node I's log, stops the nodes this start
# launched (their logs stay in $dir) and exits non-zero.
fail_node() {
  local i=$1 why=$2
  log "node$i: $why; last lines of $dir/node$i.log:"
  tail -n 40 "$dir/node$i.log" >&2 || true
  cmd_stop
  exit 1
}

# wait_for I WHAT CHECK... polls CHECK for up to 120 s while node I lives.
wait_for() {
  local i=$1 what=$2 deadline=$((SECONDS + 120))
  shift 2
  until "$@"; do
    alive "$dir/node$i.pid" || fail_node "$i" "exited while waiting for $what"
    [ $SECONDS -lt $deadline ] || fail_node "$i" "timed out after 120 s waiting for $what"
    sleep 0.2
  done
}

tcp_listens() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_node I starts node I in the background with the ports from $dir.
start_node() {
  local i=$1
  # shellcheck disable=SC1090
  source "$dir/node$i.ports"
  mkdir -p "$dir/data/node$i"
  : >"$dir/node$i.log"
  # The server must not hold the caller's stdout: a caller that reads it to
  # the end (a test running this script) would wait for the server to exit.
  env \
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
    PERSISTENCE_DATA_PATH="$dir/data/node$i" \
    DEFAULT_VECTORIZER_MODULE=none \
    ENABLE_MODULES= \
    DISABLE_TELEMETRY=true \
    PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS="${PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS:-2}" \
    PERSISTENCE_MAX_REUSE_WAL_SIZE="${PERSISTENCE_MAX_REUSE_WAL_SIZE:-0}" \
    GO_PROFILING_DISABLE=true \
    PROMETHEUS_MONITORING_ENABLED=false \
    CLUSTER_HOSTNAME="node$i" \
    CLUSTER_IN_LOCALHOST=true \
    CLUSTER_BIND_ADDR=127.0.0.1 \
    CLUSTER_GOSSIP_BIND_PORT="$gossip" \
    CLUSTER_DATA_BIND_PORT="$data" \
    CLUSTER_JOIN="$cluster_join" \
    RAFT_PORT="$raft" \
    RAFT_INTERNAL_RPC_PORT="$rpc" \
    RAFT_JOIN="$raft_join" \
    RAFT_BOOTSTRAP_EXPECT="$nodes" \
    GRPC_PORT="$grpc" \
    "$bin" --scheme http --host 127.0.0.1 --port "$http" \
    </dev/null >>"$dir/node$i.log" 2>&1 &
  echo $! >"$dir/node$i.pid"
}

# url_line prints the line callers parse for the URL.
url_line() { printf 'CTX_WEAVIATE_URL=%s\n' "$(<"$dir/url")"; }

cmd_start() {
  local f i running=0 t0 http0
  [ "$nodes" = 1 ] || [ "$nodes" = 3 ] || usage
  command -v curl >/dev/null 2>&1 || die "curl is not on PATH; it is needed to probe the server"
  mkdir -p "$dir"
  for f in "$dir"/node*.pid; do
    if alive "$f"; then running=1; fi
  done
  # A cluster counts as live while the node behind its URL is ready, even
  # with another node stopped.
  if [ $running = 1 ] && [ -f "$dir/url" ] && [ -f "$dir/nodes" ] && ready "$(sed 's/.*://' "$dir/url")"; then
    if [ "$(<"$dir/nodes")" != "$nodes" ]; then
      die "$dir already runs a $(<"$dir/nodes")-node cluster; stop it first (scripts/weaviate.sh stop --dir $dir)"
    fi
    log "$dir already runs a $nodes-node cluster"
    url_line
    return
  fi
  # Whatever else runs in $dir is left over from a start that did not
  # finish or a cluster whose node0 was stopped.
  cmd_stop
  bin=$(binary)
  t0=$SECONDS
  rm -rf "$dir/data"
  rm -f "$dir"/node*.pid "$dir"/node*.ports "$dir/url" "$dir/nodes"
  taken=" $(used_ports | sort -u | tr '\n' ' ')"
  # Each node gets its own ports. RAFT_INTERNAL_RPC_PORT must be RAFT_PORT+1:
  # with CLUSTER_IN_LOCALHOST a node reaches its peers' RPC servers at their
  # raft port + 1 (cluster/resolver/rpc.go). CLUSTER_DATA_BIND_PORT need not
  # be CLUSTER_GOSSIP_BIND_PORT+1: each node advertises its data port in its
  # memberlist metadata and gossip+1 is only the fallback when that is
  # missing. A 3-node cluster with unrelated data ports replicates writes
  # and answers reads on every node (tried with v1.35.2); the gossip port is
  # still picked with gossip+1 free so that the fallback finds nothing else.
  local -a gossips=() rafts=()
  for ((i = 0; i < nodes; i++)); do
    pick_ports 1; local http=$picked
    pick_ports 1; local grpc=$picked
    pick_ports 2; local gossip=$picked
    pick_ports 1; local data=$picked
    pick_ports 2; local raft=$picked
    gossips+=("$gossip")
    rafts+=("$raft")
    printf 'http=%s\ngrpc=%s\ngossip=%s\ndata=%s\nraft=%s\nrpc=%s\n' \
      "$http" "$grpc" "$gossip" "$data" "$raft" $((raft + 1)) >"$dir/node$i.ports"
  done
  local raft_join="" cluster_join=""
  for ((i = 0; i < nodes; i++)); do
    raft_join+="${raft_join:+,}node$i:${rafts[$i]}"
  done
  [ "$nodes" = 1 ] || cluster_join="127.0.0.1:${gossips[0]}"
  echo "$nodes" >"$dir/nodes"

  # node0 first: the others join it through gossip, and started together
  # they exit with "memberlist join not successful".
  log "starting $nodes node(s) in $dir"
  start_node 0
  wait_for 0 "its gossip port" tcp_listens "${gossips[0]}"
  for ((i = 1; i < nodes; i++)); do
    start_node "$i"
  done
  for ((i = 0; i < nodes; i++)); do
    source "$dir/node$i.ports"
    wait_for "$i" "readiness" ready "$http"
  done
  source "$dir/node0.ports"
  http0=$http
  if [ "$nodes" -gt 1 ]; then
    nodes_healthy() { [ "$(healthy_nodes "$http0")" -ge "$nodes" ]; }
    wait_for 0 "$nodes healthy nodes" nodes_healthy
  fi
  echo "http://127.0.0.1:$http0" >"$dir/url"
  log "ready in $((SECONDS - t0)) s"
  url_line
}

# stop_pids F... stops the processes whose pids are in files F: SIGTERM to
# all at once, then SIGKILL to any still running after 10 s. It removes the
# files.
stop_pids() {
  local f pid deadline pids=""
  for f in "$@"; do
    if alive "$f"; then
      pid=$(<"$f")
      kill -TERM "$pid" 2>/dev/null || true
      pids+=" $pid"
    fi
  done
  deadline=$((SECONDS + 10))
  for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid ignored SIGTERM for 10 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
  done
  rm -f "$@"
}

cmd_stop() {
  local i
  [ -d "$dir" ] || return 0
  # One at a time, the last node first: each takes about 2 s to leave the
  # cluster, and nodes stopped together wait 5 s more for a leave broadcast
  # nobody is left to answer.
  for ((i = 9; i >= 0; i--)); do
    [ ! -f "$dir/node$i.pid" ] || stop_pids "$dir/node$i.pid"
  done
  rm -rf "$dir/data"
  rm -f "$dir"/node*.ports "$dir/url" "$dir/nodes"
}

cmd_stop_node() {
  [[ $node =~ ^[0-9]+$ ]] || usage
  [ -f "$dir/node$node.pid" ] || die "no node$node in $dir"
  stop_pids "$dir/node$node.pid"
  log "stopped node$node"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
node=""
if [ "$cmd" = stop-node ]; then
  [ $# -ge 1 ] || usage
  node=$1
  shift
fi
nodes=1
dir=${CTX_WEAVIATE_STATE:-${TMPDIR:-/tmp}/ctx-weaviate-$(id -u)}
while [ $# -gt 0 ]; do
  case $cmd:$1 in
  start:--nodes) [ $# -ge 2 ] || usage; nodes=$2; shift 2 ;;
  start:--dir | stop:--dir | stop-node:--dir) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
  *) usage ;;
  esac
done
case $cmd in
start) cmd_start ;;
stop) cmd_stop ;;
stop-node) cmd_stop_node ;;
build) binary ;;
*) usage ;;
esac
