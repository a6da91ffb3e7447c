#!/usr/bin/env python3
"""Writes spirals_train.csv and spirals_test.csv: CS231n's three-arm spiral
data set (points (x, y) on three interleaved spiral arms, class = the arm),
the classic example of data a linear classifier cannot separate and a small
MLP can. Deterministic (seeded); the files in this directory were written by
it: `python3 make_spirals.py`."""
import math
import random


def spirals(per_class, seed):
    rng = random.Random(seed)
    rows = []
    for arm in range(3):
        for i in range(per_class):
            r = i / (per_class - 1)
            t = arm * 4 + 4 * r + rng.gauss(0, 0.2)
            rows.append((r * math.sin(t), r * math.cos(t), arm))
    rng.shuffle(rows)
    return rows


for name, per_class, seed in (("spirals_train.csv", 200, 1), ("spirals_test.csv", 100, 2)):
    with open(name, "w") as f:
        f.write("x,y,label\n")
        for x, y, label in spirals(per_class, seed):
            f.write(f"{x:.6f},{y:.6f},{label}\n")
