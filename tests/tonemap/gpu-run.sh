B=build-tonemap; T=$B/tests/tonemap/test-tonemap-cuda; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv > $OUT/gpu.txt 2>&1
( time .gpu/run $T ) > $OUT/test_cuda.log 2>&1; echo "test rc=$?"
( time TM_SMALL=1 .gpu/run $CS --tool memcheck --error-exitcode 3 $T ) > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"
( time TM_SMALL=2 .gpu/run $CS --tool racecheck --error-exitcode 3 $T ) > $OUT/racecheck.log 2>&1; echo "racecheck rc=$?"
( time TM_SMALL=2 .gpu/run $CS --tool synccheck --error-exitcode 3 $T ) > $OUT/synccheck.log 2>&1; echo "synccheck rc=$?"
( time .gpu/run $B/bench/bench-tonemap 300 ) > $OUT/bench.log 2>&1; echo "bench rc=$?"
cat $OUT/gpu.txt; grep -v "^$" $OUT/test_cuda.log | tail -12; for f in memcheck racecheck synccheck; do grep -E "ERROR SUMMARY|RACECHECK SUMMARY|real|passed|FAIL" $OUT/$f.log | head -5; done; cat $OUT/bench.log
