#!/usr/bin/env bash
# Prints the directory of a `go` that can build the oracle (Go >= 1.26.0, k8s.io/kubernetes v1.36.3's go.mod).
# Uses the one on PATH or in /usr/local/go when there is one; otherwise installs Go 1.26.8 from the Go module proxy
# (the golang.org/toolchain module that `GOTOOLCHAIN` itself downloads), checked against a pinned SHA-256, into
# ${XDG_CACHE_HOME:-$HOME/.cache}/static-admissiond/. Debian 12's golang-go (1.19) is too old to build it or to
# switch toolchains itself.
set -euo pipefail
version=1.26.8
declare -A sha256=(
  [amd64]=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
)
for candidate in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    dirname "$candidate"
    exit 0
  fi
done
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch="$(uname -m)" ;;
esac
if [ -z "${sha256[$arch]:-}" ]; then
  echo "ensure-go: no Go on PATH and no pinned Go $version for linux-$arch; install Go >= 1.26" >&2
  exit 1
fi
module="golang.org/toolchain@v0.0.1-go$version.linux-$arch"
dest="${XDG_CACHE_HOME:-$HOME/.cache}/static-admissiond/go$version.linux-$arch"
if [ ! -x "$dest/bin/go" ]; then
  # The machine's configured Go module proxy; none configured means nowhere to fetch from.
  proxy="${GOPROXY:-}"
  proxy="${proxy%%[,|]*}"
  case "$proxy" in
    http://* | https://*) ;;
    *) echo "ensure-go: no Go on PATH and GOPROXY names no proxy to fetch Go $version from; install Go >= 1.26" >&2; exit 1 ;;
  esac
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "ensure-go: downloading Go $version (linux-$arch) from $proxy" >&2
  curl -fsSL --retry 3 -o "$work/go.zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$version.linux-$arch.zip"
  echo "${sha256[$arch]}  $work/go.zip" | sha256sum -c --quiet - >&2
  unzip -q "$work/go.zip" -d "$work/unpacked"
  # Module zips keep no file modes; `go` restores them the same way when it switches toolchains.
  chmod -R u+w,a+rX "$work/unpacked"
  find "$work/unpacked/$module/bin" "$work/unpacked/$module/pkg/tool" -type f -exec chmod a+x {} +
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest"
  mv "$work/unpacked/$module" "$dest"
fi
echo "$dest/bin"
