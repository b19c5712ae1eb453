#!/usr/bin/env bash
# Runs the test suites (unit + e2e + embedded smoke, i.e. `npm test`) on Node 24, the Docker
# image's runtime, without touching this checkout's node_modules (built for the machine's Node):
#
#   1. Node 24 from scripts/node24.sh (cached outside the repository);
#   2. the repository's tracked files, as they are in the working tree (uncommitted edits
#      included, untracked files not: see PARLEY_NODE24_SOURCE), copied into a temporary folder;
#   3. `npm install` there with Node 24 first on PATH and npm_config_nodedir at its headers, so
#      argon2's native binding is built for Node 24's ABI;
#   4. checks: `node -v` is v24; argon2 hashes and verifies with the binding npm installed (on
#      the official Node 24 build its prebuilt binary loads, as in the Docker image) and with
#      one built from source against Node 24's headers (what the Dockerfile's g++ is there for);
#      the suites then run with the binding npm installed;
#   5. `npm run build` (suites may start dist/src/main.js), then `npm test`.
#
# The environment passes through: TEST_DATABASE_URL / TEST_REDIS_URL as for `npm test` (CI gives
# its PostgreSQL and Redis). Extra arguments go to Jest, e.g. `scripts/test-node24.sh
# --selectProjects unit`. Exit code: the tests' (or that of the step that failed before them).
#
#   TMPDIR                 where the temporary folder goes (default /tmp)
#   PARLEY_NODE24_KEEP=1   keep the temporary folder (its path is printed) for a look afterwards
#   PARLEY_NODE24_SOURCE   what to test: `worktree` (default: tracked files as they are on disk;
#                          in CI's fresh clone that is HEAD), `worktree+untracked` (also files not
#                          yet `git add`ed, unless ignored), or a commit, e.g. `HEAD` (git archive)
#   PARLEY_NODE24_TEST_TIMEOUT  seconds `npm test` may take before it is stopped (default 480: a
#                          Jest that does not exit after a failed run must not hold CI)
#   PARLEY_NODE24_DIR, PARLEY_NODE24_VERSION: see scripts/node24.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
started=$(date +%s)
say() { printf '[node24 %4ss] %s\n' "$(($(date +%s) - started))" "$*"; }

N24=$(bash "$ROOT/scripts/node24.sh" </dev/null | tail -n1)
if [[ -z "$N24" || ! -x "$N24/bin/node" ]]; then
  echo "test-node24: scripts/node24.sh gave no Node 24 directory" >&2
  exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/parley-node24.XXXXXX")
# As root, the embedded PostgreSQL runs as the OS user `postgres`, which must be able to reach
# its binaries in this folder's node_modules.
chmod 755 "$WORK"
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
  local rc=$?
  if [[ "${PARLEY_NODE24_KEEP:-0}" == 1 ]]; then
    say "kept $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
test_pid=""
# shellcheck disable=SC2317 # invoked by the traps
stop() {
  # `timeout` runs the tests in a process group of their own, out of reach of the terminal's
  # Ctrl-C: pass the signal on (it forwards it to the group) and let them go before cleaning up.
  if [[ -n "$test_pid" ]]; then
    kill -TERM "$test_pid" 2>/dev/null || true
    wait "$test_pid" 2>/dev/null || true
  fi
  exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM

# --- copy the sources -----------------------------------------------------------------------------
SOURCE=${PARLEY_NODE24_SOURCE:-worktree}
case "$SOURCE" in
  worktree | worktree+untracked)
    say "copying the tracked files$([[ $SOURCE == worktree ]] || echo ' and untracked ones') of $ROOT into $WORK"
    files=()
    while IFS= read -r -d '' f; do
      # A tracked file deleted in the working tree stays deleted in the copy.
      if [[ -e "$ROOT/$f" || -L "$ROOT/$f" ]]; then files+=("$f"); fi
    done < <(
      git -C "$ROOT" ls-files -z --cached
      if [[ "$SOURCE" == worktree+untracked ]]; then
        git -C "$ROOT" ls-files -z --others --exclude-standard
      fi
    )
    (cd "$ROOT" && printf '%s\0' "${files[@]}" |
      xargs -0 cp -P --preserve=mode,timestamps --parents -t "$WORK")
    if [[ "$SOURCE" == worktree ]]; then
      untracked=$(git -C "$ROOT" ls-files --others --exclude-standard -- src test migrations bench | wc -l)
      if [[ "$untracked" -gt 0 ]]; then
        say "note: $untracked untracked file(s) under src/ test/ migrations/ bench/ not copied" \
          "(git add them, or PARLEY_NODE24_SOURCE=worktree+untracked)"
      fi
    fi
    ;;
  *)
    commit=$(git -C "$ROOT" rev-parse --verify --quiet "${SOURCE}^{commit}") || {
      echo "test-node24: PARLEY_NODE24_SOURCE=$SOURCE is neither worktree[+untracked] nor a commit" >&2
      exit 2
    }
    say "exporting $SOURCE ($(git -C "$ROOT" log -1 --format='%h %s' "$commit" | cut -c1-72)) into $WORK"
    git -C "$ROOT" archive --format=tar "$commit" | tar -x -C "$WORK"
    ;;
esac

cd "$WORK"
export PATH="$N24/bin:$PATH"
export npm_config_nodedir="$N24"
hash -r

v=$(node -v)
if [[ "$v" != v24.* ]]; then
  echo "test-node24: node on PATH is $v, not Node 24" >&2
  exit 1
fi
say "node $v (ABI $(node -p process.versions.modules), $(command -v node)), npm $(npm -v)"

# --- install: the same lock, native modules for Node 24 -----------------------------------------
# PARLEY_NODE24_FROM_ROOT=1 (CI): the checkout's node_modules and dist, installed and built a
# moment ago from the same lockfile and sources, are copied instead of installed and built again
# (~45 s less). The only native module loaded at run time, argon2, is an N-API prebuild that
# loads on any ABI — checked right below, with the from-source build against Node 24's headers.
FROM_ROOT=${PARLEY_NODE24_FROM_ROOT:-0}
if [[ "$FROM_ROOT" == 1 && -d "$ROOT/node_modules" && -f "$ROOT/dist/src/main.js" ]]; then
  say "copying node_modules and dist of $ROOT (PARLEY_NODE24_FROM_ROOT=1)"
  cp -a "$ROOT/node_modules" "$ROOT/dist" "$WORK/"
  # The argon2 binding built for Node 20 (if any) goes: the checks below load the prebuild, then
  # build it from source against Node 24's headers, as the Docker image does.
  rm -rf "$WORK/node_modules/argon2/build"
else
  FROM_ROOT=0
  say "npm install (native modules for Node 24: npm_config_nodedir=$N24)"
  cp package-lock.json "$WORK/.package-lock.orig.json"
  npm install --no-audit --no-fund </dev/null
  if ! cmp -s package-lock.json "$WORK/.package-lock.orig.json"; then
    # Not necessarily Node 24's doing: npm rewrites a lock it would write differently on any runtime.
    changed=$(diff "$WORK/.package-lock.orig.json" package-lock.json | grep -c '^[<>]' || true)
    say "note: npm install rewrote package-lock.json ($changed changed lines; the tests use the tree it installed)"
  fi
fi

# Hashes and verifies in a child process (a bad binding may segfault), naming the binding used.
argon2_check() {
  node -e "
    const { dirname } = require('node:path');
    const dir = dirname(require.resolve('argon2/package.json'));
    const gyp = require(require.resolve('node-gyp-build', { paths: [dir] }));
    const file = gyp.resolve(dir);
    const a = require('argon2');
    a.hash('x').then((h) => a.verify(h, 'x')).then((ok) => {
      if (!ok) { console.error('argon2 verify failed'); process.exit(1); }
      console.log('argon2 hash+verify ok on ' + process.version + ' with ' + file);
    }, (e) => { console.error(e); process.exit(1); });
  "
}
say "argon2 binding works on Node 24 (as installed)"
argon2_check
if [[ ! -d node_modules/argon2/build ]]; then
  # npm kept the prebuilt binary: check the from-source build against Node 24's headers too,
  # then remove it so the suites run with what npm installed.
  say "argon2 built from source against Node 24's headers"
  npm rebuild argon2 --build-from-source --no-audit --no-fund </dev/null >/dev/null
  argon2_check
  rm -rf node_modules/argon2/build
fi

# --- build, then the suites ------------------------------------------------------------------------
if [[ "$FROM_ROOT" == 0 ]]; then
  say "build"
  npm run build </dev/null
fi

say "npm test on Node $v (TEST_DATABASE_URL=${TEST_DATABASE_URL:-<embedded>}, TEST_REDIS_URL=${TEST_REDIS_URL:-<private redis-server>})"
# Jest's cache inside the folder: its paths are new on every run, so entries would never be hit
# again and would only pile up in the shared temp folder.
# `timeout` signals the whole process group (npm, Jest and its workers).
rc=0
# PARLEY_NODE24_SERIAL=0: without the serial project (`posttest`), e.g. while other tests share
# the machine (CI runs it on Node 20, alone).
npm_flags=()
if [[ "${PARLEY_NODE24_SERIAL:-1}" == 0 ]]; then npm_flags+=(--ignore-scripts); fi
timeout --kill-after=20 "${PARLEY_NODE24_TEST_TIMEOUT:-480}" \
  npm test "${npm_flags[@]}" -- --cacheDirectory "$WORK/.jest-cache" "$@" </dev/null &
test_pid=$!
wait "$test_pid" || rc=$?
test_pid=""
if [[ $rc -eq 124 ]]; then
  say "npm test did not finish within ${PARLEY_NODE24_TEST_TIMEOUT:-480}s (stopped)"
fi
say "npm test on Node $v exited $rc"
exit "$rc"
