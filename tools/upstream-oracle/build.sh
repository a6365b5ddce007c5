#!/usr/bin/env bash
# Builds the upstream oracle to tools/upstream-oracle/bin/upstream-oracle; with --test, also runs its Go tests (same
# flags, so they reuse the build's cache). Incremental: Go's build cache makes a rebuild with nothing changed take
# seconds; the first build compiles much of kube-apiserver (minutes). ensure-go.sh finds or installs a Go.
# Needs Go >= 1.26.0 (k8s.io/kubernetes v1.36.3's go.mod) and the Go module proxy, or a filled module cache.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    PATH="/usr/local/go/bin:$PATH"
  else
    echo "upstream-oracle: 'go' not found; install Go 1.26 or newer" >&2
    exit 1
  fi
fi
# go.sum pins every module; never let the build rewrite go.mod or go.sum.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"
# The go directive asks for 1.26.0; with GOTOOLCHAIN=auto an older go fetches that toolchain through the proxy.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p bin
go build -trimpath -o bin/upstream-oracle .
echo "upstream-oracle: built $(pwd)/bin/upstream-oracle ($(go version | awk '{print $3}'))"
if [ "${1:-}" = "--test" ]; then
  go test -trimpath ./...
fi
