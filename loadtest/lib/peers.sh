# loadtest/lib/peers.sh: the one way a benchmark starts a peer (Tiffany, nginx, h2o, HAProxy, limit_server,
# Node's ws).
# Sourced by loadtest/*.sh from the repository root, after the script sets bench_name
# (the prefix of its messages). It installs and builds what the run needs, makes the
# temp dir, writes each peer's config from one generator per peer, starts a peer on
# chosen cores, waits until it answers, and stops every peer when the script exits.
# Each peer binds 127.0.0.1 only.
# shellcheck shell=bash
: "${bench_name:?the benchmark script sets bench_name before it sources the library}"

# Where limit_server.c and pipeline.lua are: ../shared beside the checkout, or TIFFANY_SHARED.
shared=${TIFFANY_SHARED:-$(cd .. && pwd)/shared}

die() {
  echo "$bench_name: $*" >&2
  exit 1
}

# bench_prepare [peers] [limit_server] [node] [no_tiffany]: installs what is missing (with `peers`,
# nginx, h2o, haproxy, wrk and the rest from loadtest/setup_peers.sh; with `node`, Node.js and
# npm), builds Tiffany and sets build_dir (an absolute path); with `limit_server`, builds the
# floor into build_dir too.
# With `no_tiffany` (a run whose peers leave Tiffany out) nothing is built and build_dir is empty.
# TIFFANY_BUILD_DIR=DIR uses the build in DIR (it must hold server/tiffany) instead of building.
bench_prepare() {
  local want build=yes
  scripts/setup.sh
  for want in "$@"; do
    [ "$want" != peers ] || loadtest/setup_peers.sh
    [ "$want" != node ] || ensure_node
    [ "$want" != no_tiffany ] || build=no
  done
  build_dir=
  if [ "$build" = no ]; then
    :
  elif [ -n "${TIFFANY_BUILD_DIR:-}" ]; then
    build_dir=$(cd "$TIFFANY_BUILD_DIR" && pwd) || die "TIFFANY_BUILD_DIR=$TIFFANY_BUILD_DIR is not a directory"
    [ -x "$build_dir/server/tiffany" ] || die "TIFFANY_BUILD_DIR=$TIFFANY_BUILD_DIR has no server/tiffany"
  else
    build_dir=$PWD/$(scripts/build.sh | tail -n 1)
  fi
  for want in "$@"; do
    [ "$want" != limit_server ] || build_limit_server
  done
}

# ensure_node: node and npm on PATH, from Debian (nodejs, npm) when either is missing.
ensure_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    TIFFANY_NO_SERVICE_START=1 scripts/install_missing.sh "$bench_name" nodejs npm
  fi
  command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed for the Node ws peer"
}

build_limit_server() {
  [ -f "$shared/bench/limit_server.c" ] || die "missing $shared/bench/limit_server.c (set TIFFANY_SHARED to the shared folder)"
  gcc -O2 "$shared/bench/limit_server.c" -o "$build_dir/limit_server" -luring
}

# bench_work_dir: makes the temp dir $work and arms the exit trap that stops every
# peer (and any other job of the script) and removes it.
bench_work_dir() {
  work=$(mktemp -d -t "tiffany-$bench_name.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
}

bench_cleanup() {
  stop_peers
  # Why: load clients run as jobs (coprocs, s_time) may outlive an early exit.
  local job
  for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done
  [ -z "${work:-}" ] || rm -rf "$work"
}

# make_cert rsa|ec: a self-signed certificate for localhost and 127.0.0.1, $work/cert.pem and key.pem.
make_cert() {
  local newkey
  if [ "$1" = ec ]; then newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256); else newkey=(-newkey rsa:2048); fi
  openssl req -x509 "${newkey[@]}" -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
}

# The config generators: each writes $work/PEER.conf (Tiffany: tiffany.json) around the
# part only the script knows, read from standard input.

# write_tiffany_conf WORKERS [TOP_FIELDS] <<<LISTENERS: LISTENERS are the JSON objects of
# the "listeners" array; TOP_FIELDS are more top-level fields, each followed by a comma.
write_tiffany_conf() {
  local workers=$1 top=${2:-}
  {
    echo "{"
    echo "  \"workers\": $workers,${top:+ $top}"
    echo "  \"listeners\": ["
    cat
    echo "  ]"
    echo "}"
  } >"$work/tiffany.json"
}

# write_tiffany_h2_conf H2C_PORT TLS_PORT: one worker answering GET /plaintext with "Hello, World!"
# over HTTP/2 on two listeners: 127.0.0.1:H2C_PORT cleartext (h2c by prior knowledge, HTTP/1.1
# too) and 127.0.0.1:TLS_PORT with TLS (h2 by ALPN; $work/cert.pem and key.pem, from make_cert).
write_tiffany_h2_conf() {
  local routes='"routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ]'
  write_tiffany_conf 1 <<JSON
    { "name": "h2c", "address": "127.0.0.1:$1", "protocol": "http", "http2": { "enabled": true },
      $routes },
    { "name": "h2", "address": "127.0.0.1:$2", "protocol": "http", "http2": { "enabled": true },
      "tls": { "cert": "cert.pem", "key": "key.pem" },
      $routes }
JSON
}

# write_nginx_conf WORKERS CONNECTIONS [MAIN_DIRECTIVES] [NAME] <<<HTTP_BLOCK: one worker runs
# without a master (one process, whose pid is the one to measure), more under one; no
# access log, temp files in the work dir; HTTP_BLOCK (servers and their settings) goes
# inside `http { }`. NAME (default nginx; a second nginx is nginx_SOMETHING) names the
# config, pid, log and temp files, so two nginx peers can run from one work dir.
write_nginx_conf() {
  local workers=$1 connections=$2 main=${3:-} name=${4:-nginx} master=off user=""
  ((workers == 1)) || master=on
  # Why: a master run as root starts its workers as nobody, who cannot read the 0700 temp dir.
  [ "$master" = off ] || [ "$(id -u)" -ne 0 ] || user="user root;"
  mkdir -p "$work/$name-tmp"
  {
    cat <<CONF
daemon off;
$user
master_process $master;
worker_processes $workers;
$main
pid $work/$name.pid;
error_log $work/$name-error.log warn;
events {
  worker_connections $connections;
}
http {
  access_log off;
  client_body_temp_path $work/$name-tmp/body;
  proxy_temp_path $work/$name-tmp/proxy;
  fastcgi_temp_path $work/$name-tmp/fastcgi;
  uwsgi_temp_path $work/$name-tmp/uwsgi;
  scgi_temp_path $work/$name-tmp/scgi;
CONF
    cat
    echo "}"
  } >"$work/$name.conf"
}

# The reverse-proxy generators: each writes one proxy (one worker, one thread) on
# 127.0.0.1:PORT in front of one upstream at 127.0.0.1:UPSTREAM_PORT, keeping up to
# KEEPALIVE idle upstream connections open, every path passed on as it came.

# write_tiffany_proxy_conf PORT UPSTREAM_PORT KEEPALIVE [WITH]: Tiffany's `proxy` handler on
# every path, in front of the upstream group "app"; WITH adds keys to the route's `with`
# (e.g. ', "splice": false').
write_tiffany_proxy_conf() {
  local port=$1 upstream_port=$2 keepalive=$3 with=${4:-}
  write_tiffany_conf 1 "\"upstreams\": { \"app\": { \"servers\": [\"127.0.0.1:$upstream_port\"], \"keepalive\": $keepalive } }," <<JSON
    { "name": "proxy", "address": "127.0.0.1:$port", "protocol": "http",
      "routes": [ { "path": "/*", "handler": "proxy", "with": { "upstream": "app"$with } } ] }
JSON
}

# write_nginx_proxy_conf PORT UPSTREAM_PORT KEEPALIVE: nginx `proxy_pass` to an upstream
# block with `keepalive` (HTTP/1.1 and an empty Connection field, without which nginx closes
# every upstream connection); proxy buffering as nginx ships it (on). Neither side ends a
# keep-alive connection after a count of requests.
write_nginx_proxy_conf() {
  local port=$1 upstream_port=$2 keepalive=$3
  write_nginx_conf 1 4096 <<CONF
  keepalive_timeout 65;
  keepalive_requests 1000000000;
  upstream up {
    server 127.0.0.1:$upstream_port;
    keepalive $keepalive;
    keepalive_requests 1000000000;
  }
  server {
    listen 127.0.0.1:$port backlog=4096;
    location / {
      proxy_pass http://up;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
CONF
}

# write_haproxy_conf PORT UPSTREAM_PORT KEEPALIVE: HAProxy in HTTP mode, one thread,
# `http-reuse always` (any idle upstream connection serves any request), at most KEEPALIVE
# idle upstream connections kept (pool-max-conn), bodies spliced where the kernel can
# (`option splice-auto`, as Tiffany's proxy does by default; maxpipes bounds the pipes, and
# with it HAProxy's own descriptor count stays within what it may raise), no logs, timeouts set.
write_haproxy_conf() {
  local port=$1 upstream_port=$2 keepalive=$3
  cat >"$work/haproxy.conf" <<CONF
global
  nbthread 1
  maxconn 8192
  maxpipes 1024
  pidfile $work/haproxy.pid
defaults
  mode http
  option http-keep-alive
  option splice-auto
  http-reuse always
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 60s
  timeout http-request 10s
frontend proxy
  bind 127.0.0.1:$port
  default_backend app
backend app
  server up 127.0.0.1:$upstream_port pool-max-conn $keepalive
CONF
}

# write_h2o_conf THREADS PORT [TOP_LINES] [TLS_PORT] <<<PATHS: h2o with no access log (none
# configured) on 127.0.0.1:PORT, and with TLS_PORT also TLS there ($work/cert.pem and key.pem,
# from make_cert; h2 by ALPN, and h2c by prior knowledge on PORT, are h2o's defaults); PATHS
# (indented six spaces) go under the default host.
write_h2o_conf() {
  local threads=$1 port=$2 top=${3:-} tls_port=${4:-}
  {
    # Why: run as root without `user`, h2o drops to nobody, who cannot read the 0700 temp dir.
    [ "$(id -u)" -ne 0 ] || echo "user: root"
    echo "num-threads: $threads"
    [ -z "$top" ] || echo "$top"
    cat <<CONF
pid-file: $work/h2o.pid
error-log: $work/h2o-error.log
listen:
  host: 127.0.0.1
  port: $port
CONF
    # Why a second `listen` key: that is how h2o's configuration names several listeners.
    [ -z "$tls_port" ] || cat <<CONF
listen:
  host: 127.0.0.1
  port: $tls_port
  ssl:
    certificate-file: $work/cert.pem
    key-file: $work/key.pem
CONF
    cat <<CONF
hosts:
  default:
    paths:
CONF
    cat
  } >"$work/h2o.conf"
}

# write_node_ws_echo: $work/node_ws/echo.js, a WebSocket echo server on Node's `ws` (every
# message sent back as it came, text or binary; no permessage-deflate, one process: one core),
# and `ws` beside it (install_node_ws).
write_node_ws_echo() {
  mkdir -p "$work/node_ws"
  cat >"$work/node_ws/echo.js" <<'JS'
// A WebSocket echo server for Tiffany's benchmarks: node echo.js PORT, on 127.0.0.1.
const { WebSocketServer } = require('ws');
const port = Number(process.argv[2]);
const server = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: false, backlog: 4096 });
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
  socket.on('error', () => socket.terminate());
});
JS
  install_node_ws
}

# write_node_ws_pubsub: $work/node_ws/pubsub.js, a pub/sub server on Node's `ws` speaking the
# JSON protocol of Tiffany's `pubsub` handler (docs/http.md, "Pub/sub") as the broadcast
# benchmark uses it: {"subscribe": C} -> {"subscribed": C}; {"publish": C, "data": D} sends
# {"channel": C, "data": D}, stringified once, to every socket in C's Set. No permessage-deflate,
# one process; and `ws` beside it (install_node_ws).
write_node_ws_pubsub() {
  mkdir -p "$work/node_ws"
  cat >"$work/node_ws/pubsub.js" <<'JS'
// A pub/sub WebSocket server for Tiffany's broadcast benchmark: node pubsub.js PORT, on 127.0.0.1.
const { WebSocketServer } = require('ws');
const port = Number(process.argv[2]);
const server = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: false, backlog: 4096 });
const channels = new Map();  // channel name -> Set of sockets
server.on('connection', (socket) => {
  const mine = new Set();
  socket.on('message', (data, isBinary) => {
    let command = null;
    try { command = isBinary ? null : JSON.parse(data); } catch (e) { command = null; }
    if (command && typeof command.subscribe === 'string') {
      if (!channels.has(command.subscribe)) channels.set(command.subscribe, new Set());
      channels.get(command.subscribe).add(socket);
      mine.add(command.subscribe);
      socket.send(JSON.stringify({ subscribed: command.subscribe }));
    } else if (command && typeof command.publish === 'string') {
      const text = JSON.stringify({ channel: command.publish, data: command.data });
      for (const subscriber of channels.get(command.publish) || []) subscriber.send(text);
    } else {
      socket.send(JSON.stringify({ error: 'expected {"subscribe": CHANNEL} or {"publish": CHANNEL, "data": ...}' }));
    }
  });
  socket.on('close', () => { for (const name of mine) channels.get(name).delete(socket); });
  socket.on('error', () => socket.terminate());
});
JS
  install_node_ws
}

# install_node_ws: `ws` (major version 8) into $work/node_ws from the npm registry, unless it is
# there (npm's cache makes later runs quick). Never installed into the repository:
# node_modules lives in the temp dir.
install_node_ws() {
  [ ! -f "$work/node_ws/node_modules/ws/package.json" ] || return 0
  echo '{ "name": "tiffany-bench-node-ws", "private": true }' >"$work/node_ws/package.json"
  (cd "$work/node_ws" && timeout 300 npm install --no-audit --no-fund --loglevel=error ws@8 >"$work/npm.log" 2>&1) ||
    die "npm install ws failed: $(tail -n 5 "$work/npm.log")"
  [ -f "$work/node_ws/node_modules/ws/package.json" ] || die "npm install ws left no node_modules/ws"
}

# peer_command PEER PORT [ARGS...]: sets the array peer_cmd to the command line that runs PEER
# from its generated config (limit_server takes PORT and ARGS, e.g. `echo`; nginx_NAME runs
# $work/nginx_NAME.conf, a second nginx; node_ws runs write_node_ws_echo's server on PORT,
# node_ws_pubsub write_node_ws_pubsub's).
peer_command() {
  case $1 in
    tiffany) peer_cmd=("$build_dir/server/tiffany" --config "$work/tiffany.json") ;;
    # Why a name of its own: a second Tiffany in the same run (proxy_bench's copying control).
    tiffany_copy) peer_cmd=("$build_dir/server/tiffany" --config "$work/tiffany_copy.json") ;;
    nginx | nginx_*) peer_cmd=(nginx -p "$work" -c "$work/$1.conf" -e "$work/$1-error.log") ;;
    # Why -db: HAProxy stays in the foreground as one process (no master), the pid to measure.
    haproxy) peer_cmd=(haproxy -f "$work/haproxy.conf" -db) ;;
    h2o) peer_cmd=(h2o --mode worker --conf "$work/h2o.conf") ;;
    limit_server) peer_cmd=("$build_dir/limit_server" "$2" "${@:3}") ;;
    node_ws) peer_cmd=(node "$work/node_ws/echo.js" "$2") ;;
    node_ws_pubsub) peer_cmd=(node "$work/node_ws/pubsub.js" "$2") ;;
    *) die "unknown peer '$1'" ;;
  esac
}

check_port_free() {
  [ -z "$(ss -Hltn "sport = :$1")" ] || die "port $1 is already in use; pick other ports with -p BASE_PORT"
}

# start_peer PEER PORT CPUS [ARGS...]: runs PEER on CPUS (taskset), logging to $work/PEER.log;
# its pid goes to pids[PEER]. Wait for it with wait_ready.
declare -A pids
start_peer() {
  local name=$1 port=$2 cpus=$3
  check_port_free "$port"
  peer_command "$name" "$port" "${@:4}"
  taskset -c "$cpus" "${peer_cmd[@]}" >"$work/$name.log" 2>&1 &
  pids[$name]=$!
}

alive() { kill -0 "${pids[$1]}" 2>/dev/null; }

# stop_peer PEER: stops it and waits for it to end.
stop_peer() {
  [ -n "${pids[$1]:-}" ] || return 0
  kill "${pids[$1]}" 2>/dev/null || true
  wait "${pids[$1]}" 2>/dev/null || true
  unset "pids[$1]"
}

stop_peers() {
  local name
  for name in "${!pids[@]}"; do stop_peer "$name"; done
}

# peer_log PEER: the tail of its output and error log, for a failure message.
peer_log() {
  local name=$1 file
  for file in "$work/$name.log" "$work/$name-error.log"; do
    [ -s "$file" ] && echo "--- $file" && tail -n 20 "$file"
  done
  return 0
}

die_with_log() {
  local name=$1
  shift
  peer_log "$name" >&2
  die "$name: $*"
}

# The readiness probes wait_ready retries.
# answers_http URL [CURL_ARGS...]: a GET succeeds (any status).
answers_http() { curl -s -o /dev/null --max-time 1 "${@:2}" "$1"; }
# accepts_tcp PORT: a connection to 127.0.0.1:PORT opens.
accepts_tcp() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_ready PEER PROBE...: retries PROBE for up to 10 s while PEER lives; dies with its log if not.
wait_ready() {
  local name=$1 tries
  shift
  for ((tries = 0; tries < 100; tries++)); do
    alive "$name" || die_with_log "$name" "exited during start-up"
    "$@" && return 0
    sleep 0.1
  done
  die_with_log "$name" "did not answer ($*) within 10 s"
}

# check_route NAME PATH EXPECTED_BODY_FILE: GET from NAME (on port_of NAME, which the
# script defines) must answer 200 with exactly that body; dies with NAME's log if not.
check_route() {
  local name=$1 path=$2 expected=$3 url code
  url=http://127.0.0.1:$(port_of "$name")$path
  code=$(curl -sS --max-time 5 -o "$work/answer" -w '%{http_code}' "$url") || die_with_log "$name" "GET $url failed"
  [ "$code" = 200 ] || die_with_log "$name" "GET $url answered $code, expected 200"
  cmp -s "$work/answer" "$expected" || die_with_log "$name" "GET $url answered 200 with a body other than $(basename "$expected")"
}

# check_h2 NAME URL EXPECTED_BODY_FILE: GET URL over HTTP/2 (h2c by prior knowledge for http://,
# h2 by ALPN for https://, the certificate not checked) must answer 200 with exactly that body,
# over HTTP/2 and nothing else; dies with NAME's log if not.
check_h2() {
  local name=$1 url=$2 expected=$3 how answer
  how=(--http2-prior-knowledge)
  [[ $url != https:* ]] || how=(--http2 --insecure)
  answer=$(curl -sS --max-time 5 "${how[@]}" -o "$work/answer" -w '%{http_version} %{http_code}' "$url" 2>&1) ||
    die_with_log "$name" "does not answer HTTP/2 (${how[0]#--}) on $url: ${answer%%$'\n'*}"
  [ "${answer%% *}" = 2 ] || die_with_log "$name" "answered $url over HTTP/${answer%% *}, not HTTP/2"
  [ "${answer#* }" = 200 ] || die_with_log "$name" "HTTP/2 GET $url answered ${answer#* }, expected 200"
  cmp -s "$work/answer" "$expected" || die_with_log "$name" "HTTP/2 GET $url answered 200 with a body other than $(basename "$expected")"
}

# check_loopback_only PEER: every socket PEER listens on is on 127.0.0.1.
check_loopback_only() {
  local name=$1 addresses
  addresses=$(ss -Hltnp | awk -v pid="pid=${pids[$name]}," 'index($0, pid) {print $4}')
  [ -n "$addresses" ] || die "$name: found no listening socket of pid ${pids[$name]} (ss -ltnp)"
  ! grep -qv '^127\.0\.0\.1:' <<<"$addresses" || die "$name: listens beyond loopback: $addresses"
}
