#!/usr/bin/env bash
# old = the landed build (two K/V stages everywhere); s4 = four K/V stages at head_dim 64 (the
# rings sized by attention_sm90_kv_stages); s3 = three there; t = s4 with the consumers' turns
# running on across tiles (every product issue a turn); s4w = s4 with the 192-row d64 blocks at
# every length (CUTE_EXP_WIDE_ALL). The attention benchmark in the order
# old s4 t s3 s4w torch t s4 old s3 s4w torch (torch: cuDNN and flash at head_dim 64 and 128).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old s4 s3 t; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
for v in old s4 t s3 s4w torch t s4 old s3 s4w torch; do
  i=$(( $(ls $R/$v[0-9]*.json 2>/dev/null | wc -l) + 1 ))
  if [ $v = torch ]; then
    (cd /tmp/s4/gpu-bundle && timeout 120 python3 peers/torch_sdpa.py --head-dims 64,128 --backends cudnn,flash > $R/torch$i.json 2> $R/torch$i.txt; echo "torch$i rc=$?")
  elif [ $v = s4w ]; then
    CUTE_EXP_WIDE_ALL=1 timeout 60 /tmp/s4/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
  else
    timeout 60 /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
  fi
  tar czf $OUT/res.tgz -C $OUT res
done
python3 "$here/table2.py" $R old old s4 s3 s4w t | tee $R/table.md
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
