#!/usr/bin/env bash
# f = the landed build; e4 = one in four of P's exponentials emulated on the FP32 pipe
# (exp2_emulated) in every Hopper kernel; e8 = one in eight. Checks of e4 and e8, then the
# attention benchmark in the order f e4 e8 torch e8 e4 f torch (torch: cuDNN and flash at
# head_dim 64 and 128).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in f e4 e8; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
for v in e4 e8; do
  timeout 130 /tmp/$v/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/checks-attention-$v.txt 2>&1; echo "checks $v rc=$?"; grep -E "[0-9]+ passed|FAIL|rror" $R/checks-attention-$v.txt | head -5
done
tar czf $OUT/res.tgz -C $OUT res
for v in f e4 e8 torch e8 e4 f torch; do
  i=$(( $(ls $R/$v[0-9]*.json 2>/dev/null | wc -l) + 1 ))
  if [ $v = torch ]; then
    (cd /tmp/f/gpu-bundle && timeout 120 python3 "$here/torch_sdpa.py" --head-dims 64,128 --backends cudnn,flash > $R/torch$i.json 2> $R/torch$i.txt; echo "torch$i rc=$?")
  else
    timeout 60 /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
  fi
  tar czf $OUT/res.tgz -C $OUT res
done
python3 "$here/table2.py" $R f f e4 e8 | tee $R/table.md
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
