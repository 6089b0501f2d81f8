#!/usr/bin/env bash
# Release builds of the access command: linux, macOS and Windows on amd64
# and arm64, into dist/ (or $DIST), with SHA-256 checksums in SHA256SUMS.
#
#   bash scripts/release.sh           # or: make release
#   DIST=/tmp/out TARGETS="linux/amd64" bash scripts/release.sh
#
# Each binary is built with -trimpath (no paths of the build machine) and
# -ldflags "-s -w" (no symbol table, no DWARF), statically (CGO_ENABLED=0),
# and with the module's build information: "access --version" names the
# module version, the commit and whether the tree was modified (Go stamps
# the commit from a checkout whose .git is a directory; a git worktree or
# a source archive gives "commit: unknown"). Nothing is uploaded.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=${DIST:-dist}
targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

rm -rf "$dist"
mkdir -p "$dist"
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  ext=
  [ "$goos" = windows ] && ext=.exe
  bin="access_${goos}_${goarch}${ext}"
  # -buildvcs=auto overrides a GOFLAGS=-buildvcs=false of the environment
  # and stamps the commit wherever git can tell it.
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch \
    go build -trimpath -buildvcs=auto -ldflags "-s -w" -o "$dist/$bin" ./cmd/access
  echo "$dist/$bin: $(wc -c <"$dist/$bin" | tr -d ' ') bytes"
done

# SHA256SUMS in the format "sha256sum -c" (and "shasum -a 256 -c") reads.
(
  cd "$dist"
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum access_* >SHA256SUMS
    sha256sum -c --quiet SHA256SUMS
  else
    shasum -a 256 access_* >SHA256SUMS
    shasum -a 256 -c --quiet SHA256SUMS
  fi
)
echo "$dist/SHA256SUMS written"
