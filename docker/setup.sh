#!/usr/bin/env bash
# Installs what logsift needs (docker/packages.txt), builds it, then runs
#   serve  the service on its embedded defaults (data under ./logsift-data), or
#   test   the whole test suite (ctest), then its sanitizer runs (ASan + UBSan, TSan).
# For a fresh Debian 12 machine, as root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
mode="${1:-test}"

# Each phase's wall time, printed as it ends and once more as a summary, so a
# CI log says where the run's time went (install, build, suites, sanitizers).
phase_start=$SECONDS
phase_done() {  # NAME
  local took=$((SECONDS - phase_start))
  phases+=("$1 ${took} s")
  echo "setup: phase $1 took ${took} s" >&2
  phase_start=$SECONDS
}
phases=()

need_install=0
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_install=1
done < "$here/packages.txt"
if [[ $need_install == 1 ]]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  grep -v '^\s*#' "$here/packages.txt" | xargs apt-get install -y -qq --no-install-recommends
fi
phase_done install

build="${LOGSIFT_BUILD_DIR:-$root/build}"
# The test run groups unit test cases into gtest shards (one process each:
# each process pays ~1 s loading libtorch); see LOGSIFT_UNIT_SHARDS in CMakeLists.txt.
shards=()
[[ "$mode" == test ]] && shards=(-DLOGSIFT_UNIT_SHARDS="${LOGSIFT_UNIT_SHARDS:-4}")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${shards[@]}" >/dev/null
# 2 cores: more jobs only thrash (libtorch headers need ~1 GB per compiler).
cmake --build "$build" -j "${LOGSIFT_BUILD_JOBS:-2}"
phase_done build

case "$mode" in
  serve)
    shift || true
    exec "$build/logsift" serve --data-dir "${LOGSIFT_DATA_DIR:-$root/logsift-data}" "$@"
    ;;
  test)
    # The real npm log shippers the integration tests drive (tests/clients,
    # pinned by its package-lock.json), installed beside the build.
    clients="$build/npm-clients"
    mkdir -p "$clients"
    # syslog-ng (syslog-ng-core conflicts with rsyslog): its Debian packages
    # unpacked, not installed, for SyslogIngest.SyslogNgRelaysThroughEachOfItsDrivers.
    sng="$build/syslog-ng"
    if [[ ! -x "$sng/root/usr/sbin/syslog-ng" ]]; then
      mkdir -p "$sng/debs"
      (cd "$sng/debs" && { apt-get download syslog-ng-core syslog-ng-scl syslog-ng-mod-http 2>/dev/null ||
        { apt-get update -qq && apt-get download syslog-ng-core syslog-ng-scl syslog-ng-mod-http; }; })
      for deb in "$sng"/debs/*.deb; do dpkg -x "$deb" "$sng/root"; done
    fi
    command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
    if ! cmp -s "$root/tests/clients/package-lock.json" "$clients/package-lock.json" || [[ ! -d "$clients/node_modules" ]]; then
      cp "$root/tests/clients/package.json" "$root/tests/clients/package-lock.json" "$clients/"
      (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
    fi
    # The release suite, then the same tests under ASan + UBSan and the
    # concurrency tests under TSan (tests/sanitizers/run.sh);
    # LOGSIFT_SANITIZERS=0 skips the sanitizer runs (a quicker local loop).
    phase_done test-clients
    status=0
    (cd "$build" && ctest --output-on-failure -j 2 --timeout 300) || status=1
    phase_done release-suite
    if [[ "${LOGSIFT_SANITIZERS:-1}" != 0 ]]; then
      LOGSIFT_BUILD_DIR="$build" bash "$root/tests/sanitizers/run.sh" all || status=1
      phase_done sanitizers
    fi
    echo "setup: phases: $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g'); total $SECONDS s" >&2
    exit $status
    ;;
  build) ;;
  *)
    echo "usage: docker/setup.sh serve|test|build" >&2
    exit 2
    ;;
esac
