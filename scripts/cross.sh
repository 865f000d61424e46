#!/usr/bin/env bash
# Builds and tests unpack for other GOOS/GOARCH targets.
#
#   scripts/cross.sh build [os/arch ...]   go vet (which type-checks every
#       package and its tests) and a build of cmd/unpack for each target;
#       default: every target in TARGETS.
#   scripts/cross.sh test os/arch [go test flags] [./packages]   runs the
#       unit tests (default: all but e2e, whose tests run the built binary and
#       testscript's re-exec) for a linux target: natively where this kernel
#       runs its binaries, else under qemu-user (scripts/install-tools.sh
#       installs it).
#   scripts/cross.sh corpus os/arch [go test flags]   TestCorpus likewise.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(linux/386 linux/arm linux/arm64 linux/s390x linux/ppc64 linux/riscv64
  windows/amd64 windows/arm64 darwin/amd64 darwin/arm64 freebsd/amd64)

# qemu-user's name for each GOARCH.
qemu_name() {
  case $1 in
    386) echo i386 ;;
    arm64) echo aarch64 ;;
    amd64) echo x86_64 ;;
    *) echo "$1" ;;
  esac
}

# runner prints the -exec wrapper for linux/$1 binaries on this machine
# ("" when they run natively), trying a tiny test binary first: an amd64
# kernel built without IA32 emulation cannot run 386 binaries.
runner() {
  local arch=$1 probe
  probe=$(mktemp -d)
  GOOS=linux GOARCH=$arch go test -c -o "$probe/probe.test" ./internal/hugemem >/dev/null
  if "$probe/probe.test" -test.run '^$' >/dev/null 2>&1; then
    rm -rf "$probe"
    return
  fi
  rm -rf "$probe"
  if [ "$arch" = 386 ] && [ -z "${CROSS_QEMU_386:-}" ]; then
    # qemu-i386 (7.2) crashes 386 Go programs that start a process
    # ("exitsyscall: syscall frame is no longer valid" in waitid), and
    # several tests run the reference tools: 32-bit is tested on linux/arm.
    # CROSS_QEMU_386=1 runs them under qemu-i386 all the same, the tests
    # that start a process skipping themselves (see below).
    echo skip
    return
  fi
  local q
  q=$(command -v "qemu-$(qemu_name "$arch")") || { echo "cross.sh: linux/$arch binaries do not run here and qemu-$(qemu_name "$arch") is not installed" >&2; exit 1; }
  echo "$q"
}

mode=${1:-build}
shift || true
case $mode in
  build)
    [ $# -gt 0 ] || set -- "${TARGETS[@]}"
    for t in "$@"; do
      echo "cross: $t"
      GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go vet ./...
      GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go build -o /dev/null ./cmd/unpack
    done
    ;;
  test|corpus)
    t=$1
    shift
    [ "${t%/*}" = linux ] || { echo "cross.sh: $mode runs linux targets only" >&2; exit 2; }
    arch=${t#*/}
    export GOOS=linux GOARCH=$arch CGO_ENABLED=0
    wrap=$(runner "$arch")
    if [ "$wrap" = skip ]; then
      echo "cross: $mode linux/$arch skipped: this kernel does not run its binaries (CROSS_QEMU_386=1: under qemu-i386)"
      exit 0
    fi
    args=()
    if [ -n "$wrap" ]; then
      args=(-exec "$wrap")
      if [ "$arch" = 386 ]; then
        # Go's asynchronous preemption signals crash 386 programs under
        # qemu-i386 ("fatal: bad g in signal handler").
        export GODEBUG=asyncpreemptoff=1${GODEBUG:+,$GODEBUG}
        # So does starting a process (waitid, epoll): the tests that
        # start one skip themselves (internal/testutil.NoProcessesEnv).
        export UNPACK_TEST_NO_PROCESSES=qemu-i386
        echo "cross: tests that start a process skip themselves (UNPACK_TEST_NO_PROCESSES=qemu-i386)"
      fi
    fi
    echo "cross: $mode linux/$arch${wrap:+ under $(basename "$wrap")}"
    if [ "$mode" = test ]; then
      # Arguments starting with ./ are packages (default: all but e2e).
      flags=() pkgs=()
      for a in "$@"; do
        case $a in ./*) pkgs+=("$a") ;; *) flags+=("$a") ;; esac
      done
      [ ${#pkgs[@]} -gt 0 ] || pkgs=($(go list ./... | grep -v '/e2e$'))
      go test "${args[@]}" -count=1 -skip '^TestCorpus$' "${flags[@]}" "${pkgs[@]}"
    else
      rc=0
      go test "${args[@]}" -count=1 -run '^TestCorpus$' -v "$@" ./internal/formats > ".corpus-$arch.log" 2>&1 || rc=$?
      grep -E '^(corpus:|--- FAIL|    corpus_test|ok|FAIL)' ".corpus-$arch.log"; rm -f ".corpus-$arch.log"
      exit $rc
    fi
    ;;
  *)
    echo "usage: scripts/cross.sh build [os/arch ...] | test os/arch [flags] | corpus os/arch [flags]" >&2
    exit 2
    ;;
esac
