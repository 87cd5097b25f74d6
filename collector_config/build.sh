#!/usr/bin/env bash
# Build ragfunnel's OpenTelemetry Collector (with the OpenTelemetry Collector
# Builder, from builder-config.yaml) and Jaeger v2 (from the Go module
# github.com/jaegertracing/jaeger), caching both binaries OUTSIDE the repository.
#
#   collector_config/build.sh           build what is missing, validate the configs,
#                                       print OTELCOL=/abs/path and JAEGER=/abs/path
#   collector_config/build.sh --print   print the two paths if both are built, else exit 1
#   collector_config/build.sh --force   rebuild both even if cached
#   collector_config/build.sh --no-validate   skip the config validation at the end
#
# Cache: ${RAGFUNNEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragfunnel}
#   bin/otelcol-ragfunnel-<collector version>-<sha256(builder-config.yaml)[:12]>
#   bin/jaeger-<jaeger module version>
#   tools/ocb-<builder version>        the builder itself
#   build/                             generated sources, copied module, logs
# Go modules come from the Go module proxy (GOPROXY); GOPATH/GOMODCACHE stay default.
# Needs: go >= 1.25 on PATH. Takes several minutes per binary on 2 cores the first time.
set -euo pipefail

OTELCOL_VERSION=0.165.0                       # collector core "beta" modules
BUILDER_MODULE=go.opentelemetry.io/collector/cmd/builder
BUILDER_VERSION=v${OTELCOL_VERSION}
JAEGER_MODULE=github.com/jaegertracing/jaeger
JAEGER_VERSION=1.76.0                         # module v1.76.0 = Jaeger v2 binary (cmd/jaeger)
JAEGER_V2_VERSION=2.13.0                      # the release name of that binary (CHANGELOG: v1.76.0 / v2.13.0)
GO_MIN_MINOR=25                               # go 1.25+: the generated go.mod says go 1.25

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MANIFEST="$HERE/builder-config.yaml"
CACHE="${RAGFUNNEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragfunnel}"
BIN="$CACHE/bin"
TOOLS="$CACHE/tools"
BUILD="$CACHE/build"

log() { printf '[build.sh] %s\n' "$*" >&2; }
die() {
    # die STEP MESSAGE [LOGFILE]
    printf '[build.sh] FAILED at step "%s": %s\n' "$1" "$2" >&2
    if [[ -n "${3:-}" && -f "$3" ]]; then
        printf '[build.sh] last lines of %s:\n' "$3" >&2
        tail -n 25 "$3" | sed 's/^/    /' >&2
    fi
    exit 1
}

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

MODE=build
FORCE=0
VALIDATE=1
for arg in "$@"; do
    case "$arg" in
        --print) MODE=print ;;
        --force) FORCE=1 ;;
        --no-validate) VALIDATE=0 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "arguments" "unknown argument '$arg'" ;;
    esac
done

[[ -f "$MANIFEST" ]] || die "manifest" "missing $MANIFEST"
MANIFEST_HASH="$(sha256sum "$MANIFEST" | cut -c1-12)"
OTELCOL="$BIN/otelcol-ragfunnel-${OTELCOL_VERSION}-${MANIFEST_HASH}"
JAEGER="$BIN/jaeger-${JAEGER_VERSION}"

if [[ "$MODE" == print ]]; then
    missing=0
    [[ -x "$OTELCOL" ]] || { log "not built: $OTELCOL"; missing=1; }
    [[ -x "$JAEGER" ]] || { log "not built: $JAEGER"; missing=1; }
    (( missing == 0 )) || { log "run collector_config/build.sh first"; exit 1; }
    echo "OTELCOL=$OTELCOL"
    echo "JAEGER=$JAEGER"
    exit 0
fi

# ---------------------------------------------------------------- preflight
command -v go >/dev/null 2>&1 \
    || die "preflight" "'go' not found on PATH; install Go >= 1.${GO_MIN_MINOR} (e.g. /usr/local/go/bin)"
go_version="$(go env GOVERSION 2>/dev/null || true)"        # e.g. go1.26.8
go_minor="$(sed -E 's/^go1\.([0-9]+).*/\1/' <<<"$go_version")"
[[ "$go_minor" =~ ^[0-9]+$ && "$go_minor" -ge "$GO_MIN_MINOR" ]] \
    || die "preflight" "need Go >= 1.${GO_MIN_MINOR}, found '${go_version:-unknown}'"

mkdir -p "$BIN" "$TOOLS" "$BUILD"

# One build at a time per cache directory (CI and a developer may share it).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/build.lock"
    flock 9
fi

# Reproducible, smaller binaries; keep any GOFLAGS the user already has.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
export CGO_ENABLED=0

now() { date +%s; }

# ---------------------------------------------------------------- collector
build_otelcol() {
    local ocb="$TOOLS/ocb-${BUILDER_VERSION}"
    local work="$BUILD/otelcol-${OTELCOL_VERSION}-${MANIFEST_HASH}"
    local blog="$work/build.log"
    local t0; t0="$(now)"

    if [[ ! -x "$ocb" ]]; then
        log "installing the collector builder ${BUILDER_MODULE}@${BUILDER_VERSION}"
        local gobin="$TOOLS/.gobin.$$"
        rm -rf "$gobin"; mkdir -p "$gobin"
        GOBIN="$gobin" go install "${BUILDER_MODULE}@${BUILDER_VERSION}" >"$TOOLS/ocb-install.log" 2>&1 \
            || die "install builder" "go install ${BUILDER_MODULE}@${BUILDER_VERSION} failed; check that the Go module proxy is reachable (go env GOPROXY)" "$TOOLS/ocb-install.log"
        mv "$gobin/builder" "$ocb"
        rm -rf "$gobin"
    fi

    rm -rf "$work"; mkdir -p "$work"
    cp "$MANIFEST" "$work/builder-config.yaml"
    log "generating collector sources in $work (log: $blog)"
    # Step 1: generate sources + go.mod, then `go mod tidy` (run by the builder).
    if ! (cd "$work" && "$ocb" --config=builder-config.yaml --skip-compilation) >"$blog" 2>&1; then
        # The builder's `go mod tidy` also resolves the *test* imports of every
        # component. Some of those modules cannot be downloaded from every proxy
        # (e.g. contrib's otlpencodingextension zip answers 403 here, needed only by
        # fileexporter's tests). `go mod tidy -e` records what it can and goes on;
        # the collector binary itself does not need those modules.
        [[ -f "$work/ragfunnel-otelcol/go.mod" ]] \
            || die "generate collector" "the builder did not generate sources; check builder-config.yaml" "$blog"
        log "builder's go mod tidy failed (see $blog); retrying with 'go mod tidy -e'"
        (cd "$work/ragfunnel-otelcol" && go mod tidy -e -compat=1.25) >>"$blog" 2>&1 \
            || die "go mod tidy" "could not resolve the collector's modules; check GOPROXY and the versions in builder-config.yaml" "$blog"
    fi
    # Step 2: compile (go build -trimpath -ldflags '-s -w', CGO off).
    log "compiling the collector (several minutes on 2 cores)"
    (cd "$work" && "$ocb" --config=builder-config.yaml --skip-generate --skip-get-modules --ldflags="-s -w") >>"$blog" 2>&1 \
        || die "compile collector" "go build of the generated collector failed" "$blog"
    local out="$work/ragfunnel-otelcol/ragfunnel-otelcol"
    [[ -x "$out" ]] || die "compile collector" "builder reported success but $out is missing" "$blog"
    cp "$out" "$OTELCOL.tmp.$$" && mv -f "$OTELCOL.tmp.$$" "$OTELCOL"
    log "collector built in $(( $(now) - t0 ))s: $OTELCOL"
}

# ---------------------------------------------------------------- jaeger
build_jaeger() {
    local work="$BUILD/jaeger-${JAEGER_VERSION}"
    local blog="$BUILD/jaeger-${JAEGER_VERSION}.log"
    local t0; t0="$(now)"
    : >"$blog"

    # `go install module@version` refuses modules whose go.mod has replace
    # directives (Jaeger's has one), so download the module and build inside it.
    log "downloading ${JAEGER_MODULE}@v${JAEGER_VERSION} (log: $blog)"
    local dir
    dir="$(cd "$BUILD" && go mod download -json "${JAEGER_MODULE}@v${JAEGER_VERSION}" 2>>"$blog" \
           | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')" || true
    [[ -n "$dir" && -f "$dir/go.mod" ]] \
        || die "download jaeger" "go mod download ${JAEGER_MODULE}@v${JAEGER_VERSION} failed; check GOPROXY" "$blog"

    # The module cache is read-only; build from a writable copy.
    rm -rf "$work"
    cp -R "$dir" "$work"
    chmod -R u+w "$work"
    log "compiling Jaeger v2 (./cmd/jaeger; several minutes on 2 cores)"
    (cd "$work" && go build -ldflags="-s -w -X ${JAEGER_MODULE}/internal/version.latestVersion=v${JAEGER_V2_VERSION}" -o "$JAEGER.tmp.$$" ./cmd/jaeger) >>"$blog" 2>&1 \
        || { rm -f "$JAEGER.tmp.$$"; die "compile jaeger" "go build ./cmd/jaeger failed" "$blog"; }
    mv -f "$JAEGER.tmp.$$" "$JAEGER"
    rm -rf "$work"        # the sources stay in the module cache
    log "jaeger built in $(( $(now) - t0 ))s: $JAEGER"
}

if (( FORCE )) || [[ ! -x "$OTELCOL" ]]; then build_otelcol; else log "cached: $OTELCOL"; fi
if (( FORCE )) || [[ ! -x "$JAEGER" ]]; then build_jaeger; else log "cached: $JAEGER"; fi

# ---------------------------------------------------------------- validate
if (( VALIDATE )); then
    # Every variable used by the configs has a default, so they validate as
    # shipped; variables already set in the environment are honoured.
    for cfg in "$HERE"/otelcol*.yaml; do
        vlog="$BUILD/validate-$(basename "$cfg" .yaml).log"
        "$OTELCOL" validate --config="$cfg" >"$vlog" 2>&1 \
            || die "validate" "$(basename "$cfg") does not validate with $OTELCOL" "$vlog"
        log "valid: $(basename "$cfg")"
    done
    vlog="$BUILD/validate-jaeger.log"
    "$JAEGER" validate --config="$HERE/jaeger.yaml" >"$vlog" 2>&1 \
        || die "validate" "jaeger.yaml does not validate with $JAEGER" "$vlog"
    log "valid: jaeger.yaml"
fi

echo "OTELCOL=$OTELCOL"
echo "JAEGER=$JAEGER"
