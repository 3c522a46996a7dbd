#!/usr/bin/env bash
# Benchmark laneplan's probe engine against fio on the same targets.
#
# Runs laneplan and fio alternately (PAIRS pairs per case) on a file on ext4 and on
# /dev/zram0 (set up here when it is free; skipped with a message otherwise), for
# 4K randread QD1, 4K randread QD32 and 64K seqread QD8, and prints the medians:
# (the `...t` cases run fio with QD psync threads instead of an io_uring ring: the like-for-like
# reference where laneplan's auto engine picks its thread engine, as it does on zram, LP0418)
# IOPS, p99 latency (fio's `lat`, submission to completion, not `clat`) and CPU time per I/O.
#
# CPU time is measured the same way on both sides: /usr/bin/time's user+system time of the
# whole process, which includes every thread (io_uring's iou-wrk workers too), divided by
# the I/Os of the run including the ramp (IOPS x (ramp + runtime)).
#
# Environment: PAIRS (3), RAMP (1), RUNTIME (5), BENCH_DIR (/var/tmp/laneplan-bench),
# FILE_SIZE_MB (1024), ZRAM_SIZE (1G), CASES (all: qd1,qd32,seq8,qd32t,seq8t), TARGETS (file,zram).
set -euo pipefail

PAIRS=${PAIRS:-3}
RAMP=${RAMP:-1}
RUNTIME=${RUNTIME:-5}
BENCH_DIR=${BENCH_DIR:-/var/tmp/laneplan-bench}
FILE_SIZE_MB=${FILE_SIZE_MB:-1024}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
CASES=${CASES:-qd1,qd32,seq8,qd32t,seq8t}
TARGETS=${TARGETS:-file,zram}
cd "$(dirname "$0")/.."

if ! command -v fio >/dev/null; then
    echo "installing fio from Debian..." >&2
    apt-get install -y fio >/dev/null
fi
[ -x /usr/bin/time ] || apt-get install -y time >/dev/null
cargo build --release --quiet
LP=$PWD/target/release/laneplan
mkdir -p "$BENCH_DIR"
RES=$(mktemp -d)
trap 'rm -rf "$RES"; [ "${ZRAM_OURS:-0}" = 1 ] && echo 1 > /sys/block/zram0/reset || true' EXIT

fstype=$(findmnt -no FSTYPE -T "$BENCH_DIR" 2>/dev/null || stat -f -c %T "$BENCH_DIR")
echo "# file target on $fstype ($BENCH_DIR); fio $(fio --version); kernel $(uname -r); $(nproc) CPUs" >&2
FILE=$BENCH_DIR/bench.img
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" -ne $((FILE_SIZE_MB << 20)) ]; then
    echo "writing $FILE ($FILE_SIZE_MB MiB of random data)..." >&2
    dd if=/dev/urandom of="$FILE" bs=1M count="$FILE_SIZE_MB" oflag=direct status=none
fi

targets=()
[[ $TARGETS == *file* ]] && targets+=("$FILE")
if [[ $TARGETS == *zram* ]]; then
    if [ -e /sys/block/zram0 ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ] \
        && echo "$ZRAM_SIZE" > /sys/block/zram0/disksize 2>/dev/null; then
        ZRAM_OURS=1
        echo "filling /dev/zram0 ($ZRAM_SIZE) with random data..." >&2
        dd if=/dev/urandom of=/dev/zram0 bs=1M oflag=direct status=none 2>/dev/null || true
        targets+=(/dev/zram0)
    else
        echo "SKIPPED zram: /dev/zram0 is missing or in use (disksize not 0) or cannot be sized" >&2
    fi
fi

# case -> "bs qd fio_engine rw"
declare -A SPEC=([qd1]="4k 1 psync randread" [qd32]="4k 32 io_uring randread" [seq8]="64k 8 io_uring read"
    [qd32t]="4k 32 psync-threads randread" [seq8t]="64k 8 psync-threads read")

run_fio() { # target bs qd engine rw out
    local extra=() engine=$4 depth=$3
    [ "$4" = io_uring ] && extra=(--fixedbufs --registerfiles)
    # QD synchronous threads, one I/O each, reported as one job.
    # Sequential: each thread its own equal region (fio's jobs would otherwise all read the
    # same blocks in step, from the CPU cache on zram).
    local size=100%
    [ "$4" = psync-threads ] && { engine=psync; depth=1; extra=(--numjobs="$3" --thread --group_reporting); }
    [ "$4" = psync-threads ] && [ "$5" = read ] && { size=$((100 / $3))%; extra+=(--offset_increment="$size"); }
    /usr/bin/time -f "%U %S" -o "$6.time" fio --name=b --filename="$1" --direct=1 --bs="$2" \
        --iodepth="$depth" --ioengine="$engine" "${extra[@]}" --rw="$5" --size="$size" --time_based \
        --ramp_time="$RAMP" --runtime="$RUNTIME" --lat_percentiles=1 --clat_percentiles=0 \
        --randrepeat=0 --norandommap --output-format=json > "$6" 2>/dev/null
    python3 - "$6" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
u, s = map(float, open(sys.argv[1] + ".time").read().split()[-2:])
print(j["iops"], j["lat_ns"]["percentile"]["99.000000"] / 1000, u + s)
PY
}

run_lp() { # target bs qd rw out
    local profile=4k-randread
    [ "$4" = read ] && profile=64k-seqread
    /usr/bin/time -f "%U %S" -o "$5.time" "$LP" probe "$1" --profile "$profile" --bs "$2" \
        --qd "$3" --ramp "${RAMP}s" --runtime "${RUNTIME}s" --working-set 100% --json > "$5"
    python3 - "$5" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
u, s = map(float, open(sys.argv[1] + ".time").read().split()[-2:])
print(d["iops"], d["latency"]["p99_us"], u + s)
PY
}

printf '%-12s %-18s %10s %10s %6s %9s %9s %6s %8s %8s %6s\n' target case "fio IOPS" "lp IOPS" ratio \
    "fio p99" "lp p99" ratio "fio CPU" "lp CPU" ratio
for t in "${targets[@]}"; do
    for c in ${CASES//,/ }; do
        read -r bs qd eng rw <<<"${SPEC[$c]}"
        : > "$RES/fio.$c" ; : > "$RES/lp.$c"
        for i in $(seq "$PAIRS"); do
            run_fio "$t" "$bs" "$qd" "$eng" "$rw" "$RES/f.json" >> "$RES/fio.$c"
            run_lp "$t" "$bs" "$qd" "$rw" "$RES/l.json" >> "$RES/lp.$c"
        done
        python3 - "$RES/fio.$c" "$RES/lp.$c" "$t" "$c" "$RAMP" "$RUNTIME" <<'PY'
import statistics as st, sys
def load(p):
    rows = [list(map(float, l.split())) for l in open(p) if l.strip()]
    T = float(sys.argv[5]) + float(sys.argv[6])
    iops = st.median(r[0] for r in rows)
    p99 = st.median(r[1] for r in rows)
    cpu = st.median(r[2] * 1e6 / (r[0] * T) for r in rows)  # µs per I/O
    return iops, p99, cpu
f, l = load(sys.argv[1]), load(sys.argv[2])
names = {"qd1": "4K randread QD1", "qd32": "4K randread QD32", "seq8": "64K seqread QD8",
         "qd32t": "4K rr QD32 fio-thr", "seq8t": "64K seq QD8 fio-thr"}
tgt = "zram" if "zram" in sys.argv[3] else "ext4 file"
print(f"{tgt:<12} {names[sys.argv[4]]:<18} {f[0]:10.0f} {l[0]:10.0f} {l[0]/f[0]:6.2f} "
      f"{f[1]:8.1f}u {l[1]:8.1f}u {l[1]/f[1]:6.2f} {f[2]:7.2f}u {l[2]:7.2f}u {l[2]/f[2]:6.2f}")
PY
    done
done
