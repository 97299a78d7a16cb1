#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# supersample-negotiate.py SEED CASES: random downscales through gst-launch
# (every size at most the input's, any pixel aspect ratio upstream, some
# ranges and ratios downstream), each must reach EOS within 10 s; prints
# each failure's launch line. Needs GST_PLUGIN_PATH set to the build's gst/.
import random, subprocess, sys
random.seed(int(sys.argv[1]))
fmts=['xRGB','RGBx','RGBA64_LE','NV21','Y444','I420','GRAY8','NV12','P010_10LE']
pars=['1/1','2/1','1/2','2147483647/1','1/2147483647','0/1','16/15','2147483647/2147483646']
fails=0
for i in range(int(sys.argv[2])):
    w=random.choice([1,2,3,5,17,55,127,random.randint(1,300),4097]); h=random.choice([1,2,3,5,42,64,random.randint(1,300)])
    f=random.choice(fmts); par=random.choice(pars)
    filt='video/x-raw'
    k=random.randint(0,4)
    if k!=1: filt+=',width=%d'%random.randint(1,w)
    if k!=2: filt+=',height=%d'%random.randint(1,h)
    r=random.random()
    if r<0.33: filt+=',pixel-aspect-ratio=%d/%d'%(random.randint(1,3),random.randint(1,3))
    elif r<0.66: filt+=',pixel-aspect-ratio=[1/3,3/1]'
    cmd=['gst-launch-1.0','-q','videotestsrc','num-buffers=1','!','video/x-raw,format=%s,width=%d,height=%d,pixel-aspect-ratio=%s'%(f,w,h,par),'!','cpusupersample','!',filt,'!','fakesink']
    try:
        p=subprocess.run(cmd,capture_output=True,text=True,timeout=10)
    except subprocess.TimeoutExpired:
        print("HANG:"," ".join(cmd[2:])); fails+=1; continue
    if p.returncode!=0:
        fails+=1
        print('FAIL:',' '.join(cmd[2:]).replace('! ','! '),'\n   ',(p.stdout+p.stderr).strip().splitlines()[-2:] )
print('cases',sys.argv[2],'fails',fails)
sys.exit(1 if fails else 0)
