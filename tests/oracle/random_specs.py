#!/usr/bin/env python3
"""Writes N random specs (within featc's limits) for the differential test.
usage: random_specs.py SEED N OUTDIR   (deterministic for a seed)"""
import random, sys

def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    for s in range(n):
        lines = ["// random spec %d of seed %d" % (s, seed), "package r%d;" % s, "", "example m {"]
        used = set()
        for i in range(rng.randint(1, 12)):
            t = rng.choice(["int64", "float", "bytes"])
            kind = rng.choice(["fixed", "fixed", "varlen", "rows"])
            key = "f%d" % i
            if rng.random() < 0.2:
                decl = '"k/%d.%s" as %s' % (i, t, key)
            else:
                decl = key
            scalar = {"int64": lambda: str(rng.randint(-2**63, 2**63 - 1)),
                      "float": lambda: rng.choice(["0", "1.5", "-2.25e3", "inf", "-inf", "nan"]),
                      "bytes": lambda: '"%s"' % rng.choice(["", "x", "abc", "\\x00\\xff"])}[t]
            if kind == "fixed":
                dims = [rng.randint(0 if rng.random() < 0.05 else 1, 4) for _ in range(rng.randint(0, 3))]
                shape = "[%s]" % ", ".join(map(str, dims)) if dims else ""
                elems = 1
                for d in dims:
                    elems *= d
                default = ""
                if elems > 0 and rng.random() < 0.4:
                    if rng.random() < 0.5:
                        default = " = " + scalar()
                    else:
                        default = " = [%s]" % ", ".join(scalar() for _ in range(elems)) if dims else " = " + scalar()
                lines.append("  %s : %s%s%s;" % (decl, t, shape, default))
            elif kind == "varlen":
                lines.append("  %s : %s[] max %d;" % (decl, t, rng.randint(1, 10)))
            else:
                dims = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
                shape = "[?%s]" % "".join(", %d" % d for d in dims)
                default = " = " + scalar() if rng.random() < 0.3 else ""
                lines.append("  %s : %s%s max %d%s;" % (decl, t, shape, rng.randint(1, 6), default))
        lines.append("}")
        with open("%s/r%d.feat" % (out, s), "w") as f:
            f.write("\n".join(lines) + "\n")

main()
