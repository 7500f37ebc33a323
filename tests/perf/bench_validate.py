#!/usr/bin/env python3
"""tests/perf/bench_validate.py: check a `make bench` results file.

    bench_validate.py [--schema tests/perf/bench.schema.json] RESULTS.json...
    bench_validate.py --self-test

Two layers, both standard library only:
  1. JSON Schema: the subset of draft-07 that bench.schema.json uses
     (type, enum, const, required, properties, additionalProperties, items,
     minItems, maxItems, minimum, maximum, pattern, oneOf, local $ref).  A
     keyword outside that subset in the schema is itself an error, so the
     schema cannot silently ask for checks that are not made.
  2. Consistency rules the schema cannot express (tests/perf/README):
     ratio = ours / reference (relative error below 1e-6) when both values
     are numbers, null otherwise; a null value carries a reason, a numeric
     one is positive; "better" is
     "lower" for us and ms and "higher" for MB/s and Mmsg/s; (env, test,
     size, ranks) is unique; every row's env is described in
     "environments"; host-many rows carry ranks; the start-up split's
     critical times add up to its total.
Prints "valid: FILE (N results)" or one line per problem ("FILE: path:
message"); exits 0 if every file is valid, 1 otherwise, 2 on usage errors.
"""
import json
import math
import os
import re
import sys

SUPPORTED = {"$schema", "$id", "title", "description", "definitions", "type", "enum", "const",
             "required", "properties", "additionalProperties", "items", "minItems", "maxItems",
             "minimum", "maximum", "pattern", "oneOf", "$ref"}


def _type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and \
            math.isfinite(value)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError("unknown type '%s' in schema" % name)


def _resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError("only local $ref are supported, not '%s'" % ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def validate(value, schema, root=None, path="$"):
    """Returns a list of "path: message" strings (empty if value is valid)."""
    root = schema if root is None else root
    errs = []
    unknown = set(schema) - SUPPORTED
    if unknown:
        return ["%s: schema uses unsupported keyword(s) %s" % (path, ", ".join(sorted(unknown)))]
    if "$ref" in schema:
        return validate(value, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            return ["%s: %s is not of type %s" % (path, json.dumps(value)[:60], "/".join(types))]
    if "const" in schema and value != schema["const"]:
        errs.append("%s: %s is not %s" % (path, json.dumps(value)[:60], json.dumps(schema["const"])))
    if "enum" in schema and value not in schema["enum"]:
        errs.append("%s: %s is not one of %s" % (path, json.dumps(value)[:60],
                                                   json.dumps(schema["enum"])))
    if "oneOf" in schema:
        matches = [validate(value, s, root, path) for s in schema["oneOf"]]
        good = sum(1 for m in matches if not m)
        if good != 1:
            detail = "; ".join(m[0] for m in matches if m)[:300]
            errs.append("%s: matches %d of the oneOf alternatives, not exactly 1 (%s)" %
                        (path, good, detail))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errs.append("%s: %s is below the minimum %s" % (path, value, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errs.append("%s: %s is above the maximum %s" % (path, value, schema["maximum"]))
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errs.append("%s: '%s' does not match %s" % (path, value[:60], schema["pattern"]))
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errs.append("%s: %d items, fewer than %d" % (path, len(value), schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append("%s: %d items, more than %d" % (path, len(value), schema["maxItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                errs += validate(item, schema["items"], root, "%s[%d]" % (path, i))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errs.append("%s: required property '%s' is missing" % (path, key))
        for key, item in value.items():
            sub = "%s.%s" % (path, key)
            if key in props:
                errs += validate(item, props[key], root, sub)
            elif schema.get("additionalProperties") is False:
                errs.append("%s: property '%s' is not allowed" % (path, key))
            elif isinstance(schema.get("additionalProperties"), dict):
                errs += validate(item, schema["additionalProperties"], root, sub)
    return errs


def consistency(doc):
    """The bench-specific rules (see the module docstring)."""
    errs = []
    envs = {e.get("name") for e in doc.get("environments", []) if isinstance(e, dict)}
    seen = set()
    for i, r in enumerate(doc.get("results", [])):
        p = "$.results[%d]" % i
        if not isinstance(r, dict):
            continue
        key = (r.get("env"), r.get("test"), r.get("size"), r.get("ranks"))
        if key in seen:
            errs.append("%s: duplicate row %s" % (p, key))
        seen.add(key)
        if r.get("env") not in envs:
            errs.append("%s: env '%s' is not described in $.environments" % (p, r.get("env")))
        want = "lower" if r.get("unit") in ("us", "ms") else "higher"
        if r.get("env") == "host-many" and not r.get("ranks"):
            errs.append("%s: a host-many row without ranks" % p)
        if r.get("better") != want:
            errs.append("%s: better is '%s' but unit %s means '%s'" %
                        (p, r.get("better"), r.get("unit"), want))
        ours, ref = r.get("ours") or {}, r.get("reference") or {}
        for side, part in (("ours", ours), ("reference", ref)):
            if part.get("value") is None and not part.get("reason"):
                errs.append("%s.%s: value is null but no reason is given" % (p, side))
            if isinstance(part.get("value"), (int, float)) and part["value"] <= 0:
                errs.append("%s.%s: value %s is not positive" % (p, side, part["value"]))
        ov, rv, ratio = ours.get("value"), ref.get("value"), r.get("ratio")
        if isinstance(ov, (int, float)) and isinstance(rv, (int, float)) and rv > 0:
            if not isinstance(ratio, (int, float)) or \
                    abs(ratio - ov / rv) > 1e-6 * max(1.0, abs(ov / rv)):
                errs.append("%s: ratio %s is not ours/reference = %s" % (p, ratio, ov / rv))
        elif ratio is not None:
            errs.append("%s: ratio %s without both values" % (p, ratio))
    split = doc.get("startup_split")
    if isinstance(split, dict) and split.get("phases") and \
            isinstance(split.get("total_ms"), (int, float)):
        tot = sum(ph.get("critical_ms", 0) for ph in split["phases"])
        if abs(tot - split["total_ms"]) > 1e-3 * max(1.0, split["total_ms"]):
            errs.append("$.startup_split: phases add up to %.3f ms, not total_ms %.3f" %
                        (tot, split["total_ms"]))
    return errs


def check_file(path, schema):
    """Problems of one results file (empty list if valid)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["%s: cannot read JSON: %s" % (path, e)], None
    errs = validate(doc, schema)
    if not errs:
        errs = consistency(doc)
    return ["%s: %s" % (path, e) for e in errs], doc


def _self_test(schema):
    row = {"env": "host-pshm", "test": "put_lat", "size": 8, "unit": "us", "better": "lower",
           "ours": {"program": "perf-rma", "value": 2.0, "reason": None},
           "reference": {"name": "memcpy", "value": 1.0, "reason": None, "derivation": "x"},
           "ratio": 2.0}
    doc = {"schema_version": 1, "generator": "t", "started": "2025-01-01T00:00:00Z",
           "duration_s": 1.0, "git_commit": None,
           "machine": {"hostname": "h", "cpus": 2, "cpu_model": "c", "kernel": "k",
                       "load_avg_start": [0, 0, 0], "load_avg_end": [0.5, 0, 0]},
           "options": {"rounds": 1, "quick": True, "statistic": "best", "host_ranks": 2,
                       "guest": False},
           "environments": [{"name": "host-pshm", "description": "d", "status": "ok",
                             "reason": None, "duration_s": 1.0}],
           "results": [row], "instruction_counts": None, "notes": []}

    def problems(d):
        return validate(d, schema) or consistency(d)

    cases = [("valid", lambda d: None, 0)]
    cases.append(("bad ratio", lambda d: d["results"][0].update(ratio=3.0), 1))
    cases.append(("null without reason",
                  lambda d: d["results"][0]["ours"].update(value=None) or
                  d["results"][0].update(ratio=None), 1))
    cases.append(("extra property", lambda d: d.update(bogus=1), 1))
    cases.append(("zero reference",
                  lambda d: d["results"][0]["reference"].update(value=0.0) or
                  d["results"][0].update(ratio=None), 1))
    cases.append(("bad enum", lambda d: d["results"][0].update(unit="s"), 1))
    cases.append(("ms is lower", lambda d: d["results"][0].update(unit="ms"), 0))
    cases.append(("host-many without ranks", lambda d: d["environments"].append(
        dict(d["environments"][0], name="host-many")) or
        d["results"][0].update(env="host-many"), 1))
    split = {"procs": 2, "total_ms": 3.0, "description": None, "phases": [
        {"phase": "spawn", "last_rank_end_ms": 1.0, "critical_ms": 1.0, "median_rank_ms": 1.0,
         "max_rank_ms": 1.0},
        {"phase": "teardown", "last_rank_end_ms": 3.0, "critical_ms": 2.0,
         "median_rank_ms": None, "max_rank_ms": None}]}
    cases.append(("startup split", lambda d: d.update(startup_split=split), 0))
    cases.append(("startup split sum", lambda d: d.update(
        startup_split=dict(split, total_ms=4.0)), 1))
    cases.append(("bad date", lambda d: d.update(started="yesterday"), 1))
    cases.append(("bool is not integer", lambda d: d["machine"].update(cpus=True), 1))
    cases.append(("icount object", lambda d: d.update(instruction_counts={
        "method": "m", "count": 1, "ops": [{"op": "am_short", "ir_n": 1, "ir_2n": 2,
                                            "per_op": 1.0}]}), 0))
    cases.append(("icount bad op", lambda d: d.update(instruction_counts={
        "method": "m", "count": 1, "ops": [{"op": "x", "ir_n": 1, "ir_2n": 2,
                                            "per_op": 1.0}]}), 1))
    failed = 0
    for name, mutate, want_errors in cases:
        d = json.loads(json.dumps(doc))
        mutate(d)
        got = problems(d)
        ok = bool(got) == bool(want_errors)
        print("%s self-test: %s%s" % ("PASS" if ok else "FAIL", name,
                                      "" if ok else " (problems: %s)" % got))
        failed += not ok
    bad_schema = validate(1, {"type": "integer", "multipleOf": 2})
    ok = bool(bad_schema)
    print("%s self-test: unsupported schema keyword is reported" % ("PASS" if ok else "FAIL"))
    failed += not ok
    return 1 if failed else 0


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    schema_path = os.path.join(here, "bench.schema.json")
    files, self_test = [], False
    i = 0
    while i < len(argv):
        if argv[i] == "--schema" and i + 1 < len(argv):
            schema_path = argv[i + 1]
            i += 2
            continue
        if argv[i] == "--self-test":
            self_test = True
        elif argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(argv[i])
        i += 1
    try:
        with open(schema_path) as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print("bench_validate: cannot read the schema %s: %s" % (schema_path, e), file=sys.stderr)
        return 2
    if self_test:
        return _self_test(schema)
    if not files:
        print("usage: bench_validate.py [--schema FILE] RESULTS.json... | --self-test",
              file=sys.stderr)
        return 2
    status = 0
    for path in files:
        errs, doc = check_file(path, schema)
        if errs:
            status = 1
            for e in errs[:50]:
                print(e)
            if len(errs) > 50:
                print("%s: ... %d more problems" % (path, len(errs) - 50))
        else:
            print("valid: %s (%d results)" % (path, len(doc["results"])))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
