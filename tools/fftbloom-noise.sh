#!/bin/bash
# cudafftbloom vs cpufftbloom far from any light at high intensity: the
# single-precision FFTs' noise floor (docs/fftbloom.md). Needs the plugin on
# GST_PLUGIN_PATH and a GPU; RUN may wrap gst-launch (e.g. .gpu/run); OUT a
# directory for the frames. SPDX-License-Identifier: LGPL-2.1-or-later
D=${OUT:-/tmp}/fftbloom-noise; mkdir -p $D; cd $D
python3 - <<'PY'
w,h=640,360
open('half64.raw','wb').write(((b'\xff\xff'*4)*(w//2)+(b'\0\0'*3+b'\xff\xff')*(w//2))*h)
open('half8.raw','wb').write(((b'\xff'*4)*(w//2)+(b'\0'*3+b'\xff')*(w//2))*h)
PY
for fmt in rgba64-le:half64:RGBA64_LE: rgba64-le:half64:RGBA64_LE:1:1:1:1 rgba:half8:RGBA:; do
  IFS=: read pf file gf col <<<"$fmt"
  c=""; [ -n "$col" ] && c="colorimetry=$col"
  for i in 1 20 100; do
    for e in cpufftbloom cudafftbloom; do
      $RUN gst-launch-1.0 -q filesrc location=$D/$file.raw ! rawvideoparse width=640 height=360 format=$pf framerate=1/1 $c ! $e threshold=0 intensity=$i ! filesink location=$D/$e-$gf$col-$i.raw > $D/$e-$i.log 2>&1 || { echo "$e $gf $i failed"; tail -3 $D/$e-$i.log; }
    done
    [ -s cudafftbloom-$gf$col-$i.raw ] || continue
    python3 - $gf$col $i <<'PY'
import sys,array
tag,i=sys.argv[1],sys.argv[2]
a=open('cpufftbloom-%s-%s.raw'%(tag,i),'rb').read(); b=open('cudafftbloom-%s-%s.raw'%(tag,i),'rb').read()
t='H' if 'RGBA64' in tag else 'B'
A=array.array(t,a); B=array.array(t,b)
w=640; ch=4
md=max(abs(x-y) for x,y in zip(A,B)); nd=sum(1 for x,y in zip(A,B) if x!=y)
far=lambda V: max(V[(r*w+c)*ch+k] for r in range(0,360,7) for c in range(400,640) for k in range(3))
print("%-22s intensity %3s: cpu vs cuda max diff %d (%d samples differ); far half max cpu %d cuda %d"%(tag,i,md,nd,far(A),far(B)))
PY
  done
done
