#!/usr/bin/env python3
"""Writes N random example specs and N/2 random sequence_example specs (within
featc's limits) for the differential test.
usage: random_specs.py SEED N OUTDIR [--no-as]   (deterministic for a seed)

--no-as: no typed tensors (`as`), for the suites whose readers do not take
them (Arrow and Parquet back to records); the specs are otherwise the same."""
import random, sys

NARROW = ["int8", "uint8", "int16", "uint16", "int32"]
RAW = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "int64": 8,
       "float16": 2, "float32": 4, "float64": 8}


NO_AS = "--no-as" in sys.argv[4:]


def typed(arng, t, kind, dims, default, hashed):
    """An `as` clause for a feature (from its own generator, so that the
    features of a seed stay what they were without it), or ""."""
    if NO_AS:
        return ""
    if hashed or default or kind not in ("fixed", "varlen", "rows", "sparse") or \
            arng.random() >= 0.25:
        return ""
    if kind in ("rows", "sparse") and t == "bytes":
        return ""
    if t == "int64":
        return " as " + arng.choice(NARROW)
    if t == "float":
        return " as float16"
    if kind != "fixed" or dims:
        return ""
    et = arng.choice(sorted(RAW))
    n = arng.randint(1, max(1, 11 // RAW[et]))  # records hold 0-11 bytes a value
    return " as %s[%d]" % (et, n) if arng.random() < 0.7 else " as %s[1, %d]" % (et, n)

def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    arng = random.Random(seed * 7919 + 1)  # `as` clauses
    for s in range(n):
        lines = ["// random spec %d of seed %d" % (s, seed), "package r%d;" % s, "", "example m {"]
        used = set()
        int_varlens = []  # keys of int64 VarLen features, which a SparseFeature may share
        for i in range(rng.randint(1, 12)):
            t = rng.choice(["int64", "float", "bytes"])
            kind = rng.choice(["fixed", "fixed", "varlen", "rows"])
            if rng.random() < 0.12:
                kind = "sparse"
            # hash buckets on bytes / int64 FixedLen and VarLen features
            hashed = ""
            if t != "float" and kind in ("fixed", "varlen") and rng.random() < 0.2:
                hashed = " hash_buckets %d" % rng.randint(1, 20)
                r = rng.random()
                if r < 0.3:
                    hashed += " multi_hot"
                elif r < 0.5 and kind == "fixed":
                    hashed += " one_hot"
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
                if elems == 0:
                    hashed = ""
                cast = typed(arng, t, kind, dims, default, hashed) if elems > 0 else ""
                lines.append("  %s : %s%s%s%s%s;" % (decl, t, shape, cast, default, hashed))
            elif kind == "varlen":
                bound = rng.randint(1, 10)
                lines.append("  %s : %s[] max %d%s%s;" % (decl, t, bound,
                                                          typed(arng, t, kind, [], "", hashed),
                                                          hashed))
                if t == "int64" and not hashed and not decl.startswith('"'):
                    int_varlens.append((key, lines[-1]))
            elif kind == "sparse":
                rank = rng.randint(1, 3)
                size = ", ".join(str(rng.randint(1, 50)) for _ in range(rank))
                idx = []
                for r in range(rank):
                    if int_varlens and rng.random() < 0.3:
                        idx.append(rng.choice(int_varlens)[0])  # shared with a VarLen feature
                    else:
                        idx.append("ix%d_%d" % (i, r))
                value = key if rng.random() < 0.4 else "sv%d" % i  # named after its value key
                bound = rng.randint(1, 8)
                cast = typed(arng, t, "sparse", [], "", "")
                lines.append("  %s : sparse %s[%s] max %d%s index (%s) value %s%s;" % (
                    key, t, size, bound, cast, ", ".join(idx), value,
                    " already_sorted" if rng.random() < 0.3 else ""))
            else:
                dims = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
                shape = "[?%s]" % "".join(", %d" % d for d in dims)
                default = " = " + scalar() if rng.random() < 0.3 else ""
                cast = typed(arng, t, kind, dims, "", "")
                if cast and default and t == "int64":  # a padding value the type holds
                    default = " = %d" % arng.randint(0 if "uint" in cast else -100, 100)
                lines.append("  %s : %s%s max %d%s%s;" % (decl, t, shape, rng.randint(1, 6),
                                                          cast, default))
        lines.append("}")
        with open("%s/r%d.feat" % (out, s), "w") as f:
            f.write("\n".join(lines) + "\n")
    for s in range(n // 2):
        write_sequence_spec(rng, seed, s, out)


def write_sequence_spec(rng, seed, s, out):
    lines = ["// random sequence spec %d of seed %d" % (s, seed), "package q%d;" % s, "",
             "sequence_example m {"]
    scalar = {"int64": lambda: str(rng.randint(-2**63, 2**63 - 1)),
              "float": lambda: rng.choice(["0", "1.5", "-2.25e3", "inf", "nan"]),
              "bytes": lambda: '"%s"' % rng.choice(["", "x", "abc"])}
    arng = random.Random(seed * 7919 + 2 + s)  # `as` clauses
    larng = random.Random(seed * 7919 + 3 + s)  # `as` clauses of lists
    nctx, nlists = rng.randint(0, 5), rng.randint(0 if True else 1, 5)
    if nctx + nlists == 0:
        nlists = 1
    if nctx:
        lines.append("  context {")
        for i in range(nctx):
            t = rng.choice(["int64", "float", "bytes"])
            key = '"c/%d" as c%d' % (i, i) if rng.random() < 0.2 else "c%d" % i
            if rng.random() < 0.35:
                bound = rng.randint(1, 6)
                lines.append("    %s : %s[] max %d%s;" % (key, t, bound,
                                                        typed(arng, t, "varlen", [], "", "")))
            else:
                dims = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
                elems = 1
                for d in dims:
                    elems *= d
                shape = "[%s]" % ", ".join(map(str, dims)) if dims else ""
                default = " = " + scalar[t]() if rng.random() < 0.4 else ""
                cast = typed(arng, t, "fixed", dims, default, "")
                lines.append("    %s : %s%s%s%s;" % (key, t, shape, cast, default))
        lines.append("  }")
    if nlists:
        policies = [p for p in ("allow_missing", "aligned", "uniform") if rng.random() < 0.3]
        lines.append("  feature_lists max %d%s {" % (rng.randint(1, 8),
                                                     "".join(" " + p for p in policies)))
        for i in range(nlists):
            t = rng.choice(["int64", "float", "bytes"])
            key = '"l/%d" as l%d' % (i, i) if rng.random() < 0.2 else "l%d" % i
            if rng.random() < 0.4:
                pol = " uniform" if rng.random() < 0.3 and "uniform" not in policies else ""
                lines.append("    %s : %s[] max %d%s%s;" % (key, t, rng.randint(1, 5),
                                                          typed(larng, t, "varlen", [], "", ""),
                                                          pol))
            else:
                dims = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
                shape = "[%s]" % ", ".join(map(str, dims)) if dims else ""
                pol = " allow_missing" if rng.random() < 0.3 and "allow_missing" not in policies else ""
                lines.append("    %s : %s%s%s%s;" % (key, t, shape,
                                                     typed(larng, t, "fixed", dims, "", ""), pol))
        lines.append("  }")
    lines.append("}")
    with open("%s/q%d.feat" % (out, s), "w") as f:
        f.write("\n".join(lines) + "\n")


main()
