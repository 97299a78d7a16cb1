# One GPU-host session for tonemap: tests, sanitizers, element checks, benchmarks.
B=build-tonemap; T=$B/tests/tonemap/test-tonemap-cuda; CS=/usr/local/cuda/bin/compute-sanitizer
R=.gpu/run
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader > $OUT/gpu.txt 2>&1
( time $R $T ) > $OUT/test_cuda.txt 2>&1; echo "test-tonemap-cuda rc=$?"
( time TM_SMALL=1 $R $CS --tool memcheck --error-exitcode 3 $T ) > $OUT/san.txt 2>&1; echo "memcheck rc=$?"
( time TM_SMALL=2 $R $CS --tool racecheck --error-exitcode 3 $T ) >> $OUT/san.txt 2>&1; echo "racecheck rc=$?"
( time TM_SMALL=2 $R $CS --tool synccheck --error-exitcode 3 $T ) >> $OUT/san.txt 2>&1; echo "synccheck rc=$?"
export GST_PLUGIN_PATH_1_0=$PWD/$B/gst GST_REGISTRY_1_0=/tmp/tm-reg.bin CK_FORK=no
( time $R $B/tests/tonemap/check-cudatonemap ) > $OUT/check_cuda.txt 2>&1; echo "check-cudatonemap rc=$?"
( $R $B/bench/bench-tonemap 200 ) > $OUT/bench.txt 2>&1; echo "bench rc=$?"
C="format=P010_10LE,width=3840,height=2160,framerate=60/1,colorimetry=bt2100-pq"
( $R $B/bench/bench-pipeline cudatonemap "video/x-raw,$C" "video/x-raw,format=BGRx" 300 0 ) > $OUT/pipe.txt 2>&1; echo "pipe sys rc=$?"
( $R $B/bench/bench-pipeline cudatonemap "video/x-raw(memory:CUDAMemory),$C" "video/x-raw(memory:CUDAMemory),format=BGRx" 300 1 ) >> $OUT/pipe.txt 2>&1; echo "pipe cuda rc=$?"
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: ${NCU:-none}"
if [ -n "$NCU" ]; then timeout 70 $R $NCU --kernel-name regex:"tm_map_kernel|tm_update_kernel|tm_minmax" --launch-skip 30 --launch-count 3 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis_Tables $B/bench/bench-tonemap 40 > $OUT/ncu.txt 2>&1; echo "ncu rc=$?"; fi
cat $OUT/gpu.txt; grep -vE "^$|^real|^user|^sys" $OUT/test_cuda.txt | tail -8
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/san.txt
grep -E "Checks|:E:|:F:" $OUT/check_cuda.txt | head -5
grep "^|" $OUT/pipe.txt; cat $OUT/bench.txt
[ -f $OUT/ncu.txt ] && grep -E "tm_|Duration|Throughput|Issue Slots|Achieved Occupancy|Stall|Bank|Warp Cycles Per Issued|No Eligible|Registers" $OUT/ncu.txt | head -60
