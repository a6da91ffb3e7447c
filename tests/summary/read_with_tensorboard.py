#!/usr/bin/env python3
"""Reads a nabla run with TensorBoard's own reader (EventAccumulator) and checks
that it finds every value the C++ test wrote (tests/summary/tensorboard_reader_test.cpp).

usage: read_with_tensorboard.py LOGDIR EXPECTED.json
(used by tests/summary/tensorboard_reader_test.cpp and tests/train/tensorboard_callback_test.cpp)
Exit status: 0 all found, 1 a mismatch (printed), 77 tensorboard is not installed.
"""
import bisect
import io
import json
import math
import os
import shutil
import struct
import sys
import tempfile

try:
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.plugins.hparams import plugin_data_pb2
except ImportError as e:  # the test skips, saying why
    print(f"tensorboard cannot be imported by {sys.executable}: {e}")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def load(logdir):
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0,
                                                     ea.TENSORS: 0, ea.GRAPH: 0})
    acc.Reload()
    return acc


def tf_default_limits():
    # tensorflow/tsl/lib/histogram/histogram.cc, InitDefaultBuckets.
    pos, v = [], 1e-12
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    pos.append(sys.float_info.max)
    return [-x for x in reversed(pos)] + [0.0] + pos


def check_scalars(acc, expected):
    for tag, points in expected.items():
        got = [(e.step, e.value) for e in acc.Scalars(tag)]
        check(len(got) == len(points), f"scalar {tag}: {len(got)} points, expected {len(points)}")
        for (step, value), (gstep, gvalue) in zip(points, got):
            check(step == gstep and close(value, gvalue), f"scalar {tag}: ({gstep}, {gvalue}) != ({step}, {value})")
    print(f"scalars: {len(expected)} tags found")


def check_histograms(acc, expected):
    limits = set(tf_default_limits())
    for tag, want in expected.items():
        events = acc.Histograms(tag)
        check(len(events) == 1, f"histogram {tag}: {len(events)} events, expected 1")
        if not events:
            continue
        h = events[0].histogram_value
        vals = want["values"]
        check(events[0].step == want["step"], f"histogram {tag}: step {events[0].step}")
        check(h.min == min(vals) and h.max == max(vals), f"histogram {tag}: min/max {h.min}/{h.max}")
        check(h.num == len(vals), f"histogram {tag}: num {h.num}, expected {len(vals)}")
        check(close(h.sum, sum(vals)), f"histogram {tag}: sum {h.sum}")
        check(close(h.sum_squares, sum(v * v for v in vals)), f"histogram {tag}: sum_squares {h.sum_squares}")
        check(all(b in limits for b in h.bucket_limit), f"histogram {tag}: a limit is not a TensorFlow default edge")
        check(list(h.bucket_limit) == sorted(h.bucket_limit), f"histogram {tag}: limits not increasing")
        # By definition bucket i holds the values in [limit[i-1], limit[i]).
        lo = -math.inf
        for limit, count in zip(h.bucket_limit, h.bucket):
            n = sum(1 for v in vals if lo <= v < limit)
            check(n == count, f"histogram {tag}: bucket [{lo}, {limit}) has {count}, expected {n}")
            lo = limit
        # And the buckets are TensorFlow's, empty runs merged (so no two empty in a row).
        check(all(not (a == 0 and b == 0) for a, b in zip(h.bucket, h.bucket[1:])),
              f"histogram {tag}: two empty buckets in a row")
    print(f"histograms: {len(expected)} tags found")


def check_images(acc, expected):
    for tag, want in expected.items():
        events = acc.Images(tag)
        check(len(events) == 1, f"image {tag}: {len(events)} events, expected 1")
        if not events:
            continue
        im = events[0]
        check(im.step == want["step"], f"image {tag}: step {im.step}")
        check((im.height, im.width) == (want["height"], want["width"]), f"image {tag}: {im.height}x{im.width}")
        png = im.encoded_image_string
        check(png[:8] == b"\x89PNG\r\n\x1a\n", f"image {tag}: not a PNG")
        try:
            from PIL import Image
        except ImportError:
            print("images: PIL missing, pixels not compared")
            continue
        img = Image.open(io.BytesIO(png))
        check(img.size == (want["width"], want["height"]), f"image {tag}: PNG size {img.size}")
        rgb = img.convert("RGB" if want["channels"] == 3 else "RGBA")
        flat = rgb.get_flattened_data() if hasattr(rgb, "get_flattened_data") else rgb.getdata()  # Pillow 14 drops getdata
        pixels = [c for px in flat for c in px]
        check(pixels == want["pixels"], f"image {tag}: pixels {pixels} != {want['pixels']}")
    print(f"images: {len(expected)} tags found")


def check_texts(acc, expected):
    for tag, want in expected.items():
        full = tag + "/text_summary"
        events = acc.Tensors(full)
        check(len(events) == 1, f"text {tag}: {len(events)} events")
        if not events:
            continue
        t = events[0].tensor_proto
        check(events[0].step == want["step"], f"text {tag}: step {events[0].step}")
        check([s.decode() for s in t.string_val] == [want["text"]], f"text {tag}: {t.string_val}")
        check(acc.SummaryMetadata(full).plugin_data.plugin_name == "text", f"text {tag}: not the text plugin")
    print(f"texts: {len(expected)} tags found")


def check_hparams(acc, expected):
    content = acc.PluginTagToContent("hparams")
    check(set(content) == {"_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"},
          f"hparams: tags {sorted(content)}")
    if "_hparams_/session_start_info" not in content:
        return
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"])
    got = {}
    for k, v in start.session_start_info.hparams.items():
        got[k] = getattr(v, v.WhichOneof("kind"))
    check(got == expected["hparams"], f"hparams: {got} != {expected['hparams']}")
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    check(sorted(h.name for h in exp.hparam_infos) == sorted(expected["hparams"]), "hparams: experiment's hparam_infos")
    check(sorted(m.name.tag for m in exp.metric_infos) == sorted(expected["metrics"]), "hparams: experiment's metrics")
    end = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_end_info"])
    check(end.session_end_info.status == 1, "hparams: session end status is not STATUS_SUCCESS")
    for tag, value in expected["metrics"].items():
        points = acc.Scalars(tag)
        check(len(points) == 1 and close(points[0].value, value), f"hparams: metric {tag} = {points}")
    print(f"hparams: {len(got)} hyper-parameters, {len(expected['metrics'])} metrics found")


def check_graph(acc, expected):
    g = acc.Graph()
    got = {n.name: (n.op, list(n.input)) for n in g.node}
    want = {n["name"]: (n["op"], n["inputs"]) for n in expected["nodes"]}
    check(got == want, f"graph: {got} != {want}")
    for n in g.node:
        if n.op == "Placeholder":
            shape = [d.size for d in n.attr["_output_shapes"].list.shape[0].dim]
            check(shape == expected["placeholder_shape"], f"graph: placeholder shape {shape}")
    print(f"graph: {len(got)} nodes found")


def record_offsets(path):
    """Start offsets of the TFRecord records of `path`."""
    data = open(path, "rb").read()
    offsets, at = [], 0
    while at + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        offsets.append(at)
        at += 16 + length
    return data, offsets


def check_torn(logdir, marker):
    """Cut the file at every byte of its last record (a scalar `marker`): TensorBoard
    still reads everything before it, and never the marker."""
    (name,) = [f for f in os.listdir(logdir) if "tfevents" in f]
    data, offsets = record_offsets(os.path.join(logdir, name))
    last = offsets[-1]
    full_tags = load(logdir).Tags()
    cuts = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(last, len(data)):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data[:n])
            acc = load(tmp)
            tags = acc.Tags()
            check(marker not in tags["scalars"], f"torn at {n}: the cut marker was read")
            check(set(tags["scalars"]) == set(full_tags["scalars"]) - {marker}, f"torn at {n}: scalars {tags['scalars']}")
            for kind in ("histograms", "images", "tensors"):
                check(tags[kind] == full_tags[kind], f"torn at {n}: {kind} {tags[kind]}")
            check(tags["graph"], f"torn at {n}: graph lost")
            cuts += 1
    print(f"torn: {cuts} cuts of the last record ({len(data) - last} bytes), each read up to it")


def main():
    logdir, expected_path = sys.argv[1], sys.argv[2]
    expected = json.load(open(expected_path))
    acc = load(logdir)
    # Each section is optional (the TensorBoard callback's test has scalars and histograms only).
    checks = [("scalars", check_scalars), ("histograms", check_histograms), ("images", check_images),
              ("texts", check_texts), ("hparams", check_hparams), ("graph", check_graph)]
    for key, check_section in checks:
        if key in expected:
            check_section(acc, expected[key])
    if "marker" in expected:
        check_torn(logdir, expected["marker"])
    for f in failures[:40]:
        print("FAIL:", f)
    if len(failures) > 40:
        print(f"... and {len(failures) - 40} more failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
