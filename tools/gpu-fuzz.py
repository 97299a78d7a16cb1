#!/usr/bin/env python3
# Differential fuzzing of each cuda* element against its cpu* twin through
# gst-launch-1.0, for the GPU host: random sizes (odd and tiny included),
# formats, memory (system, CUDA in, CUDA in and out), test patterns and
# property values (the ends of their ranges often). Both twins run the same
# pipeline into a file; their outputs must agree (supersample, sgm: the same
# bytes; tonemap, fftbloom: within one code value), or both must refuse.
# A crash, a hang, a GLib warning or critical, or only one twin refusing
# is a failure. Every case is reproducible from its seed.
#
#   tools/gpu-fuzz.py PLUGIN_DIR LOG_DIR CASES_PER_ELEMENT [FIRST_SEED]
#
# RUN prefixes every gst-launch-1.0 (e.g. RUN=.gpu/run on the device host).
# FUZZ_SELFTEST=1 (for a machine without a GPU): the cpu twin against
# itself, in system memory, which checks the harness and the cpu elements.
# FUZZ_SANITIZER prefixes the cuda twin's gst-launch-1.0 (after RUN), e.g.
# "compute-sanitizer --require-cuda-init no --error-exitcode 86 --tool
# memcheck": any error it reports fails the case. FUZZ_DEVICES=N (N >= 2)
# draws the cuda-device-id of cudaupload, the element (-1 too) and
# cudadownload from 0..N-1, from a generator of its own, so each seed's
# other draws stay those of one GPU. FUZZ_ONLY=tonemap,sgm limits the run
# to those elements; FUZZ_PRINT=1 prints every case's verdict and cuda line.
# FUZZ_EDGES=1 draws integer properties next to powers of two (2^k - 1,
# 2^k, 2^k + 1) 40 % of the time, where tiles and tails change (without
# it, a seed gives the case it gave before).
# Prints one block per failure and a table; exits 1 if anything failed.
# SPDX-License-Identifier: LGPL-2.1-or-later
import concurrent.futures as cf
import math
import os
import random
import re
import shlex
import subprocess
import sys

plugins, logdir, ncases = sys.argv[1], sys.argv[2], int(sys.argv[3])
first = int(sys.argv[4]) if len(sys.argv) > 4 else 1
RUN = shlex.split(os.environ.get("RUN", ""))
TIMEOUT = int(os.environ.get("FUZZ_TIMEOUT", "120"))
SANITIZER = shlex.split(os.environ.get("FUZZ_SANITIZER", ""))
DEVICES = int(os.environ.get("FUZZ_DEVICES", "1"))
os.makedirs(logdir, exist_ok=True)
env = dict(os.environ, GST_PLUGIN_PATH_1_0=plugins,
           GST_REGISTRY_1_0=os.path.join(logdir, "registry.bin"))

# (input formats, CUDA-memory input formats, output caps choices, tolerance)
ALGOS = {
    "supersample": (
        ["RGBA", "BGRx", "RGB", "GRAY8", "GRAY16_LE", "I420", "NV12", "Y444",
         "P010_10LE", "I420_10LE", "RGBA64_LE", "Y42B"],
        ["RGBA", "BGRx", "RGB", "I420", "NV12", "Y444", "P010_10LE",
         "I420_10LE", "Y42B"], None, 0),
    "sgm": (
        ["GRAY8", "GRAY16_LE", "RGB", "BGR", "RGBA", "BGRx", "I420", "NV12"],
        ["RGB", "BGR", "RGBA", "BGRx", "I420", "NV12"],
        ["GRAY8", "GRAY16_LE", "RGBA", "BGRx"], 0),
    "tonemap": (
        ["P010_10LE", "I420_10LE", "P016_LE", "Y444_16LE", "RGBA64_LE",
         "BGRA64_LE", "RGB10A2_LE", "BGR10A2_LE"],
        ["P010_10LE", "I420_10LE", "P016_LE", "Y444_16LE", "RGB10A2_LE",
         "BGR10A2_LE"],
        ["RGBA", "BGRx", "RGBx", "BGRA", "I420", "NV12"], 1),
    "fftbloom": (
        ["RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "RGBA64_LE"],
        ["RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR"], None, 1),
}
CUDA_OUT = {"supersample": ALGOS["supersample"][1],
            "sgm": ["RGBA", "BGRA", "RGBx", "BGRx"],
            "tonemap": ALGOS["tonemap"][2],
            "fftbloom": ALGOS["fftbloom"][1]}
# outputs whose samples are 16-bit words (tolerances count in their codes)
WIDE = {"RGBA64_LE", "BGRA64_LE", "GRAY16_LE", "P010_10LE", "P016_LE",
        "I420_10LE", "Y444_16LE"}
SELFTEST = os.environ.get("FUZZ_SELFTEST") == "1"
SKIP = {"name", "parent", "qos", "cuda-device-id", "n-threads",
        "kernel-location"}


def launch(args, prefix=()):
    try:
        r = subprocess.run(RUN + list(prefix) + ["gst-launch-1.0", "-v"] +
                           args, env=env,
                           capture_output=True, text=True, timeout=TIMEOUT)
        text = r.stdout + r.stderr
        # when gst-launch-1.0 refuses a line before any CUDA call, it exits
        # 1 but the sanitizer around it 0
        if (prefix and "terminated before first instrumented API call" in text
                and re.search(r"^(WARNING: erroneous pipeline|ERROR)", text,
                              re.M)):
            return 1, text
        return r.returncode, text
    except subprocess.TimeoutExpired:
        return "timeout", ""


def properties(element):
    r = subprocess.run(RUN + ["gst-inspect-1.0", element], env=env,
                       capture_output=True, text=True)
    text = r.stdout.split("Element Properties:")[1]
    props, name = {}, None
    for line in text.splitlines():
        m = re.match(r"  ([a-z0-9-]+)\s+: ", line)
        if m:
            name = m.group(1)
            props[name] = ""
        elif name:
            props[name] += line + "\n"
    out = {}
    for k, t in props.items():
        if k in SKIP or "writable" not in t:
            continue
        m = re.search(r"(Float|Double)\. Range:\s*(\S+) -\s*(\S+)", t)
        if m:
            out[k] = ("f", float(m.group(2)), float(m.group(3)))
            continue
        m = re.search(r"Integer\. Range: (\S+) - (\S+)", t)
        if m:
            out[k] = ("i", int(m.group(1)), int(m.group(2)))
            continue
        if "Boolean" in t:
            out[k] = ("b",)
            continue
        nicks = re.findall(r"\(\d+\): (\S+)", t)
        if "Enum" in t and nicks:
            out[k] = ("e", nicks)
        elif "String" in t:
            out[k] = ("s",)
    return out


EDGES = os.environ.get("FUZZ_EDGES") == "1"


def ends_or(rng, lo, hi, p_hi, draw, text):
    """a range's low end (15 %), its high end (up to p_hi) or draw's value"""
    r = rng.random()
    return text(lo if r < .15 else hi if r < p_hi else draw())


def value(rng, p):
    kind = p[0]
    if kind == "f":
        lo, hi = p[1], p[2]
        return ends_or(rng, lo, hi, .3, lambda: rng.uniform(
            lo, min(hi, lo + 10 ** rng.uniform(-3, 4))), repr)
    if kind == "i":
        lo, hi = p[1], p[2]
        if EDGES and rng.random() < .4:
            near = [v for k in range(1, 13) for v in (2 ** k - 1, 2 ** k,
                    2 ** k + 1) if lo <= v <= hi]
            if near:
                return str(rng.choice(near))
        return ends_or(rng, lo, hi, .25, lambda: rng.randint(
            lo, min(hi, lo + int(10 ** rng.uniform(0, 3.3)))), str)
    if kind == "b":
        return rng.choice(["true", "false"])
    if kind == "e":
        return rng.choice(p[1])
    return rng.choice(["auto", "0.5,0.5", "0,1"])


def case(algo, props, seed):
    rng = random.Random(seed)
    fmts, cuda_fmts, outs, _ = ALGOS[algo]
    mem = rng.choice(["system", "system", "cuda-in", "cuda-both"])
    if SELFTEST:
        mem = "system"
    fmt = rng.choice(cuda_fmts if mem != "system" else fmts)
    w = rng.choice([1, 2, 3, 5, 17, 64, 97, 127, 333, 640, 1283])
    h = rng.choice([1, 2, 3, 5, 17, 48, 99, 200, 361, 721])
    n = rng.choice([1, 3, 5])
    pattern = rng.choice(["snow", "ball", "smpte", "black", "white",
                          "gradient", "zone-plate"])
    # videotestsrc 1.22 divides by zero there (zone-plate), and leaves a
    # pixel of a one-row smpte frame unwritten (valgrind: 127x1, x = 94)
    if (pattern == "zone-plate" and min(w, h) < 2) or (pattern == "smpte"
                                                       and h < 2):
        pattern = "snow"
    settings = [f"{k}={value(rng, v)}" for k, v in sorted(props.items())
                if rng.random() < .5]
    out = []
    if algo == "supersample":
        out = [f"width={rng.randint(1, w)}", f"height={rng.randint(1, h)}"]
    oformat = rng.choice(outs) if outs else None
    if mem == "cuda-both" and oformat and oformat not in CUDA_OUT[algo]:
        oformat = CUDA_OUT[algo][0]
    if oformat:
        out.append(f"format={oformat}")
    src = (f"videotestsrc num-buffers={n} pattern={pattern} ! "
           f"video/x-raw,format={fmt},width={w},height={h},framerate=30/1")
    dev = {}
    if DEVICES > 1 and not SELFTEST:
        drng = random.Random(f"devices {seed}")
        dev = {"up": drng.randrange(DEVICES),
               "el": drng.randrange(-1, DEVICES),
               "down": drng.randrange(-1, DEVICES)}
        used = {"up": mem != "system", "el": True,
                "down": mem == "cuda-both"}
        mem += " dev " + "/".join(str(dev[k]) if used[k] else "-"
                                  for k in ("up", "el", "down"))
    feat = "(memory:CUDAMemory)" if mem.startswith("cuda-both") else ""
    ocaps = f"video/x-raw{feat}" + "".join("," + o for o in out)
    lines = {}
    for twin in ("cpu", "cuda"):
        el = f"{'cpu' if SELFTEST else twin}{algo} " + " ".join(settings)
        if twin == "cpu":
            line = f"{src} ! {el} ! {ocaps.replace(feat, '')}"
        else:
            on = {k: f" cuda-device-id={v}" for k, v in dev.items()}
            up = "" if mem.startswith("system") else \
                " ! cudaupload" + on.get("up", "")
            # filesink takes any caps: without the filter cudadownload
            # would pass the CUDA memory on, pitched rows and all
            down = " ! cudadownload" + on.get("down", "") + \
                " ! video/x-raw" if feat else ""
            line = f"{src}{up} ! {el}{on.get('el', '')} ! {ocaps}{down}"
        lines[twin] = line
    return mem, lines


def ru(x, n):
    return (x + n - 1) // n * n


def planes(fmt, w, h):
    """(offset, stride, row bytes, rows) of each plane of a frame in
    GStreamer's default layout (gst_video_info_set_format): the bytes a
    comparison reads, not the rows' padding, which nothing writes"""
    cw, ch = (w + 1) // 2, (h + 1) // 2
    packed = {"RGBA": 4, "BGRA": 4, "RGBx": 4, "BGRx": 4, "ARGB": 4,
              "ABGR": 4, "RGB10A2_LE": 4, "BGR10A2_LE": 4, "RGBA64_LE": 8,
              "BGRA64_LE": 8, "RGB": 3, "BGR": 3, "GRAY8": 1, "GRAY16_LE": 2}
    if fmt in packed:
        return [(0, ru(w * packed[fmt], 4), w * packed[fmt], h)]
    if fmt in ("I420", "YV12"):
        s0, s1 = ru(w, 4), ru(ru(w, 2) // 2, 4)
        o1 = s0 * ru(h, 2)
        return [(0, s0, w, h), (o1, s1, cw, ch), (o1 + s1 * ch, s1, cw, ch)]
    if fmt == "I420_10LE":
        s0, s1 = ru(2 * w, 4), ru(w, 4)
        o1 = s0 * ru(h, 2)
        return [(0, s0, 2 * w, h), (o1, s1, 2 * cw, ch),
                (o1 + s1 * ch, s1, 2 * cw, ch)]
    if fmt in ("NV12", "P010_10LE", "P016_LE"):
        b = 1 if fmt == "NV12" else 2
        s0 = ru(w * b, 4)
        return [(0, s0, w * b, h), (s0 * ru(h, 2), s0, 2 * b * cw, ch)]
    if fmt == "Y42B":
        s0, s1 = ru(w, 4), ru(w, 8) // 2
        return [(0, s0, w, h), (s0 * h, s1, cw, h),
                (s0 * h + s1 * h, s1, cw, h)]
    if fmt in ("Y444", "Y444_16LE"):
        b = 1 if fmt == "Y444" else 2
        s = ru(w * b, 4)
        return [(p * s * h, s, w * b, h) for p in range(3)]
    return None


def visible(data, caps):
    """the frames' pixel bytes, the rows' padding left out"""
    m = {k: re.search(k + r"=\(\w+\)([\w]+)", caps) for k in
         ("format", "width", "height")}
    if not all(m.values()):
        return data
    fmt, w, h = m["format"].group(1), int(m["width"].group(1)), \
        int(m["height"].group(1))
    pl = planes(fmt, w, h)
    if not pl:
        return data
    size = max(o + s * r for o, s, _, r in pl)
    out = bytearray()
    for f in range(0, len(data) - size + 1, size):
        for o, s, rb, r in pl:
            for y in range(r):
                out += data[f + o + y * s:f + o + y * s + rb]
    return bytes(out) if len(data) % size == 0 else data


def compare(a, b, tol, wide):
    if len(a) != len(b):
        return f"sizes differ: {len(a)} / {len(b)} bytes"
    if a == b:
        return None
    if tol == 0:
        d = next(i for i in range(len(a)) if a[i] != b[i])
        return f"bytes differ (first at {d})"
    step = 2 if wide else 1
    worst = 0
    for i in range(0, len(a), step):
        va = int.from_bytes(a[i:i + step], "little")
        vb = int.from_bytes(b[i:i + step], "little")
        worst = max(worst, abs(va - vb))
    return None if worst <= tol else f"differs by up to {worst} codes"


def run_case(algo, props, seed):
    mem, lines = case(algo, props, seed)
    res = {}
    for twin, line in lines.items():
        path = os.path.join(logdir, f"{algo}-{seed}-{twin}.raw")
        rc, text = launch(shlex.split(line) + ["!", "filesink",
                                               f"location={path}"],
                          SANITIZER if twin == "cuda" else ())
        data = b""
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            os.unlink(path)
        caps = re.findall(r"filesink0\.GstPad:sink: caps = (.*)", text)
        caps = caps[-1] if caps else ""
        res[twin] = (rc, text, visible(data, caps) if caps else data, caps)
    (rc_c, t_c, d_c, caps_c), (rc_g, t_g, d_g, _) = res["cpu"], res["cuda"]
    problems = []
    for twin, (rc, text, _, _) in res.items():
        if rc not in (0, 1):
            problems.append(f"{twin}: exit {rc}")
        elif re.search(r"CRITICAL|WARNING \*\*", text):
            problems.append(f"{twin}: GLib warning")
        elif re.search(r"ERROR SUMMARY: [1-9]", text):
            problems.append(f"{twin}: sanitizer errors")
    problem = "; ".join(problems) or None
    verdict = "refused"
    if not problem:
        if rc_c == 0 and rc_g == 0:
            fmt = re.search(r"format=\(\w+\)(\w+)", caps_c)
            wide = bool(fmt) and fmt.group(1) in WIDE
            tol = ALGOS[algo][3]
            m = re.search(r"intensity=(\S+)", lines["cuda"])
            if algo == "fftbloom" and wide:
                # docs/fftbloom.md: single-precision FFT noise, scaled by
                # the intensity (and the sRGB slope), up to 50 codes of
                # 65535 apart at intensity 100
                tol = max(tol, math.ceil(float(m.group(1) if m else 1) / 2))
            problem = compare(d_c, d_g, tol, wide)
            verdict = "identical" if d_c == d_g else "within tolerance"
        elif rc_c != rc_g:
            problem = f"only one twin refused (cpu {rc_c}, cuda {rc_g})"
    return algo, seed, mem, verdict, problem, lines, t_c, t_g


failed = 0
table = {}
with cf.ThreadPoolExecutor(max(2, (os.cpu_count() or 2) // 2)) as ex:
    jobs = []
    only = os.environ.get("FUZZ_ONLY")
    for algo in ALGOS:
        if only and algo not in only.split(","):
            continue
        props = properties("cpu" + algo)
        for seed in range(first, first + ncases):
            jobs.append(ex.submit(run_case, algo, props, seed))
    for j in jobs:
        algo, seed, mem, verdict, problem, lines, t_c, t_g = j.result()
        row = table.setdefault(algo, {})
        key = "FAILED" if problem else verdict
        row[key] = row.get(key, 0) + 1
        row[mem.split()[0]] = row.get(mem.split()[0], 0) + 1
        if os.environ.get("FUZZ_PRINT") == "1":
            print(f"{key} {algo} seed {seed} ({mem}): {lines['cuda']}")
        if problem:
            failed += 1
            print(f"FAIL {algo} seed {seed} ({mem}): {problem}")
            print("  cpu:  gst-launch-1.0", lines["cpu"])
            print("  cuda: gst-launch-1.0", lines["cuda"])
            for t in (t_c, t_g):
                if t.strip():
                    print("   ", t.strip()[-500:].replace("\n", "\n    "))

cols = ["identical", "within tolerance", "refused", "FAILED", "system",
        "cuda-in", "cuda-both"]
print("| element | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for algo, row in table.items():
    print(f"| {algo} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
sys.exit(1 if failed else 0)
