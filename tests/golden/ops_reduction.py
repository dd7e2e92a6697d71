"""Golden cases of the "reduction" group (tests/golden/make_op_goldens.py calls cases(g)):
nansum, prod, var/std (var_mean, std_mean), cumsum/cumprod, logsumexp, norm, normalize,
_foreach_norm, all/any, equal/allclose/isclose.

torch.equal and Tensor.allclose return a Python bool; they are registered as functions that
return it as a 0-dim bool tensor, which is what precheck's ops give. Each section draws from its
own seed, so adding cases to one leaves the others' data alone.
"""

FLOATS = ["f16", "bf16", "f32", "f64"]


def with_nans(g, shape, dt):
    x = g.rnd(shape, "f64")
    x.view(-1)[::5] = float("nan")
    return x.to(g.DT[dt])


def sum_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(101)
    for dt in FLOATS:
        case("Torch.nansum", [with_nans(g, [3, 4], dt)])
        case("Tensor.nansum", [with_nans(g, [3, 4], dt), S(1)], {"keepdim": S(True)})
    case("Torch.nansum", [rnd([2, 3, 4], "f32", positive=True), [0, -1]])
    case("Torch.nansum", [ints([2, 3], "i64")], backward=False)
    case("Torch.nansum", [ints([5], "bool", 0, 2)], backward=False)
    case("Torch.nansum", [ints([2, 3], "i32"), S(0)], {"dtype": g.torch.float32}, backward=False)
    case("Torch.nansum", [rnd([3], "f32"), S(1)], backward=False)
    g.torch.manual_seed(102)
    for dt in ["f16", "f32", "f64"]:  # torch 1.13's CPU has no bfloat16 prod
        case("Torch.prod", [rnd([2, 3], dt, scale=1.2)])
        case("Tensor.prod", [rnd([3, 4], dt, scale=1.2), S(1)])
    case("Torch.prod", [rnd([3, 4], "f32", scale=1.2), S(-2), S(True)])
    case("Torch.prod", [rnd([3, 4], "f32")], {"dim": S(0), "dtype": g.torch.float64})
    case("Torch.prod", [g.torch.tensor([[1.5, 0.0, -2.0], [0.5, 3.0, 2.0]])])
    case("Torch.prod", [g.torch.tensor([[1.5, 0.0, -2.0], [0.5, 3.0, 0.0]]), S(1)])
    case("Torch.prod", [g.torch.tensor([[1.5, 0.0, -2.0, 4.0], [0.0, 3.0, 0.0, 2.0]]), S(1)])
    case("Torch.prod", [rnd([], "f32")])
    case("Torch.prod", [ints([2, 3], "i64", 1, 5), S(1)], backward=False)
    case("Torch.prod", [ints([6], "bool", 0, 2)], backward=False)
    case("Torch.prod", [ints([6], "u8", 1, 9)], backward=False)
    case("Torch.prod", [rnd([3], "f32"), S(1)], backward=False)


def var_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(103)
    for api in ["Torch.var", "Tensor.std"]:
        for dt in FLOATS:
            case(api, [rnd([4, 5], dt)])
            case(api, [rnd([4, 5], dt), S(1)])
        case(api, [rnd([2, 3, 4], "f32"), [0, 2]], {"keepdim": S(True)})
        case(api, [rnd([3, 6], "f32"), S(-1)], {"unbiased": S(False)})
        case(api, [rnd([3, 6], "f64"), S(0)], {"correction": S(0)})
        case(api, [rnd([3, 6], "f32"), S(1)], {"correction": S(2)})
        case(api, [rnd([1, 4], "f32"), S(0)], backward=False)
        case(api, [rnd([], "f32")], backward=False)
        case(api, [ints([4], "i64")], backward=False)
    case("Tensor.var", [rnd([64], "f32", scale=3) + 100.0])
    case("Torch.std", [rnd([3, 40], "bf16"), S(1), S(True), S(True)])
    case("Torch.std", [g.torch.ones([2, 3]), S(1)])
    for api in ["Torch.var_mean", "Torch.std_mean"]:
        for dt in FLOATS:
            case(api, [rnd([3, 5], dt), S(1)])
        case(api, [rnd([2, 3, 4], "f32"), [0, 1]], {"keepdim": S(True)})
        case(api, [rnd([6], "f64"), S(0)], {"correction": S(0)})
        case(api, [ints([4], "i64")])


def scan_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(104)
    for api in ["Torch.cumsum", "Torch.cumprod"]:
        prod = api.endswith("cumprod")
        sc = 1.2 if prod else 2.0
        for dt in FLOATS:
            case(api, [rnd([3, 5], dt, scale=sc), S(1)])
            case(api, [rnd([4, 3], dt, scale=sc), S(0)])
        case(api, [rnd([2, 3, 4], "f32", scale=sc), S(-2)])
        case(api, [rnd([40], "f32", scale=sc), S(0)])
        case(api, [rnd([3, 4], "f32", scale=sc)], {"dim": S(1), "dtype": g.torch.float64})
        case(api, [rnd([], "f32"), S(0)])
        case(api, [rnd([3, 1], "f32"), S(1)])
        case(api, [ints([2, 4], "i64", 1 if prod else -5, 5), S(1)], backward=False)
        case(api, [ints([2, 4], "i32", 1 if prod else -5, 5), S(0)], backward=False)
        case(api, [ints([5], "bool", 0, 2), S(0)], backward=False)
        case(api, [ints([5], "u8", 1, 9), S(0)], backward=False)
        case(api, [ints([2, 3], "i64"), S(1)], {"dtype": g.torch.float32}, backward=False)
        case(api, [rnd([3], "f32"), S(1)], backward=False)
        case("Tensor." + api[6:], [rnd([2, 3], "f32", scale=sc), S(1)])
        case("Tensor." + api[6:] + "_", [rnd([2, 3], "f32", scale=sc), S(1)], inplace=True, backward=False)
        case("Tensor." + api[6:] + "_", [ints([2, 3], "i32", 1, 4), S(1)], inplace=True, backward=False)
    case("Torch.cumprod", [g.torch.tensor([[1.5, 0.0, -2.0, 3.0], [0.5, 3.0, 2.0, 0.0]]), S(1)])
    case("Torch.cumprod", [g.torch.tensor([[1.5, 0.0, -2.0, 0.0, 3.0], [0.0, 3.0, 2.0, 1.5, 0.5]]), S(1)])
    case("Torch.cumprod", [g.torch.tensor([0.0, 2.0, 0.5, 1.5]).bfloat16(), S(0)])


def lse_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(105)
    for dt in FLOATS:
        case("Torch.logsumexp", [rnd([3, 5], dt), S(1)])
        case("Tensor.logsumexp", [rnd([4, 3], dt, scale=10), S(0), S(True)])
    case("Torch.logsumexp", [rnd([2, 3, 4], "f32"), [0, 2]])
    case("Torch.logsumexp", [rnd([2, 3], "f64"), S(-1)], {"keepdim": S(True)})
    case("Torch.logsumexp", [g.torch.tensor([[float("-inf")] * 3, [1.0, float("-inf"), 2.0]]), S(1)])
    case("Torch.logsumexp", [g.torch.tensor([[float("inf"), 1.0], [float("nan"), 2.0]]), S(1)], backward=False)
    case("Torch.logsumexp", [ints([2, 3], "i64"), S(1)], backward=False)
    case("Torch.logsumexp", [ints([2, 3], "bool", 0, 2), S(0)], backward=False)
    case("Torch.logsumexp", [rnd([3], "f32"), S(1)], backward=False)


def norm_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(106)
    for dt in FLOATS:
        case("Torch.norm", [rnd([3, 4], dt)])
        case("Tensor.norm", [rnd([3, 4], dt), S(2), S(1)])
        case("Tensor.norm", [rnd([3, 4], dt), S(1)], {"dim": S(0)})
    for p in [1, 3, 0.5, 1.5, float("inf"), float("-inf")]:
        case("Torch.norm", [rnd([3, 5], "f32"), S(p), S(1)])
        case("Torch.norm", [rnd([3, 5], "f64"), S(p)])
    case("Torch.norm", [rnd([3, 5], "bf16"), S(float("inf")), S(-1)])
    case("Torch.norm", [rnd([2, 3, 4], "f32"), S(2), [0, 2], S(True)])
    case("Torch.norm", [rnd([3, 4], "f32"), S(0), S(1)], backward=False)
    case("Torch.norm", [rnd([3, 4], "f32"), S(2), S(1)], {"dtype": g.torch.float64})
    case("Tensor.norm", [g.torch.tensor([[0.0, 0.0], [3.0, -4.0]]), S(2), S(1)])
    case("Tensor.norm", [g.torch.tensor([[1.0, -3.0, 3.0], [2.0, 0.5, -2.0]]), S(float("inf")), S(1)])
    case("Torch.norm", [ints([3], "i64")], backward=False)
    case("Torch.norm", [rnd([3], "f32"), S(2), S(1)], backward=False)
    g.torch.manual_seed(107)
    for dt in FLOATS:
        case("Functional.normalize", [rnd([3, 4], dt)])
        case("Functional.normalize", [rnd([2, 3, 4], dt)], {"dim": S(-1)})
    case("Functional.normalize", [rnd([3, 4], "f32")], {"p": S(1.0), "dim": S(0)})
    case("Functional.normalize", [rnd([3, 4], "f64")], {"p": S(3.0)})
    case("Functional.normalize", [rnd([3, 4], "f32", scale=0.01)], {"eps": S(0.05)})
    case("Functional.normalize", [g.torch.tensor([[0.0, 0.0], [3.0, -4.0]])], {"dim": S(1)})
    case("Functional.normalize", [rnd([4], "f32")], {"dim": S(0)})
    case("Functional.normalize", [rnd([4], "f32")], backward=False)
    case("Functional.normalize", [ints([2, 3], "i64")], backward=False)
    g.torch.manual_seed(108)
    case("Torch._foreach_norm", [[rnd([3, 4], "f32"), rnd([5], "bf16"), rnd([2, 2], "f64"), rnd([3], "f16")]])
    case("Torch._foreach_norm", [[rnd([3, 4], "f32"), rnd([6], "f32")], S(3)])
    case("Torch._foreach_norm", [[rnd([3, 4], "f32")], S(float("inf"))])
    case("Torch._foreach_norm", [[ints([3], "i64")]])


def bool_cases(g):
    S, rnd, ints, case, torch = g.S, g.rnd, g.ints, g.case, g.torch
    g.torch.manual_seed(109)
    g.register("Torch.equal", lambda a, b: torch.tensor(torch.equal(a, b)))
    g.register("Tensor.equal", lambda a, b: torch.tensor(a.equal(b)))
    g.register("Tensor.allclose", lambda a, b, **k: torch.tensor(a.allclose(b, **k)))
    for api in ["Torch.all", "Tensor.any"]:
        for dt in ["f32", "bf16", "i64", "u8", "bool"]:
            x = ints([3, 4], dt, 0, 2) if dt != "i64" else ints([3, 4], dt, -1, 3)
            case(api, [x], backward=False)
            case(api, [x, S(1)], backward=False)
        case(api, [ints([2, 3, 2], "bool", 0, 2), S(-1), S(True)], backward=False)
        case(api, [g.special("f32")], backward=False)
        case(api, [torch.ones([3, 4], dtype=torch.bool)], backward=False)
        case(api, [torch.zeros([0, 3]), S(0)], backward=False)
        case(api, [torch.zeros([0])], backward=False)
        case(api, [ints([3], "bool", 0, 2), S(1)], backward=False)
    case("Tensor.all", [ints([4], "u8", 0, 3), S(0)], {"keepdim": S(True)}, backward=False)
    case("Torch.any", [ints([4], "bool", 0, 1)], backward=False)
    a = rnd([3, 4], "f32")
    case("Torch.equal", [a, a.clone()], backward=False)
    case("Torch.equal", [a, a + 1e-6], backward=False)
    case("Torch.equal", [a, a[:2]], backward=False)
    case("Tensor.equal", [a, a.double()], backward=False)
    case("Tensor.equal", [g.special("f32"), g.special("f32")], backward=False)
    case("Tensor.equal", [ints([5], "i64"), ints([5], "i64")], backward=False)
    b = a + rnd([3, 4], "f32", scale=1e-5)
    for api in ["Torch.isclose", "Tensor.allclose"]:
        for dt in FLOATS:
            x = rnd([4, 5], dt)
            y = (x.double() * (1 + rnd([4, 5], "f64", scale=2e-3))).to(g.DT[dt])
            case(api, [x, y], backward=False)
            case(api, [x, y], {"rtol": S(1e-3), "atol": S(1e-4)}, backward=False)
        case(api, [a, b], backward=False)
        case(api, [a, b], {"rtol": S(0.0), "atol": S(0.0)}, backward=False)
        case(api, [g.special("f32"), g.special("f32").flip(0)], backward=False)
        case(api, [g.special("f32"), g.special("f32")], {"equal_nan": S(True)}, backward=False)
        case(api, [g.special("bf16"), g.special("bf16")], backward=False)
        case(api, [ints([6], "i64", -5, 5), ints([6], "i64", -5, 5)], {"atol": S(1.0)}, backward=False)
        case(api, [ints([6], "i32", -5, 5), ints([6], "i32", -5, 5)], {"rtol": S(0.3)}, backward=False)
        case(api, [ints([6], "bool", 0, 2), ints([6], "bool", 0, 2)], backward=False)
        case(api, [a, b.double()], backward=False)
        case(api, [a, b], {"rtol": S(-1.0)}, backward=False)
        case(api, [a, b], {"atol": S(-0.5)}, backward=False)
    case("Torch.isclose", [rnd([3, 4], "f32"), rnd([4], "f32")], {"atol": S(1.0)}, backward=False)
    case("Tensor.isclose", [rnd([3], "f32"), rnd([3], "f32")], {"atol": S(1.5)}, backward=False)


def fro_cases(g):
    """torch.norm's str p (appended after the other sections): 'fro' (the default) is
    frobenius_norm, the 2-norm over no dim, all or one, sqrt(sum(x * x)) over two; its dtype=
    and more than two dims are refused, as 'nuc' is by precheck."""
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    g.torch.manual_seed(110)
    for dt in FLOATS:
        case("Torch.norm", [rnd([3, 4], dt), "fro"])
        case("Tensor.norm", [rnd([3, 4, 5], dt)], {"p": "fro", "dim": [0, 2]})
        case("Torch.norm", [rnd([4, 6], dt), "fro", [-1, 0], S(True)])
    case("Torch.norm", [rnd([2, 3, 4], "f32"), "fro", S(1)])
    case("Tensor.norm", [rnd([2, 3, 4], "f32")], {"p": "fro", "dim": [-1], "keepdim": S(True)})
    case("Torch.norm", [rnd([2, 3, 4], "f32")], {"p": "fro", "keepdim": S(True)})
    case("Torch.norm", [rnd([2, 3, 4], "f64"), "fro", [1, 2]])
    case("Torch.norm", [rnd([40, 50], "f32"), "fro", [0, 1]])
    case("Torch.norm", [rnd([3, 40, 24], "f32"), "fro", [1, 2]])
    case("Torch.norm", [g.torch.zeros(2, 3), "fro", [0, 1]])
    case("Torch.norm", [rnd([3, 4], "f32"), "fro"], {"dtype": g.torch.float64}, backward=False)
    case("Torch.norm", [rnd([3, 4], "f32")], {"dtype": g.torch.float64}, backward=False)
    case("Torch.norm", [rnd([2, 3, 4], "f32"), "fro", [0, 1, 2]], backward=False)
    case("Torch.norm", [rnd([2, 3], "f32"), "fro", [1, -1]], backward=False)
    case("Torch.norm", [rnd([2, 3], "f32"), "fro", [0, 2]], backward=False)
    case("Torch.norm", [rnd([3, 4], "f32"), "nuc"], {"dtype": g.torch.float64}, backward=False)
    case("Torch.norm", [rnd([3, 4], "f32"), "max"], backward=False)
    case("Torch.norm", [ints([3, 4], "i64"), "fro"], backward=False)
    case("Torch.norm", [ints([3, 4], "i64"), "fro", S(1)], backward=False)


def cases(g):
    sum_cases(g)
    var_cases(g)
    scan_cases(g)
    lse_cases(g)
    norm_cases(g)
    bool_cases(g)
    fro_cases(g)
