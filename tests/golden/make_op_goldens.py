#!/usr/bin/python3
"""Writes the op golden fixtures, one folder per group of ops: tests/fixtures/ops/<group>/cases.json
(a dump.json whose records name their tensors by data_name) and tests/fixtures/ops/<group>/tensors.txt
(the tensors, and torch's results). Groups: "elementwise" (this file), and one per module
tests/golden/ops_<group>.py, whose cases(g) function makes the cases through this module's
helpers (g.case, g.S, g.rnd, g.ints, g.special, g.F, g.torch).

Run with Debian's PyTorch (python3-torch, 1.13):
  /usr/bin/python3 tests/golden/make_op_goldens.py [group ...]     (no group: all of them)
Each group starts from the same seed, so regenerating one group leaves the others' files alone.

Per case torch runs twice: on the inputs as given (the device reference, ".dev") and on the
float inputs converted to float64 (".f64", what the fp64 bench must match). Gradients come
from the backward entry's incoming gradient; an op with several outputs (a tuple) writes
".dev.out0", ".dev.out1", ... and has no backward (run_ut: "Multiple backward is not supported.").
Arguments may be lists (Tensor[], int[]; plain ints inside a list are Python ints) and
torch.Size. A case whose device run torch CPU cannot do (float16 kernels missing in 1.13)
keeps only the float64 result and a "nodev" line; a case where torch raises keeps the
message in an "err" line.

tensors.txt lines:
  t <name> <dtype> <rank> <dims...> <values...>   floats as bit patterns in hex, ints decimal
  nodev <case> <reason>
  err <case> <message>
"""
import json
import math
import os
import struct
import sys

import torch

F = torch.nn.functional
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ops")
torch.manual_seed(1234)

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
      "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "bool": torch.bool}
FLOATS = ["f16", "bf16", "f32", "f64"]

lines = []
data = {}
counter = [0]


def tname(dt):
    return str(dt)


def enc(t):
    t = t.detach().contiguous()
    dims = list(t.shape)
    flat = t.reshape(-1)
    if t.dtype in (torch.float16, torch.bfloat16):
        vals = ["%x" % v for v in flat.view(torch.int16).tolist()]
        vals = ["%x" % (int(v, 16) & 0xFFFF) if not v.startswith("-") else "%x" % ((-int(v[1:], 16)) & 0xFFFF) for v in vals]
    elif t.dtype == torch.float32:
        vals = ["%x" % (v & 0xFFFFFFFF) for v in flat.view(torch.int32).tolist()]
    elif t.dtype == torch.float64:
        vals = ["%x" % (v & 0xFFFFFFFFFFFFFFFF) for v in flat.view(torch.int64).tolist()]
    elif t.dtype == torch.bool:
        vals = [str(int(v)) for v in flat.tolist()]
    else:
        vals = [str(v) for v in flat.tolist()]
    return "%s %d %s %s" % (str(t.dtype).replace("torch.", ""), len(dims),
                            " ".join(str(d) for d in dims), " ".join(vals))


def put(name, t):
    lines.append("t %s %s" % (name, enc(t)))


class S:
    """A Python scalar argument."""
    def __init__(self, v):
        self.v = v


def rec(x, name, rg):
    if isinstance(x, torch.Tensor):
        put(name, x)
        return {"type": "torch.Tensor", "dtype": str(x.dtype), "shape": list(x.shape),
                "requires_grad": bool(rg and x.is_floating_point()), "data_name": name}
    if isinstance(x, S):
        v = x.v
        if isinstance(v, bool):
            return {"type": "bool", "value": v}
        if isinstance(v, int):
            return {"type": "int", "value": v}
        return {"type": "float", "value": v}
    if isinstance(x, torch.dtype):
        return {"type": "torch.dtype", "value": str(x)}
    if isinstance(x, str):
        return {"type": "str", "value": x}
    if x is None:
        return None
    if isinstance(x, torch.Size):
        return {"type": "torch.Size", "value": list(x)}
    if isinstance(x, (list, tuple)):  # Tensor[] and int[] arguments; plain ints allowed inside
        return [rec(S(e) if isinstance(e, int) else e, "%s.%d" % (name, i), rg)
                for i, e in enumerate(x)]
    raise TypeError(x)


def torch_fn(api):
    kind, name = api.split(".", 1)
    if kind == "Tensor":
        return getattr(torch.Tensor, name)
    if kind == "Functional":
        return getattr(F, name)
    return getattr(torch, name)


def py(x, to64):
    if isinstance(x, S):
        return x.v
    if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size):
        return [py(e, to64) for e in x]
    if isinstance(x, torch.Tensor):
        t = x.detach().clone()
        if to64 and t.is_floating_point():
            t = t.double()
        if t.is_floating_point():
            t.requires_grad_(True)
        return t
    return x


def run(api, args, kwargs, grad_seed, to64, inplace):
    targs = [py(a, to64) for a in args]
    tkw = {k: py(v, to64) for k, v in kwargs.items()}
    leaves = [a for a in targs if isinstance(a, torch.Tensor)]
    if inplace and isinstance(targs[0], torch.Tensor):
        call_args = [targs[0] * 1 if targs[0].requires_grad else targs[0].clone()] + targs[1:]
    else:
        call_args = targs
    out = torch_fn(api)(*call_args, **tkw)
    grads = None
    if out.is_floating_point() and out.requires_grad and out.numel() >= 0:
        g = grad_seed.to(out.dtype)
        out.backward(g)
        grads = [a.grad if isinstance(a, torch.Tensor)
                 else [e.grad if isinstance(e, torch.Tensor) else None for e in a]
                 if isinstance(a, list) else None for a in targs]
    return out.detach(), grads


def put_grads(prefix, grads):
    """Input gradients as <prefix>.g<i>, and <prefix>.g<i>.<k> for the items of a list."""
    for i, g in enumerate(grads or []):
        if isinstance(g, list):
            for k, gk in enumerate(g):
                if gk is not None:
                    put("%s.g%d.%d" % (prefix, i, k), gk)
        elif g is not None:
            put("%s.g%d" % (prefix, i), g)


def fwd_inputs(args, kwargs, to64):
    return [py(a, to64) for a in args], {k: py(v, to64) for k, v in kwargs.items()}


def case(api, args, kwargs=None, inplace=False, backward=True):
    kwargs = kwargs or {}
    counter[0] += 1
    cid = counter[0]
    key = "%s.%d" % (api, cid)
    c = "c%d" % cid
    data[key + ".forward"] = {
        "input_args": [rec(a, "%s.a%d" % (c, i), backward) for i, a in enumerate(args)],
        "input_kwargs": {k: rec(v, "%s.k%s" % (c, k), backward) for k, v in kwargs.items()},
        "output": []}
    to64 = api != "Tensor.type_as"  # type_as is never raised
    dev = None
    try:
        a, k = fwd_inputs(args, kwargs, False)
        with torch.no_grad():
            dev = torch_fn(api)(*[x.clone() if isinstance(x, torch.Tensor) else x for x in a], **k)
    except Exception as e:  # torch refuses the call: the C side must refuse it too
        msg = str(e).split("\n")[0]
        if "not implemented for 'Half'" not in msg:
            lines.append("err %s %s" % (c, msg))
            return
        lines.append("nodev %s %s" % (c, msg))
    a, k = fwd_inputs(args, kwargs, to64)
    with torch.no_grad():
        o64 = torch_fn(api)(*[x.clone() if isinstance(x, torch.Tensor) else x for x in a], **k)
    if isinstance(o64, (tuple, list)):  # several outputs: out0, out1, ...; never a backward
        for i, o in enumerate(dev if dev is not None else []):
            put("%s.dev.out%d" % (c, i), o)
        for i, o in enumerate(o64):
            put("%s.f64.out%d" % (c, i), o)
        return
    grad = None
    if backward and o64.is_floating_point():
        gdt = dev.dtype if dev is not None else args[0].dtype
        grad = (torch.randn(o64.shape) * 0.5).to(gdt)
        data[key + ".backward"] = {"input": [rec(grad, c + ".grad", False)], "output": []}
    if dev is not None:
        put(c + ".dev.out", dev)
        if grad is not None:
            try:
                _, gd = run(api, args, kwargs, grad, False, inplace)
                put_grads(c + ".dev", gd)
            except Exception as e:
                lines.append("nodevgrad %s %s" % (c, str(e).split("\n")[0]))
    put(c + ".f64.out", o64)
    if grad is not None:
        _, g64 = run(api, args, kwargs, grad.double() if to64 else grad, to64, inplace)
        put_grads(c + ".f64", g64)


def rnd(shape, dt, scale=2.0, positive=False):
    x = torch.randn(shape, dtype=torch.float64) * scale
    if positive:
        x = x.abs() + 0.05
    return x.to(DT[dt])


def special(dt):
    return torch.tensor([0.0, -0.0, 1.0, -1.5, float("inf"), float("-inf"), float("nan"), 60000.0,
                         1e-6, -3e4], dtype=torch.float64).to(DT[dt])


def ints(shape, dt, lo=-5, hi=6):
    return torch.randint(lo, hi, shape).to(DT[dt])


UNARY = {"neg": "Torch.neg", "abs": "Torch.abs", "exp": "Torch.exp", "log": "Torch.log",
         "sqrt": "Torch.sqrt", "rsqrt": "Torch.rsqrt", "square": "Torch.square",
         "reciprocal": "Torch.reciprocal", "sigmoid": "Torch.sigmoid", "tanh": "Torch.tanh",
         "relu": "Functional.relu", "silu": "Functional.silu", "gelu": "Functional.gelu",
         "sin": "Torch.sin", "cos": "Torch.cos", "erf": "Torch.erf"}
POSITIVE = {"log", "sqrt", "rsqrt"}


def unary_cases():
    for op, api in UNARY.items():
        pos = op in POSITIVE
        for dt in FLOATS:
            case(api, [rnd([2, 3], dt, positive=pos)])
        case(api, [special("f32")], backward=op not in ("relu",))
        case(api, [special("bf16")], backward=False)
        case(api, [rnd([], "f32", positive=pos)])
        case(api, [rnd([0, 3], "f32")])
        case(api, [ints([5], "i64", 1 if pos else -5, 6)], backward=False)
        case(api, [ints([4], "bool", 0, 2)], backward=False)
    case("Functional.gelu", [rnd([2, 3], "f32")], {"approximate": "tanh"})
    case("Functional.gelu", [rnd([2, 3], "bf16")], {"approximate": "tanh"})
    case("Functional.gelu", [rnd([2, 3], "f64")], {"approximate": "tanh"})
    case("Tensor.exp", [rnd([3], "f32")])
    case("Tensor.exp_", [rnd([3], "f32")], inplace=True)
    case("Tensor.__neg__", [rnd([3], "bf16")])
    case("Tensor.relu_", [rnd([4], "f32")], inplace=True)
    case("Tensor.sigmoid", [rnd([2, 2], "f64", scale=30)])
    case("Torch.exp", [rnd([6], "f32", scale=40)])
    case("Tensor.abs", [ints([5], "i32")], backward=False)


BINARY = {"add": "Torch.add", "sub": "Torch.sub", "mul": "Torch.mul", "div": "Torch.div",
          "maximum": "Torch.maximum", "minimum": "Torch.minimum", "rsub": "Torch.rsub",
          "pow": "Torch.pow"}


def binary_cases():
    for op, api in BINARY.items():
        pos = op == "pow"
        for dt in FLOATS:
            case(api, [rnd([2, 3], dt, positive=pos), rnd([2, 3], dt, scale=1.5)])
        case(api, [rnd([2, 1, 3], "f32", positive=pos), rnd([4, 1], "f32")])
        case(api, [rnd([3], "f16", positive=pos), rnd([2, 3], "f32")])
        case(api, [special("f32").abs() if pos else special("f32"), special("f32").flip(0)],
             backward=False)
        case(api, [rnd([0, 2], "f32", positive=pos), rnd([2], "f32")])
        case(api, [rnd([], "f64", positive=pos), rnd([], "f64")])
        case(api, [ints([6], "i64", 1 if pos else -5, 6), ints([6], "i64", 1, 4)], backward=False)
        case(api, [ints([6], "i32"), ints([6], "i64", 1, 4)], backward=False)
        case(api, [ints([4], "bool", 0, 2), ints([4], "bool", 0, 2)], backward=False)
        if op not in ("maximum", "minimum"):
            case(api, [rnd([2, 3], "bf16", positive=pos), S(2.5)])
            case(api, [rnd([2, 3], "f16", positive=pos), S(3)])
            case(api, [ints([5], "i64", 1, 5), S(0.5)], backward=False)
            case(api, [ints([5], "i64", 1, 5), S(2)], backward=False)
            case(api, [rnd([3], "f16", positive=pos), rnd([], "f32")])
            case(api, [rnd([3], "bf16", positive=pos), rnd([3], "f16")])
    for dt in ["f32", "bf16", "i64"]:
        a = rnd([2, 3], dt, scale=8) if dt != "i64" else ints([6], "i64", -20, 20)
        b = rnd([2, 3], dt, scale=3) if dt != "i64" else ints([6], "i64", 1, 6) * torch.tensor([1, -1, 1, -1, 1, -1])
        for m in ["trunc", "floor"]:
            case("Torch.div", [a, b], {"rounding_mode": m}, backward=dt != "i64")
    case("Torch.div", [ints([3], "i64"), torch.tensor([0, 1, 2])], {"rounding_mode": "floor"}, backward=False)
    case("Torch.div", [rnd([3], "f32")], {"other": S(2.0), "rounding_mode": "bogus"}, backward=False)
    case("Torch.add", [rnd([2, 3], "f32"), rnd([3], "f32")], {"alpha": S(2.5)})
    case("Torch.sub", [rnd([2, 3], "bf16"), rnd([2, 3], "bf16")], {"alpha": S(3)})
    case("Torch.add", [ints([3], "i64"), ints([3], "i64")], {"alpha": S(2.5)}, backward=False)
    case("Torch.add", [ints([3], "i64"), ints([3], "i64")], {"alpha": S(3)}, backward=False)
    case("Torch.rsub", [rnd([2, 3], "f32"), S(1.0)])
    case("Tensor.__rsub__", [rnd([2, 3], "f16"), S(1.0)])
    case("Tensor.__radd__", [rnd([3], "f32"), S(2)])
    case("Tensor.__rmul__", [rnd([3], "bf16"), S(-0.5)])
    case("Tensor.__rtruediv__", [rnd([3], "f32"), S(1.0)])
    case("Tensor.__rpow__", [rnd([3], "f32"), S(2.0)])
    case("Tensor.__add__", [rnd([2, 3], "f16"), rnd([2, 3], "f16")])
    case("Tensor.__mul__", [rnd([2, 3], "bf16"), rnd([3], "bf16")])
    case("Tensor.__truediv__", [ints([4], "i64"), ints([4], "i64", 1, 5)], backward=False)
    case("Tensor.__pow__", [rnd([4], "f32"), S(2)])
    case("Tensor.pow", [rnd([4], "bf16"), S(0.5)])
    case("Tensor.pow", [ints([4], "i64"), S(-1)], backward=False)
    case("Tensor.add_", [rnd([2, 3], "f32"), rnd([3], "f32")], inplace=True)
    case("Tensor.__iadd__", [rnd([2, 3], "bf16"), S(1.5)], inplace=True)
    case("Tensor.mul_", [rnd([2, 3], "f16"), rnd([2, 3], "f32")], inplace=True)
    case("Tensor.div_", [ints([3], "i64"), S(2)], inplace=True, backward=False)
    case("Tensor.add_", [rnd([3], "f32"), rnd([2, 3], "f32")], inplace=True, backward=False)
    case("Tensor.sub", [ints([3], "bool", 0, 2), ints([3], "bool", 0, 2)], backward=False)
    case("Torch.maximum", [rnd([3], "f32"), S(2)], backward=False)
    case("Torch.add", [rnd([4], "f32", scale=3e38), rnd([4], "f32", scale=3e38)])
    case("Torch.mul", [rnd([4], "bf16", scale=1e30), rnd([4], "bf16", scale=1e10)])
    case("Torch.maximum", [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 5.0, 3.0])])


def select_cases():
    for dt in FLOATS:
        case("Torch.clamp", [rnd([2, 3], dt)], {"min": S(-0.5), "max": S(0.5)})
    case("Torch.clamp", [special("f32")], {"min": S(-1.0), "max": S(2.0)}, backward=False)
    # tensor bounds: forward only (precheck gives no gradient for min/max tensors yet)
    case("Torch.clamp", [rnd([2, 3], "f32"), rnd([3], "f32")], {"max": rnd([2, 1], "f32")},
         backward=False)
    case("Tensor.clamp", [rnd([2, 3], "bf16")], {"min": S(0)})
    case("Tensor.clamp", [ints([6], "i64")], {"min": S(-1), "max": S(2)}, backward=False)
    case("Tensor.clamp", [ints([6], "i64")], {"min": S(0.5)}, backward=False)
    case("Tensor.clamp", [rnd([3], "f32")], backward=False)
    case("Tensor.clamp_", [rnd([2, 3], "f32")], {"max": S(0.1)}, inplace=True)
    case("Tensor.clamp_min", [rnd([2, 3], "f16"), S(0.0)])
    case("Torch.clamp_max", [rnd([2, 3], "f64"), S(0.25)])
    case("Tensor.clip", [rnd([4], "f32"), S(-0.2), S(0.3)])
    for dt in FLOATS:
        m = ints([2, 3], "bool", 0, 2)
        case("Tensor.masked_fill", [rnd([2, 3], dt), m, S(-1e-3)])
    case("Tensor.masked_fill", [rnd([2, 3], "f16"), ints([3], "bool", 0, 2), S(float("-inf"))])
    case("Tensor.masked_fill", [rnd([2, 3], "bf16"), ints([2, 1], "bool", 0, 2), torch.tensor(-10000.0)])
    case("Tensor.masked_fill", [ints([5], "i64"), ints([5], "bool", 0, 2), S(0.5)], backward=False)
    case("Tensor.masked_fill", [ints([5], "bool", 0, 2), ints([5], "bool", 0, 2), S(True)], backward=False)
    case("Tensor.masked_fill_", [rnd([2, 3], "f32"), ints([3], "bool", 0, 2), S(7.0)], inplace=True)
    case("Tensor.masked_fill", [rnd([3], "f32"), ints([3], "i64", 0, 2), S(1.0)], backward=False)
    case("Tensor.masked_fill", [rnd([2], "f32"), ints([2], "bool", 0, 2), torch.tensor([1.0])], backward=False)
    for dt in FLOATS:
        case("Torch.where", [ints([2, 3], "bool", 0, 2), rnd([2, 3], dt), rnd([3], dt)])
    case("Torch.where", [ints([3], "bool", 0, 2), rnd([3], "f16"), S(0.5)])
    case("Torch.where", [ints([2, 1], "bool", 0, 2), ints([3], "i64"), S(0.5)], backward=False)
    case("Torch.where", [ints([3], "bool", 0, 2), rnd([3], "f16"), rnd([3], "f32")])
    case("Tensor.where", [rnd([3], "f32"), ints([3], "bool", 0, 2), rnd([3], "f32")])
    case("Torch.where", [rnd([3], "f32"), rnd([3], "f32"), rnd([3], "f32")], backward=False)


CASTS = ["float", "half", "bfloat16", "double", "long", "int", "bool"]


def cast_cases():
    vals = torch.tensor([0.0, -0.0, 1.5, -2.5, 65519.0, 65520.0, 1.00390625, 3.0e38, -7.9, 1e-8],
                        dtype=torch.float64)
    finite = torch.tensor([0.0, 1.5, -2.5, 300.7, -7.9, 1e-8, 30000.0, -3.5], dtype=torch.float64)
    for c in CASTS:
        for dt in FLOATS:
            src = (vals if c not in ("long", "int") else finite).to(DT[dt])
            case("Tensor." + c, [src], backward=c not in ("long", "int", "bool"))
        case("Tensor." + c, [ints([5], "i64", -300, 300)], backward=False)
        case("Tensor." + c, [ints([4], "bool", 0, 2)], backward=False)
    case("Tensor.float", [special("f64")])
    case("Tensor.half", [special("f32")], backward=False)
    case("Tensor.bfloat16", [special("f32")])
    for dt in [torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.bool]:
        case("Tensor.to", [rnd([2, 3], "f32"), dt], backward=dt.is_floating_point)
    case("Tensor.to", [rnd([3], "bf16")], {"dtype": torch.float32})
    for a, b in [("f32", "f16"), ("f16", "f32"), ("bf16", "f64"), ("f32", "i64"), ("i64", "f32")]:
        x = rnd([2, 3], a, scale=5) if a != "i64" else ints([2, 3], "i64")
        y = rnd([1], b) if b != "i64" else ints([1], "i64")
        case("Tensor.type_as", [x, y], backward=a != "i64" and b != "i64")


def binder_cases():
    """Calls that must not bind (messages checked by the C test; torch's own wording varies)."""
    pass


def elementwise_cases(g):
    unary_cases()
    binary_cases()
    select_cases()
    cast_cases()


GROUPS = ["elementwise", "shape", "nn"]


def group_cases(group):
    if group == "elementwise":
        return elementwise_cases
    import importlib
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    return importlib.import_module("ops_" + group).cases


def write_group(group):
    lines.clear()
    data.clear()
    counter[0] = 0
    torch.manual_seed(1234)
    group_cases(group)(sys.modules[__name__])
    out = os.path.join(OUT, group)
    os.makedirs(out, exist_ok=True)
    dump = {"task": "tensor", "level": "L1", "dump_data_dir": None, "data": data}
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(dump, f, indent=None, separators=(",", ":"), allow_nan=True)
        f.write("\n")
    with open(os.path.join(out, "tensors.txt"), "w") as f:
        f.write("# written by tests/golden/make_op_goldens.py with torch %s\n" % torch.__version__)
        for line in lines:
            f.write(line + "\n")
    print("%s: %d cases, %d lines" % (group, counter[0], len(lines)), file=sys.stderr)


def main():
    for group in sys.argv[1:] or GROUPS:
        if group not in GROUPS:
            sys.exit("unknown group %s (groups: %s)" % (group, " ".join(GROUPS)))
        write_group(group)


if __name__ == "__main__":
    main()
