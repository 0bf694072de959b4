# Shared by scripts/test.sh, scripts/bench.sh and scripts/drill.sh: installing, starting and stopping the
# throwaway PostgreSQL and Redis servers. The sourcing script defines `log` and `die`
# first. Servers run on free loopback ports inside $TMP and are stopped by PID.
as_root() { if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

pg_bin_dir() {
    local dirs
    dirs=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V) || return 1
    for d in $(tac <<<"$dirs"); do
        [[ -x $d/initdb && -x $d/postgres ]] && { echo "$d"; return 0; }
    done
    return 1
}

install_servers() {
    local packages=()
    pg_bin_dir >/dev/null || packages+=(postgresql)
    command -v redis-server >/dev/null || packages+=(redis-server)
    ((${#packages[@]} == 0)) && return 0
    log "installing ${packages[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
}

# Asks the kernel for a free loopback port (bind to port 0), with a probing fallback.
free_port() {
    if command -v python3 >/dev/null; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        return
    fi
    local port
    for _ in $(seq 100); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
    die "no free port found"
}

# Runs a command as the postgres user when we are root (initdb/postgres refuse root).
as_postgres() {
    if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

TMP=""
PG_EXTRA_OPTS=()  # more `-c name=value` for the postmaster (the bench loads pg_stat_statements)
PG_PID=""       # the postmaster itself (read from postmaster.pid)
PG_WRAPPER=""   # the background job that started it (runuser), reaped with wait
REPLICA_PID=""  # a streaming replica of it, if one was started
REPLICA_WRAPPER=""
REDIS_PID=""
CLUSTER_PIDS=()  # the nodes of the Redis Cluster, if one was started
CLUSTER_PORTS=()

# Sends a signal to a PID and waits up to ~20 s for it to go away, then SIGKILLs it.
stop_pid() {
    local pid=$1 sig=$2 name=$3
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill "-$sig" "$pid" 2>/dev/null || true
    for _ in $(seq 200); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    log "$name (pid $pid) did not stop; killing it"
    kill -KILL "$pid" 2>/dev/null || true
}


# Stops PostgreSQL and Redis (by PID) and reaps their background jobs.
stop_servers() {
    # SIGINT is PostgreSQL's "fast" shutdown (SIGTERM would wait for clients to leave).
    stop_pid "$REPLICA_PID" INT "postgres replica"
    stop_pid "$PG_PID" INT postgres
    stop_pid "$REDIS_PID" TERM redis-server
    for pid in "${CLUSTER_PIDS[@]}"; do stop_pid "$pid" TERM "redis cluster node"; done
    for pid in $REPLICA_WRAPPER $PG_WRAPPER $REDIS_PID "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# Waits until a line matching PATTERN is in FILE (a process's log), while PID lives;
# tenths of a second: BENCH_START_TRIES (300).
wait_for_line() {
    local file=$1 pattern=$2 pid=$3 name=$4
    for _ in $(seq "${BENCH_START_TRIES:-300}"); do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    tail -n 50 "$file" >&2 || true
    die "$name did not start"
}

start_postgres() {
    local bin=$1 port=$2 dir=$TMP/pg
    mkdir -p "$dir/sock"
    [[ $EUID -eq 0 ]] && chown -R postgres:postgres "$dir"
    as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-locale --no-sync \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    as_postgres "$bin/postgres" -D "$dir/data" -k "$dir/sock" -p "$port" -h 127.0.0.1 \
        -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 \
        "${PG_EXTRA_OPTS[@]}" >"$dir/postgres.log" 2>&1 &
    PG_WRAPPER=$!
    wait_for_postgres "$bin" "$port" "$dir" "$PG_WRAPPER" PG_PID postgres
    log "postgres ready on 127.0.0.1:$port (pid $PG_PID)"
}

# Waits until the PostgreSQL in DIR (started by the background job WRAPPER) answers on
# PORT and sets the variable named VAR to its postmaster's PID (also when it never
# answers, so it is stopped by PID at exit); dies with its log if it does not answer.
wait_for_postgres() {
    local bin=$1 port=$2 dir=$3 wrapper=$4 var=$5 name=$6
    for _ in $(seq 300); do
        if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
            printf -v "$var" '%s' "$(head -n1 "$dir/data/postmaster.pid")"
            return 0
        fi
        kill -0 "$wrapper" 2>/dev/null || break
        sleep 0.1
    done
    cat "$dir/postgres.log" >&2
    [[ -f $dir/data/postmaster.pid ]] && printf -v "$var" '%s' "$(head -n1 "$dir/data/postmaster.pid")"
    die "$name did not become ready"
}

start_redis() {
    local port=$1 dir=$TMP/redis
    mkdir -p "$dir"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
        --daemonize no --logfile "$dir/redis.log" &
    REDIS_PID=$!
    for _ in $(seq 300); do
        if command -v redis-cli >/dev/null; then
            if [[ $(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) == PONG ]]; then
                log "redis ready on 127.0.0.1:$port (pid $REDIS_PID)"
                return 0
            fi
        elif (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            log "redis listening on 127.0.0.1:$port (pid $REDIS_PID)"
            return 0
        fi
        kill -0 "$REDIS_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$dir/redis.log" >&2
    die "redis-server did not become ready"
}

# Starts a streaming replica of the PostgreSQL of start_postgres (on PRIMARY_PORT) on
# PORT: a base backup taken over the replication protocol (`pg_basebackup -R`, which
# writes the standby's connection to the primary), then a hot standby on it.
start_postgres_replica() {
    local bin=$1 primary_port=$2 port=$3 dir=$TMP/pg-replica
    mkdir -p "$dir/sock"
    [[ $EUID -eq 0 ]] && chown -R postgres:postgres "$dir"
    as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/data" \
        -R -X stream --no-sync >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; die "pg_basebackup failed"; }
    as_postgres "$bin/postgres" -D "$dir/data" -k "$dir/sock" -p "$port" -h 127.0.0.1 \
        -c fsync=off -c max_connections=300 -c hot_standby=on \
        "${PG_EXTRA_OPTS[@]}" >"$dir/postgres.log" 2>&1 &
    REPLICA_WRAPPER=$!
    wait_for_postgres "$bin" "$port" "$dir" "$REPLICA_WRAPPER" REPLICA_PID "the postgres replica"
    log "postgres replica ready on 127.0.0.1:$port (pid $REPLICA_PID), streaming from $primary_port"
}

# Starts one node of a Redis Cluster on PORT, its cluster bus on BUS_PORT (cluster mode,
# no persistence) in its own directory; its PID joins CLUSTER_PIDS.
start_cluster_node() {
    local port=$1 bus_port=$2 dir=$TMP/cluster/$1
    mkdir -p "$dir"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
        --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-port "$bus_port" \
        --cluster-node-timeout "${CLUSTER_NODE_TIMEOUT_MS:-2000}" \
        --daemonize no --logfile "$dir/redis.log" &
    CLUSTER_PIDS+=($!)
    for _ in $(seq 300); do
        [[ $(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) == PONG ]] && return 0
        sleep 0.1
    done
    cat "$dir/redis.log" >&2
    die "redis cluster node on port $port did not become ready"
}

# Starts a Redis Cluster of N primaries (default 3) with a replica each on free loopback
# ports (`redis-cli --cluster create`) and waits until every node reports it healthy.
# Sets CLUSTER_PORTS and REDIS_CLUSTER_URL (redis+cluster://, every node as a seed).
start_redis_cluster() {
    local primaries=${1:-3} nodes=() port
    for _ in $(seq $((primaries * 2))); do
        port=$(free_port)
        start_cluster_node "$port" "$(free_port)"
        CLUSTER_PORTS+=("$port")
        nodes+=("127.0.0.1:$port")
    done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
        >"$TMP/cluster/create.log" 2>&1 || { cat "$TMP/cluster/create.log" >&2; die "redis-cli --cluster create failed"; }
    for port in "${CLUSTER_PORTS[@]}"; do
        for _ in $(seq 300); do
            redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && break
            sleep 0.1
        done
        redis-cli -h 127.0.0.1 -p "$port" cluster info | grep -q '^cluster_state:ok' \
            || die "redis cluster node $port is not ok"
    done
    REDIS_CLUSTER_URL="redis+cluster://$(IFS=,; echo "${nodes[*]}")"
    log "redis cluster ready: $primaries primaries, $primaries replicas (pids ${CLUSTER_PIDS[*]})"
}
