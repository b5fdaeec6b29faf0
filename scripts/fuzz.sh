#!/usr/bin/env bash
# Continuous fuzzing: builds the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan) in
# build-fuzz/ and fuzzes each for SECONDS (default 60), one after the other. Each target starts
# from its committed corpus (tests/fuzz/corpus/<target>/, read only) and keeps what it learns in
# build-fuzz/corpus/<target>/; a crash, a sanitizer report, a broken invariant, a timeout or an
# out-of-memory is a finding: its input is kept under build-fuzz/findings/<target>/ and the
# script exits 1 after the last target. Prints one line per target: exec/s, cov, ft.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     (TARGET: e.g. csv import; default all)
# To keep a finding fixed: fix it, then copy its input to tests/fuzz/corpus/<target>/ (the ctest
# fuzz_<target>, label fuzz, replays that folder on every build).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
command -v clang++ >/dev/null || { echo "fuzz: clang++ is not installed (scripts/install-deps.sh)"; exit 1; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do
    t=$(basename "$f" .cpp)
    targets+=("${t#fuzz_}")
  done
fi
# JSON inputs get the dictionary and room for deep or long documents (the deep-JSON crash sat
# just past libFuzzer's default 4 KB lengths).
json_targets=" import issue_schema rest_page graphql_page worker_reply "

start=$(date +%s)
generator=()
[ -f build-fuzz/CMakeCache.txt ] || { command -v ninja >/dev/null && generator=(-G Ninja); }
CC=clang CXX=clang++ cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCONVFAIL_FUZZ=ON >/dev/null
mkdir -p build-fuzz/logs
# The build's output is kept; a failed build prints its errors and fails the run (it did silently).
cmake --build build-fuzz -j"$(nproc)" --target fuzz_all >build-fuzz/logs/build.log 2>&1 || {
  grep -E -A3 'error|FAILED' build-fuzz/logs/build.log | head -40
  echo "fuzz: the libFuzzer build failed (build-fuzz/logs/build.log)"
  exit 1
}
echo "fuzz: built ${#targets[@]} targets in $(($(date +%s) - start)) s; ${seconds} s each"

failed=()
for t in "${targets[@]}"; do
  bin=build-fuzz/tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: no target $t"; exit 2; }
  work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t log=build-fuzz/logs/$t.log
  mkdir -p "$work" "$findings" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -artifact_prefix="$findings/"
        -print_final_stats=1)
  if [[ $json_targets == *" $t "* ]]; then
    args+=(-dict=tests/fuzz/json.dict -max_len=300000)
  else
    args+=(-max_len=70000)
  fi
  rc=0
  "$bin" "${args[@]}" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  # The last status line: "#N DONE cov: C ft: F corp: ... exec/s: E rss: ...".
  status=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  printf 'fuzz: %-14s %s  runs %s  exec/s %s  cov %s  ft %s\n' "$t" \
    "$([ $rc -eq 0 ] && echo ok || echo FINDING)" "${runs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}"
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    grep -E 'ERROR|invariant broken|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/  /'
    echo "  input: $(ls -t "$findings" | head -1 | sed "s|^|$findings/|"); log: $log"
  fi
done
took=$(($(date +%s) - start))
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FINDINGS in ${failed[*]} (${#targets[@]} targets, ${took} s); inputs under build-fuzz/findings/"
  exit 1
fi
echo "fuzz: no finding in ${#targets[@]} targets (${seconds} s each, ${took} s with the build)"
