#!/usr/bin/env bash
# Run Jaeger v2 and the ragfunnel collector in the background on loopback (no Docker).
#
#   collector_config/stack.sh up       start both, wait until they answer, print the endpoints
#   collector_config/stack.sh down     stop both
#   collector_config/stack.sh status   show what runs (exit 0 if both run, 3 otherwise)
#
# Binaries: the ones collector_config/build.sh cached (run it first), or
#   RAGFUNNEL_OTELCOL_BIN / RAGFUNNEL_JAEGER_BIN.
# Collector config: RAGFUNNEL_COLLECTOR_CONFIG (default: otelcol-nodb.yaml beside this
#   script; use otelcol.yaml for the ClickHouse variant). Jaeger: jaeger.yaml.
# State (pid files, logs, default span file):
#   ${RAGFUNNEL_STATE_DIR:-$HOME/.local/state/ragfunnel}/stack/
# Spans file: RAGFUNNEL_FILE_PATH (default <state>/stack/otel-spans.jsonl).
# Ports: the variables documented in otelcol*.yaml and jaeger.yaml are honoured.
# RAGFUNNEL_STACK_TIMEOUT: seconds to wait for each process to answer (default 30).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="${RAGFUNNEL_STATE_DIR:-$HOME/.local/state/ragfunnel}/stack"
TIMEOUT="${RAGFUNNEL_STACK_TIMEOUT:-30}"

CONFIG="${RAGFUNNEL_COLLECTOR_CONFIG:-$HERE/otelcol-nodb.yaml}"
CONFIG="$(realpath -m -- "$CONFIG")"
JAEGER_CONFIG="$HERE/jaeger.yaml"

# Defaults shared by both configs; exported so the processes see the same values.
export JAEGER_OTLP_GRPC_PORT="${JAEGER_OTLP_GRPC_PORT:-14317}"
export JAEGER_QUERY_HTTP_PORT="${JAEGER_QUERY_HTTP_PORT:-16686}"
export JAEGER_OTLP_ENDPOINT="${JAEGER_OTLP_ENDPOINT:-127.0.0.1:${JAEGER_OTLP_GRPC_PORT}}"
export RAGFUNNEL_OTLP_GRPC_ENDPOINT="${RAGFUNNEL_OTLP_GRPC_ENDPOINT:-127.0.0.1:4317}"
export RAGFUNNEL_OTLP_HTTP_ENDPOINT="${RAGFUNNEL_OTLP_HTTP_ENDPOINT:-127.0.0.1:4318}"
export RAGFUNNEL_HEALTH_ENDPOINT="${RAGFUNNEL_HEALTH_ENDPOINT:-127.0.0.1:13133}"
RAGFUNNEL_FILE_PATH="${RAGFUNNEL_FILE_PATH:-$STATE/otel-spans.jsonl}"
RAGFUNNEL_FILE_PATH="$(realpath -m -- "$RAGFUNNEL_FILE_PATH")"
export RAGFUNNEL_FILE_PATH

HEALTH_URL="http://${RAGFUNNEL_HEALTH_ENDPOINT}/"
JAEGER_URL="http://127.0.0.1:${JAEGER_QUERY_HTTP_PORT}"

log() { printf '[stack.sh] %s\n' "$*" >&2; }
die() { printf '[stack.sh] ERROR: %s\n' "$*" >&2; exit 1; }

command -v curl >/dev/null 2>&1 || die "curl is required (apt-get install curl)"

resolve_binaries() {
    OTELCOL_BIN="${RAGFUNNEL_OTELCOL_BIN:-}"
    JAEGER_BIN="${RAGFUNNEL_JAEGER_BIN:-}"
    if [[ -z "$OTELCOL_BIN" || -z "$JAEGER_BIN" ]]; then
        local paths
        paths="$("$HERE/build.sh" --print 2>/dev/null)" \
            || die "collector/Jaeger binaries are not built: run collector_config/build.sh (or set RAGFUNNEL_OTELCOL_BIN and RAGFUNNEL_JAEGER_BIN)"
        [[ -n "$OTELCOL_BIN" ]] || OTELCOL_BIN="$(sed -n 's/^OTELCOL=//p' <<<"$paths")"
        [[ -n "$JAEGER_BIN" ]] || JAEGER_BIN="$(sed -n 's/^JAEGER=//p' <<<"$paths")"
    fi
    [[ -x "$OTELCOL_BIN" ]] || die "not executable: $OTELCOL_BIN"
    [[ -x "$JAEGER_BIN" ]] || die "not executable: $JAEGER_BIN"
}

# pid_of NAME: print the pid if NAME's pid file points at a live process of ours.
pid_of() {
    local pidfile="$STATE/$1.pid" pid
    [[ -f "$pidfile" ]] || return 1
    pid="$(cat "$pidfile")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against a recycled pid: the command line must carry a --config= flag, as the
    # collector and Jaeger that `up` started do.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--config=" || return 1
    echo "$pid"
}

# show_errors LOG: the error/warning lines of the latest run recorded in LOG (shortened).
show_errors() {
    awk '/^---- .* starting: /{buf=""; next} /[Ee]rror|[Ww]arn|panic|FATAL/{buf=buf $0 "\n"} END{printf "%s", buf}' "$1" \
        | tail -n 12 | cut -c1-400 | sed 's/^/    /' >&2
}

answers() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }

# wait_for NAME URL: poll URL until it answers, failing early if NAME's process died.
wait_for() {
    local name="$1" url="$2" deadline=$(( $(date +%s) + TIMEOUT ))
    until answers "$url"; do
        if ! pid_of "$name" >/dev/null; then
            log "$name exited during start-up; errors from $STATE/$name.log:"
            show_errors "$STATE/$name.log"
            return 1
        fi
        if (( $(date +%s) >= deadline )); then
            log "$name did not answer $url within ${TIMEOUT}s; see $STATE/$name.log"
            return 1
        fi
        sleep 0.3
    done
}

start() {
    local name="$1"; shift
    if pid="$(pid_of "$name")"; then
        log "$name already running (pid $pid)"
        return 0
    fi
    {
        echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) starting: $*"
    } >>"$STATE/$name.log"
    nohup "$@" >>"$STATE/$name.log" 2>&1 </dev/null &
    echo $! >"$STATE/$name.pid"
}

stop() {
    local name="$1" pid
    if ! pid="$(pid_of "$name")"; then
        rm -f "$STATE/$name.pid"
        log "$name not running"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "$name (pid $pid) ignored SIGTERM for 10s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$STATE/$name.pid"
    log "$name stopped (pid $pid)"
}

print_endpoints() {
    cat <<EOF
OTLP_GRPC=${RAGFUNNEL_OTLP_GRPC_ENDPOINT}
OTLP_HTTP=http://${RAGFUNNEL_OTLP_HTTP_ENDPOINT}
COLLECTOR_HEALTH=${HEALTH_URL}
JAEGER_QUERY=${JAEGER_URL}
JAEGER_OTLP_GRPC=${JAEGER_OTLP_ENDPOINT}
SPANS_FILE=${RAGFUNNEL_FILE_PATH}
COLLECTOR_CONFIG=${CONFIG}
STATE_DIR=${STATE}
EOF
}

cmd_up() {
    resolve_binaries
    [[ -f "$CONFIG" ]] || die "collector config not found: $CONFIG"
    mkdir -p "$STATE" "$(dirname "$RAGFUNNEL_FILE_PATH")"

    start jaeger "$JAEGER_BIN" --config="$JAEGER_CONFIG"
    wait_for jaeger "$JAEGER_URL/api/services" || { stop jaeger; die "Jaeger did not start"; }

    start collector "$OTELCOL_BIN" --config="$CONFIG"
    wait_for collector "$HEALTH_URL" || { stop collector; stop jaeger; die "collector did not start"; }

    log "up: jaeger pid $(pid_of jaeger), collector pid $(pid_of collector); logs in $STATE"
    print_endpoints
}

cmd_down() {
    mkdir -p "$STATE"
    # Collector first, so it can flush its queue to Jaeger and the file.
    stop collector
    stop jaeger
}

cmd_status() {
    local ok=0 pid
    for name in jaeger collector; do
        if pid="$(pid_of "$name")"; then
            echo "$name: running (pid $pid)"
        else
            echo "$name: stopped"; ok=3
        fi
    done
    if answers "$HEALTH_URL"; then echo "collector health: ok ($HEALTH_URL)"; else echo "collector health: no answer ($HEALTH_URL)"; ok=3; fi
    if answers "$JAEGER_URL/api/services"; then echo "jaeger query: ok ($JAEGER_URL)"; else echo "jaeger query: no answer ($JAEGER_URL)"; ok=3; fi
    if (( ok == 0 )); then print_endpoints; fi
    return "$ok"
}

case "${1:-}" in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    *) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
