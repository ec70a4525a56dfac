#!/bin/bash
# Instructions per iteration of cases of the `chain` bench, under callgrind
# (recipe in the top comment of runtime/benches/chain.rs): each case runs
# 1,000 and 2,000 times in a plain loop, and the difference of the two
# totals / 1,000 is printed. BENCHMARKS.md quotes its output.
#
#   cargo bench -p hookwire --bench chain --no-run   # prints the binary
#   runtime/benches/instructions.sh target/release/deps/chain-<hash> [<group>/<case> ...]
set -euo pipefail
bin=${1:?usage: $0 <chain bench binary> [<group>/<case> ...]}
shift
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(e2e/input_only e2e/hand_written e2e/generated_0_hooks e2e/generated_4_hooks
    e2e/generated_guard_3_pass e2e/generated_reads_args
    e2e/generated_guard_3_pass_typed e2e/generated_reads_args_typed
    e2e/input_only_arc e2e/hand_written_arc e2e/generated_0_hooks_arc
    loop/answer_only loop/one_call loop/answer_only_streamed loop/one_call_streamed)
fi
total() {
  HOOKWIRE_BENCH_LOOP="$1:$2" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 |
    awk '/Collected/ {print $4}'
}
for c in "${cases[@]}"; do
  a=$(total "$c" 1000)
  b=$(total "$c" 2000)
  echo "$c $(((b - a) / 1000))"
done
