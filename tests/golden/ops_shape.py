"""Golden cases of the shape, view, reduction and factory ops (group "shape").

Lists stand for Tensor[] and int[] arguments (plain ints inside them); g.S(v) is a Python
scalar argument. Cases of ops with several outputs (split, chunk, max/min with dim) have no
backward, as run_ut runs none. cat/stack gradients are per item of the list (the cases with a
backward come last in their section, so that the data of the earlier ones stays as it was).
"""

FLOATS = ["f16", "bf16", "f32", "f64"]


def view_cases(g):
    S, rnd, ints = g.S, g.rnd, g.ints
    for dt in FLOATS:
        case = g.case
        case("Torch.transpose", [rnd([2, 3, 4], dt), S(0), S(2)])
        case("Tensor.permute", [rnd([2, 3, 4], dt), S(2), S(0), S(1)])
        case("Tensor.reshape", [rnd([2, 3, 4], dt), [4, -1]])
        case("Tensor.expand", [rnd([3, 1], dt), S(2), S(3), S(4)])
        case("Tensor.view", [rnd([2, 6], dt), S(3), S(4)])
    case = g.case
    case("Tensor.transpose", [rnd([3, 4], "f32"), S(-1), S(0)])
    case("Tensor.transpose", [rnd([], "f32"), S(0), S(-1)])
    case("Tensor.transpose", [rnd([3], "f32"), S(0), S(3)], backward=False)
    case("Torch.swapaxes", [rnd([2, 3], "bf16"), S(0), S(1)])
    case("Tensor.swapdims", [rnd([2, 3, 2], "f32"), S(1), S(2)])
    case("Tensor.t", [rnd([2, 3], "f32")])
    case("Torch.t", [rnd([3], "bf16")])
    case("Tensor.t", [rnd([2, 3, 4], "f32")], backward=False)
    case("Tensor.t_", [rnd([4, 2], "f16")], inplace=True)
    case("Torch.permute", [rnd([2, 3, 4], "f32"), [1, -1, 0]])
    case("Tensor.permute", [ints([2, 3], "i64"), S(1), S(0)], backward=False)
    case("Tensor.permute", [rnd([2, 3], "f32"), S(0), S(0)], backward=False)
    case("Tensor.permute", [rnd([2, 3], "f32"), S(0)], backward=False)
    case("Torch.reshape", [rnd([6], "f32"), [2, 3]])
    case("Tensor.reshape", [rnd([2, 3], "f32"), S(-1)])
    case("Tensor.reshape", [rnd([2, 3], "f32"), g.torch.Size([3, 2])])
    case("Tensor.reshape", [rnd([2, 3], "f32"), [4, 2]], backward=False)
    case("Tensor.reshape", [rnd([2, 3], "f32"), [-1, -1]], backward=False)
    case("Tensor.reshape", [rnd([2, 3], "f32"), [-2, 3]], backward=False)
    case("Tensor.reshape", [rnd([0, 3], "f32"), [3, 0]])
    case("Tensor.view", [rnd([4], "f32"), S(2), S(-1), S(1)])
    case("Tensor.view", [ints([2, 2], "bool", 0, 2), [4]], backward=False)
    case("Tensor.view_as", [rnd([2, 6], "f32"), rnd([3, 4], "f32")])
    case("Tensor.view_as", [rnd([2, 6], "bf16"), rnd([4, 3], "f32")])
    case("Torch.flatten", [rnd([2, 3, 4], "f32")])
    case("Tensor.flatten", [rnd([2, 3, 4, 2], "bf16"), S(1), S(2)])
    case("Tensor.flatten", [rnd([2, 3, 4], "f32")], {"start_dim": S(1)})
    case("Tensor.flatten", [rnd([], "f32")])
    case("Tensor.flatten", [rnd([2, 3], "f32"), S(1), S(0)], backward=False)
    case("Torch.ravel", [rnd([2, 3], "f16")])
    for dt in ["f32", "bf16"]:
        case("Torch.unsqueeze", [rnd([2, 3], dt), S(1)])
        case("Tensor.squeeze", [rnd([2, 1, 3, 1], dt)])
    case("Tensor.unsqueeze", [rnd([2, 3], "f32"), S(-1)])
    case("Tensor.unsqueeze", [rnd([], "f64"), S(0)])
    case("Tensor.unsqueeze", [rnd([2, 3], "f32"), S(3)], backward=False)
    case("Tensor.unsqueeze_", [rnd([3], "f32"), S(0)], inplace=True)
    case("Torch.squeeze", [rnd([2, 1, 3], "f32"), S(1)])
    case("Tensor.squeeze", [rnd([2, 1, 3], "f32"), S(0)])
    case("Tensor.squeeze", [rnd([1, 1], "f16")])
    case("Tensor.squeeze", [rnd([2, 3], "f32"), S(2)], backward=False)
    case("Tensor.squeeze_", [rnd([1, 3], "f32"), S(0)], inplace=True)
    case("Tensor.expand", [rnd([3], "f32"), [2, -1]])
    case("Tensor.expand", [rnd([2, 1, 3], "bf16"), S(-1), S(4), S(-1)])
    case("Tensor.expand", [rnd([1], "f16", scale=1000), S(3000)])
    case("Tensor.expand", [ints([2, 1], "i64"), S(2), S(2)], backward=False)
    case("Tensor.expand", [rnd([2, 3], "f32"), S(4), S(3), S(4)], backward=False)
    case("Tensor.expand", [rnd([2, 3], "f32"), S(2)], backward=False)
    case("Tensor.expand", [rnd([3], "f32"), S(-1), S(3)], backward=False)
    case("Torch.broadcast_to", [rnd([3, 1], "f32"), [2, 3, 5]])
    case("Tensor.expand_as", [rnd([3, 1], "f32"), rnd([2, 3, 4], "f32")])
    case("Tensor.expand_as", [rnd([1], "bf16", scale=100), rnd([500], "bf16")])
    for dt in ["f32", "bf16"]:
        case("Tensor.narrow", [rnd([4, 3], dt), S(0), S(1), S(2)])
        case("Torch.select", [rnd([4, 3], dt), S(1), S(-1)])
        case("Tensor.repeat", [rnd([2, 3], dt), S(2), S(1), S(2)])
        case("Torch.flip", [rnd([2, 3, 2], dt), [0, 2]])
        case("Tensor.movedim", [rnd([2, 3, 4], dt), S(0), S(-1)])
    case("Torch.narrow", [rnd([2, 5], "f32"), S(-1), S(-2), S(2)])
    case("Tensor.narrow", [rnd([3], "f16"), S(0), S(3), S(0)])
    case("Tensor.narrow", [rnd([3, 4], "f32"), S(0), S(2), S(2)], backward=False)
    case("Tensor.narrow", [rnd([3, 4], "f32"), S(0), S(5), S(1)], backward=False)
    case("Tensor.select", [rnd([3, 4], "f32"), S(0), S(5)], backward=False)
    case("Tensor.select", [rnd([3], "f64"), S(0), S(1)])
    case("Tensor.repeat", [rnd([3], "f16", scale=100), S(200)])
    case("Tensor.repeat", [rnd([2], "f32"), [2, 1, 3]])
    case("Tensor.repeat", [rnd([2, 3], "f32"), S(2)], backward=False)
    case("Tensor.repeat", [ints([2], "i64"), S(0), S(2)], backward=False)
    case("Tensor.flip", [rnd([3, 4], "f32"), S(1)])
    case("Tensor.flip", [rnd([3, 4], "f32"), S(-1), S(1)], backward=False)
    case("Torch.movedim", [rnd([2, 3, 4, 5], "f32"), [0, 1], [3, 0]])
    case("Torch.moveaxis", [rnd([2, 3, 4], "f32"), S(2), S(0)])
    case("Torch.movedim", [rnd([2, 3], "f32"), [0, 0], [1, 0]], backward=False)
    case("Torch.movedim", [rnd([2, 3], "f32"), [0], [1, 0]], backward=False)
    case("Tensor.unflatten", [rnd([2, 6], "f32"), S(1), [2, -1]])
    case("Torch.unflatten", [rnd([6, 2], "bf16"), S(0), [3, 2]])
    case("Tensor.unflatten", [rnd([2, 4], "f32"), S(1), [3, 3]], backward=False)
    case("Tensor.contiguous", [rnd([2, 3], "f32")])
    case("Tensor.contiguous", [ints([2, 3], "i32")], backward=False)
    for dt in FLOATS:
        case("Torch.clone", [rnd([2, 3], dt)])
    case("Tensor.clone", [g.special("f32")])
    case("Tensor.clone", [ints([4], "bool", 0, 2)], backward=False)


def join_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    for dt in FLOATS:
        case("Torch.cat", [[rnd([2, 3], dt), rnd([1, 3], dt)]], backward=False)
        case("Torch.stack", [[rnd([2, 3], dt), rnd([2, 3], dt), rnd([2, 3], dt)]], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([2, 2], "f32")], S(1)], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([2, 2], "f32")]], {"dim": S(-1)}, backward=False)
    case("Torch.cat", [[rnd([2, 3], "f16"), rnd([1, 3], "f32")]], backward=False)
    case("Torch.cat", [[rnd([2], "bf16"), rnd([2], "f16")]], backward=False)
    case("Torch.cat", [[ints([2], "i32"), rnd([3], "f32")]], backward=False)
    case("Torch.cat", [[ints([2], "i64"), ints([2], "bool", 0, 2)]], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([0], "f32")]], backward=False)
    case("Torch.cat", [[rnd([0], "f32"), rnd([0], "f32")]], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32")]], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([3, 2], "f32")]], backward=False)
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([3], "f32")]], backward=False)
    case("Torch.cat", [[rnd([], "f32"), rnd([3], "f32")]], backward=False)
    case("Torch.cat", [[]], backward=False)
    case("Torch.concat", [[rnd([1, 2], "f32"), rnd([1, 2], "f32")], S(1)], backward=False)
    case("Torch.concatenate", [[rnd([1, 2], "bf16"), rnd([3, 2], "bf16")]], backward=False)
    case("Torch.stack", [[rnd([2, 3], "f32"), rnd([2, 3], "f32")], S(2)], backward=False)
    case("Torch.stack", [[rnd([2, 3], "f32"), rnd([2, 3], "f32")], S(-1)], backward=False)
    case("Torch.stack", [[rnd([], "f32"), rnd([], "f16")]], backward=False)
    case("Torch.stack", [[ints([3], "i64"), ints([3], "i32")], S(1)], backward=False)
    case("Torch.stack", [[rnd([2, 3], "f32"), rnd([3, 2], "f32")]], backward=False)
    case("Torch.stack", [[]], backward=False)
    # backward: each item's gradient is its slice, in the output's dtype, cast to the item's
    for dt in FLOATS:
        case("Torch.cat", [[rnd([2, 3], dt), rnd([1, 3], dt)]])
        case("Torch.stack", [[rnd([2, 3], dt), rnd([2, 3], dt)]])
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([2, 2], "f32")], S(1)])
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([2, 2], "f32")]], {"dim": S(-1)})
    case("Torch.cat", [[rnd([2, 3], "f16"), rnd([1, 3], "f32")]])
    case("Torch.cat", [[rnd([2], "bf16"), rnd([3], "f64")]])
    case("Torch.cat", [[ints([2], "i32"), rnd([3], "f32")]])
    case("Torch.cat", [[rnd([2, 3], "f32"), rnd([0], "f32"), rnd([1, 3], "f32")]])
    case("Torch.stack", [[rnd([2, 3], "f32"), rnd([2, 3], "f32"), rnd([2, 3], "f32")], S(1)])
    case("Torch.stack", [[rnd([2, 3], "bf16"), rnd([2, 3], "bf16")]], {"dim": S(-1)})
    case("Torch.concat", [[rnd([1, 2], "f32"), rnd([1, 2], "f32")], S(1)])


def split_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    for dt in FLOATS:
        case("Tensor.chunk", [rnd([5, 2], dt), S(3)])
        case("Torch.split", [rnd([2, 7], dt), S(3), S(1)])
    case("Torch.chunk", [rnd([6, 4], "f32"), S(4)])
    case("Torch.chunk", [rnd([2, 6], "f32"), S(2), S(-1)])
    case("Tensor.chunk", [rnd([0, 2], "f32"), S(3)])
    case("Tensor.chunk", [rnd([3], "f32"), S(5)])
    case("Tensor.chunk", [rnd([3], "f32"), S(0)])
    case("Tensor.chunk", [ints([7], "i64"), S(2)])
    case("Tensor.split", [rnd([5, 2], "f32"), [2, 0, 3]])
    case("Tensor.split", [rnd([5, 2], "bf16"), S(2)])
    case("Tensor.split", [rnd([5, 2], "f32"), S(5)])
    case("Tensor.split", [rnd([5, 2], "f32"), S(7)])
    case("Tensor.split", [rnd([2, 5], "f32"), [1, 4]], {"dim": S(1)})
    case("Tensor.split", [rnd([5], "f32"), [2, 2]])
    case("Tensor.split", [rnd([5], "f32"), S(0)])
    case("Tensor.split", [rnd([0], "f32"), S(0)])
    case("Tensor.split", [rnd([64], "f32"), S(1)])  # PC_OP_MAX_OUTPUTS pieces
    case("Torch.split_with_sizes", [rnd([4, 3], "f16"), [1, 2]], {"dim": S(1)})
    case("Tensor.unbind", [rnd([3, 2], "f32")])
    case("Torch.unbind", [rnd([3, 2], "bf16"), S(1)])


def tri_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    for dt in FLOATS:
        case("Torch.tril", [rnd([3, 4], dt)])
        case("Torch.triu", [rnd([4, 3], dt), S(1)])
    case("Torch.tril", [rnd([2, 3, 3], "f32"), S(-1)])
    case("Tensor.triu", [rnd([2, 4, 3], "bf16")], {"diagonal": S(-2)})
    case("Tensor.tril", [ints([3, 3], "bool", 0, 2), S(0)], backward=False)
    case("Tensor.triu", [ints([3, 5], "i64"), S(2)], backward=False)
    case("Tensor.tril_", [rnd([3, 3], "f32")], inplace=True)
    case("Tensor.triu_", [rnd([3, 3], "f16"), S(1)], inplace=True)
    case("Torch.tril", [rnd([3], "f32")], backward=False)
    case("Torch.triu", [rnd([0, 3], "f32")])


def reduce_cases(g):
    """Sums of signed values cancel, and then torch's own rounding error (its fp32 sums run in
    float32 along outer dimensions) shows as many ULP of the small result: most inputs here are
    positive, a few signed cases pin the gap (docs/ops.md)."""
    S, ints, case = g.S, g.ints, g.case

    def rnd(shape, dt, **kw):
        kw.setdefault("positive", True)
        return g.rnd(shape, dt, **kw)
    for dt in FLOATS:
        case("Torch.sum", [rnd([3, 4], dt)])
        case("Tensor.sum", [rnd([3, 4, 5], dt), S(1)])
        case("Torch.sum", [rnd([4, 3, 2], dt), [0, 2]], {"keepdim": S(True)})
        case("Torch.mean", [rnd([3, 4], dt)])
        case("Tensor.mean", [rnd([3, 4, 5], dt), S(-1)])
        case("Torch.mean", [rnd([4, 3, 2], dt), [0, 2], S(True)])
        case("Tensor.sum", [rnd([2, 300], dt), S(1)])
        case("Tensor.mean", [rnd([2, 300], dt), S(1)])
    case("Tensor.sum", [rnd([1000], "f32")])
    case("Tensor.sum", [rnd([1000], "bf16")])
    case("Tensor.mean", [rnd([1000], "f16")])
    case("Tensor.mean", [rnd([4096], "f32")])
    case("Tensor.sum", [rnd([64, 64], "f32"), S(0)])
    case("Tensor.sum", [rnd([64, 64], "f32", positive=False), S(0)])
    case("Tensor.sum", [rnd([3, 4, 5], "f64", positive=False), S(1)])
    case("Tensor.mean", [rnd([300], "bf16", positive=False)])
    case("Tensor.sum", [rnd([3, 4], "f16")], {"dtype": g.torch.float32})
    case("Tensor.sum", [rnd([3, 4], "f32")], {"dtype": g.torch.float64})
    case("Tensor.mean", [rnd([3, 4], "bf16"), S(0)], {"dtype": g.torch.float32})
    case("Tensor.sum", [rnd([3, 4], "f32"), []])
    case("Tensor.mean", [rnd([3, 4], "f32"), []])
    case("Tensor.sum", [rnd([], "f32")])
    case("Tensor.sum", [rnd([], "f32"), S(0)])
    case("Tensor.sum", [rnd([0, 3], "f32"), S(0)])
    case("Tensor.mean", [rnd([0, 3], "f32"), S(0)], backward=False)
    case("Tensor.sum", [g.special("f32")], backward=False)
    case("Tensor.mean", [g.special("bf16")], backward=False)
    case("Tensor.sum", [ints([3, 4], "i64"), S(1)], backward=False)
    case("Tensor.sum", [ints([3, 4], "i32")], backward=False)
    case("Tensor.sum", [ints([5], "bool", 0, 2)], backward=False)
    case("Tensor.sum", [ints([5], "u8", 0, 200)], backward=False)
    case("Tensor.sum", [ints([5], "i64")], {"dtype": g.torch.float32}, backward=False)
    case("Tensor.sum", [rnd([5], "f32", scale=10)], {"dtype": g.torch.int64}, backward=False)
    case("Tensor.sum", [rnd([3, 4], "f32"), [0, 0]], backward=False)
    case("Tensor.sum", [rnd([3, 4], "f32"), S(2)], backward=False)
    case("Tensor.mean", [ints([3], "i64")], backward=False)
    case("Tensor.mean", [ints([3], "i64")], {"dtype": g.torch.float32}, backward=False)
    case("Tensor.mean", [rnd([3], "f32")], {"dtype": g.torch.int64}, backward=False)


def extreme_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    t = g.torch
    for dt in FLOATS:
        case("Torch.max", [rnd([3, 4], dt)])
        case("Torch.min", [rnd([3, 4], dt)])
        case("Tensor.max", [rnd([3, 4], dt), S(1)])
        case("Tensor.min", [rnd([3, 4], dt), S(0), S(True)])
        case("Torch.amax", [rnd([3, 4, 2], dt), [0, 2]])
        case("Torch.amin", [rnd([3, 4], dt), S(-1), S(True)])
        case("Torch.argmax", [rnd([3, 4], dt)])
        case("Tensor.argmin", [rnd([3, 4], dt), S(1)])
    ties = t.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 1.0, 0.0]])
    case("Tensor.max", [ties])
    case("Tensor.max", [ties.to(t.bfloat16), S(1)])
    case("Tensor.min", [ties, S(1)], {"keepdim": S(True)})
    case("Tensor.amax", [ties, S(1)])
    case("Tensor.amax", [ties])
    case("Tensor.amin", [ties.to(t.float16), [0, 1], S(True)])
    case("Tensor.argmax", [ties, S(1)])
    case("Tensor.argmin", [ties], {"dim": S(1), "keepdim": S(True)})
    case("Tensor.argmax", [ties], {"keepdim": S(True)})
    nan = t.tensor([[1.0, float("nan"), 3.0, float("nan")], [float("-inf"), 2.0, float("inf"), 0.0]])
    case("Tensor.max", [nan, S(1)])
    case("Tensor.min", [nan, S(1)])
    case("Tensor.argmax", [nan, S(1)])
    case("Tensor.amax", [nan, S(1)], backward=False)
    case("Tensor.max", [nan], backward=False)
    case("Tensor.max", [ints([3, 4], "i64")], backward=False)
    case("Tensor.max", [ints([3, 4], "i32"), S(0)])
    case("Tensor.min", [ints([6], "bool", 0, 2)], backward=False)
    case("Tensor.amax", [ints([2, 5], "u8", 0, 250), S(1)], backward=False)
    case("Tensor.argmin", [ints([2, 5], "i64", -3, 3), S(1)], backward=False)
    case("Tensor.argmax", [ints([3], "bool", 0, 2)], backward=False)
    case("Tensor.max", [rnd([], "f32")])
    case("Tensor.max", [rnd([], "f32"), S(0)])
    case("Tensor.argmax", [rnd([], "f32")], backward=False)
    case("Tensor.amax", [rnd([], "f32")])
    case("Tensor.max", [rnd([0, 3], "f32")], backward=False)
    case("Tensor.max", [rnd([0, 3], "f32"), S(0)], backward=False)
    case("Tensor.max", [rnd([0, 3], "f32"), S(1)], backward=False)
    case("Tensor.amax", [rnd([0, 3], "f32"), S(0)], backward=False)
    case("Tensor.argmax", [rnd([0, 3], "f32")], backward=False)
    case("Tensor.argmax", [rnd([2, 3], "f32"), S(2)], backward=False)
    case("Tensor.amax", [rnd([2, 3], "f32"), [1, 1]], backward=False)
    case("Tensor.max", [rnd([4, 500], "bf16", scale=0.01), S(1)])
    case("Tensor.max", [rnd([4, 5], "f32").round().half()])


def factory_cases(g):
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    t = g.torch
    case("Torch.arange", [S(5)], backward=False)
    case("Torch.arange", [S(2), S(9)], backward=False)
    case("Torch.arange", [S(1), S(10), S(3)], backward=False)
    case("Torch.arange", [S(10), S(1), S(-2)], backward=False)
    case("Torch.arange", [S(0.0), S(1.0), S(0.1)], backward=False)
    case("Torch.arange", [S(-1.0), S(1.0), S(0.3)], backward=False)
    case("Torch.arange", [S(5)], {"dtype": t.float16}, backward=False)
    case("Torch.arange", [S(0), S(4096)], {"dtype": t.bfloat16}, backward=False)
    case("Torch.arange", [S(3)], {"dtype": t.float64}, backward=False)
    case("Torch.arange", [S(0), S(5.5), S(1.5)], {"dtype": t.int64}, backward=False)
    case("Torch.arange", [S(2.5)], backward=False)
    case("Torch.arange", [S(0)], backward=False)
    case("Torch.arange", [S(1), S(5), S(0)], backward=False)
    case("Torch.arange", [S(5), S(1)], backward=False)
    case("Torch.arange", [S(0), S(6)], {"dtype": t.int32}, backward=False)
    case("Torch.full", [[2, 3], S(1.5)], backward=False)
    case("Torch.full", [[2, 3], S(7)], backward=False)
    case("Torch.full", [[2], S(True)], backward=False)
    case("Torch.full", [t.Size([2, 2]), S(-0.1)], {"dtype": t.bfloat16}, backward=False)
    case("Torch.full", [[3], S(3.7)], {"dtype": t.int32}, backward=False)
    case("Torch.full", [[], S(2.0)], {"dtype": t.float64}, backward=False)
    case("Torch.full", [[2, 0], S(1)], backward=False)
    case("Torch.full", [[-1, 2], S(1)], backward=False)
    for dt in FLOATS:
        case("Torch.ones_like", [rnd([2, 3], dt)], backward=False)
        case("Torch.zeros_like", [rnd([2, 3], dt)], backward=False)
        case("Torch.full_like", [rnd([2, 3], dt), S(-3.25)], backward=False)
    case("Torch.ones_like", [ints([3], "i64")], backward=False)
    case("Torch.ones_like", [ints([3], "bool", 0, 2)], backward=False)
    case("Torch.zeros_like", [rnd([3], "f32")], {"dtype": t.int32}, backward=False)
    case("Torch.full_like", [ints([3], "i64"), S(2.7)], backward=False)
    case("Torch.full_like", [rnd([3], "f16"), S(1e5)], backward=False)
    case("Torch.full_like", [rnd([3], "f32"), S(7)], {"dtype": t.float16}, backward=False)
    case("Torch.full_like", [rnd([], "bf16"), S(0.1)], backward=False)


def msprobe_getitem(x, index):
    """Tensor.__getitem__ as run_ut replays it (run_ut.md 5.4): special cases of a lone tensor."""
    t = x.__class__.__getitem__
    if not hasattr(index, "dtype"):
        return t(x, index)
    import torch
    if index.dtype == torch.uint8:
        index = index.bool()
    if index.dtype == torch.bool:
        if index.shape == x.shape:
            if x.dtype == torch.bfloat16:
                return torch.masked_select(x.float(), index).to(torch.bfloat16)
            return torch.masked_select(x, index)
        return t(x, torch.nonzero(index, as_tuple=True))
    if index.dim() <= 1:
        return t(x, index.tolist())
    return torch.stack([t(x, sub) for sub in index], 0)


def index_cases(g):
    """Tensor.__getitem__: the index is input_args[1] (an int, bool, None, slice, ellipsis,
    tensor, or a list of these; a list of only ints is one index tensor, as torch reads it)."""
    S, rnd, ints, t = g.S, g.rnd, g.ints, g.torch
    base_rec, base_fn = g.rec, g.torch_fn

    def rec(x, name, rg):
        if isinstance(x, slice):
            return {"type": "slice", "value": [x.start, x.stop, x.step]}
        if x is Ellipsis:
            return {"type": "ellipsis", "value": "..."}
        return base_rec(x, name, rg)

    def torch_fn(api):
        return msprobe_getitem if api == "Tensor.__getitem__" else base_fn(api)

    g.rec, g.torch_fn = rec, torch_fn
    try:
        index_case_list(g, S, rnd, ints, t)
    finally:
        g.rec, g.torch_fn = base_rec, base_fn


def index_case_list(g, S, rnd, ints, t):
    case = g.case
    A = "Tensor.__getitem__"
    sl, E = slice, Ellipsis
    i64 = lambda v: t.tensor(v, dtype=t.int64)
    b = lambda v: t.tensor(v, dtype=t.bool)
    for dt in FLOATS:
        case(A, [rnd([3, 4], dt), S(1)])
        case(A, [rnd([5, 2], dt), sl(1, 4)])
        case(A, [rnd([3, 4, 2], dt), [sl(None), sl(1, 3), None, E]])
        case(A, [rnd([4, 3], dt), i64([2, 0, 2])])
        x = rnd([3, 4], dt)
        case(A, [x, x > 0])
    # ints, slices, None, Ellipsis, bools
    case(A, [rnd([3, 4], "f32"), S(-1)])
    case(A, [rnd([7], "f32"), sl(None, None, 2)])
    case(A, [rnd([7, 2], "f32"), sl(-3, None)])
    case(A, [rnd([7], "f32"), sl(1, 100)])
    case(A, [rnd([7], "f32"), sl(5, 2)])
    case(A, [rnd([7, 3], "f32"), sl(None, -1, 3)])
    case(A, [rnd([7], "f32"), sl(-100, -2, 4)])
    case(A, [rnd([3, 4], "f32"), None])
    case(A, [rnd([3, 4], "f32"), E])
    case(A, [rnd([3, 4, 2], "f32"), [E, 0]])
    case(A, [rnd([3, 4], "f32"), [E, None]])
    case(A, [rnd([3, 4, 5], "f32"), [0, E, sl(1, None)]])
    case(A, [rnd([3, 4, 5], "bf16"), [sl(None), -2, sl(None, None, 3)]])
    case(A, [rnd([3, 4], "f32"), [1, 2]])
    case(A, [rnd([3, 4], "f32"), [None, 1, None, sl(1, 3)]])
    case(A, [rnd([3, 4], "f32"), S(True)])
    case(A, [rnd([3, 4], "f32"), S(False)])
    case(A, [rnd([3, 4], "f32"), [None, 1, True]])
    case(A, [rnd([], "f32"), None])
    case(A, [rnd([], "f32"), E])
    case(A, [rnd([], "f64"), S(True)])
    # lists of ints read as one index tensor, and lists inside the index
    case(A, [rnd([3, 4], "f32"), [0, 2, 2, -1]])
    case(A, [rnd([3, 4], "f32"), [True, False, True]])
    case(A, [rnd([3, 4], "f16"), [[0, 2], sl(1, None)]])
    case(A, [rnd([3, 4], "f32"), []])
    # lone tensors (msprobe's special cases)
    case(A, [rnd([4, 3], "f32"), i64(2)])
    case(A, [rnd([4, 3], "f32"), i64([-1, 0, 3])])
    case(A, [rnd([4, 3], "f32"), t.tensor([3, 1, 1], dtype=t.int32)])
    case(A, [rnd([4, 3], "f32"), t.tensor(1, dtype=t.int32)])
    case(A, [rnd([4, 3], "bf16"), i64([[0, 1], [2, 2]])])
    case(A, [rnd([4, 3], "f32"), i64([[[0, 1]], [[3, 3]]])])
    case(A, [rnd([4, 3], "f32"), i64([])])
    case(A, [rnd([3, 4], "f32"), b([True, False, True])])
    case(A, [rnd([3, 4], "f32"), b([True, False])])
    case(A, [rnd([3, 4], "f32"), b(True)])
    case(A, [rnd([], "f32"), b(True)])
    case(A, [rnd([], "f32"), b(False)])
    x = rnd([2, 3, 2], "f16")
    case(A, [x, (x > 0).to(t.uint8)])
    case(A, [rnd([3, 4], "f32"), t.tensor([1, 0, 1], dtype=t.uint8)])
    x = rnd([3, 4], "bf16")
    case(A, [x, x < 0.5])
    # tensors inside a tuple: advanced indexing
    case(A, [rnd([3, 4], "f32"), [sl(None), i64([3, 0, 3])]])
    case(A, [rnd([3, 4, 2], "f32"), [i64([1, 0]), sl(1, 3)]])
    case(A, [rnd([3, 4, 2], "f32"), [sl(None), None, i64([[0, 2], [1, 1]])]])
    case(A, [rnd([3, 4], "f32"), [i64([0, 2]), i64([1, 3])]])
    case(A, [rnd([3, 4, 2], "f32"), [i64([0, 2]), sl(None), i64([1, 0])]])
    case(A, [rnd([3, 4, 2], "f32"), [sl(1, None), i64([0, 3]), i64([[1], [0]])]])
    case(A, [rnd([3, 4], "f64"), [i64([[0], [2]]), i64([1, 3, 3])]])
    case(A, [rnd([3, 4], "f32"), [i64([0, 2]), None, i64([1, 3])]])
    case(A, [rnd([3, 4, 2], "f32"), [E, i64([1, 1])]])
    case(A, [rnd([3, 4], "f32"), [sl(None), b([True, False, False, True])]])
    case(A, [rnd([3, 4], "f32"), [b([False, True, True]), 2]])
    x = rnd([2, 3, 4], "f32")
    case(A, [x, [x[0] > 0, sl(None)]], backward=False)
    case(A, [x, [1, x[0] > 0]])
    case(A, [rnd([3, 4], "f32"), [i64(1), sl(None)]])
    case(A, [rnd([3, 4], "f32"), [b(True), 1]])
    # other dtypes of self
    case(A, [ints([3, 4], "i64"), [sl(1, None), None]], backward=False)
    case(A, [ints([3, 4], "i32"), [E, 1]], backward=False)
    case(A, [ints([4, 2], "bool", 0, 2), i64([3, 0])], backward=False)
    case(A, [ints([3, 4], "u8", 0, 200), [sl(None), b([True, False, True, True])]], backward=False)
    x = ints([3, 4], "i64")
    case(A, [x, x > 0], backward=False)
    # torch's errors
    case(A, [rnd([3, 4], "f32"), S(5)], backward=False)
    case(A, [rnd([3, 4], "f32"), [sl(None), -5]], backward=False)
    case(A, [rnd([3, 4], "f32"), sl(None, None, -1)], backward=False)
    case(A, [rnd([3, 4], "f32"), sl(None, None, 0)], backward=False)
    case(A, [rnd([3, 4], "f32"), [0, 0, 0]], backward=False)
    case(A, [rnd([3, 4], "f32"), [0, sl(None), None, 1]], backward=False)
    case(A, [rnd([3, 4], "f32"), i64([0, 3])], backward=False)
    case(A, [rnd([3, 4], "f32"), [sl(None), i64([4])]], backward=False)
    case(A, [rnd([3, 4], "f32"), [b([True, False]), sl(None)]], backward=False)
    case(A, [rnd([3, 4], "f32"), [i64([0, 1]), i64([0, 1, 2])]], backward=False)
    case(A, [rnd([3, 4], "f32"), i64([[], []])], backward=False)
    case(A, [rnd([3, 4], "f32"), t.zeros([0, 2], dtype=t.int64)], backward=False)


def index_dtype_cases(g):
    """Tensor.__getitem__ with index tensors that are not int64 (appended after the other
    sections): torch 1.13's CPU refuses them in advanced indexing, except a 0-dim integer one
    (it selects, as an int) and a lone one (msprobe turns it into a list of ints)."""
    S, rnd, ints, t = g.S, g.rnd, g.ints, g.torch
    base_rec, base_fn = g.rec, g.torch_fn

    def rec(x, name, rg):
        if isinstance(x, slice):
            return {"type": "slice", "value": [x.start, x.stop, x.step]}
        if x is Ellipsis:
            return {"type": "ellipsis", "value": "..."}
        return base_rec(x, name, rg)

    def torch_fn(api):
        return msprobe_getitem if api == "Tensor.__getitem__" else base_fn(api)

    g.rec, g.torch_fn = rec, torch_fn
    try:
        case, A, sl, E = g.case, "Tensor.__getitem__", slice, Ellipsis
        i64 = lambda v: t.tensor(v, dtype=t.int64)
        i32 = lambda v: t.tensor(v, dtype=t.int32)
        # what works: a 0-dim integer tensor selects; a lone tensor of any integer dtype
        case(A, [rnd([3, 4], "f32"), [i32(2), sl(None)]])
        case(A, [rnd([3, 4], "bf16"), [sl(None), i32(-1)]])
        case(A, [rnd([3, 4, 2], "f32"), [i32(1), i64([0, 3, 3])]])
        case(A, [rnd([3, 4], "f32"), [t.tensor(0, dtype=t.int16), E]])
        case(A, [rnd([4, 3], "f32"), i32([[0, 3], [1, 1]])])
        case(A, [rnd([4, 3], "f16"), t.tensor([2, 0], dtype=t.int16)])
        case(A, [rnd([4, 3], "f32"), t.tensor([3, 3], dtype=t.uint8) > 1])
        # torch's refusals
        case(A, [rnd([3, 4], "f32"), [i32([1, 0])]], backward=False)
        case(A, [rnd([3, 4], "f32"), [i32([1, 0]), sl(None)]], backward=False)
        case(A, [rnd([3, 4], "f32"), [sl(None), i32([3, 0])]], backward=False)
        case(A, [rnd([3, 4], "f32"), [i32([[1], [0]]), i64([2, 3])]], backward=False)
        case(A, [rnd([3, 4, 2], "f32"), [i32(1), i32([0, 3])]], backward=False)
        case(A, [rnd([3, 4], "f32"), [E, t.tensor([1], dtype=t.int16)]], backward=False)
        case(A, [rnd([3, 4], "f32"), [None, t.tensor([1, 2], dtype=t.int8)]], backward=False)
        case(A, [rnd([3, 4], "f32"), [[0, 1], i32([0, 1])]], backward=False)
        case(A, [rnd([3, 4], "f32"), [sl(None), t.zeros([0], dtype=t.int32)]], backward=False)
        case(A, [rnd([3, 4], "f32"), [sl(None), t.tensor([1.0, 0.0])]], backward=False)
        case(A, [rnd([3, 4], "f32"), [t.tensor(1.0), sl(None)]], backward=False)
        case(A, [rnd([3, 4], "f32"), t.tensor([1.0, 0.0])], backward=False)
        # ints and slices apply first: their errors come before the dtype's
        case(A, [rnd([3, 4], "f32"), [i32([0]), 5]], backward=False)
        # lone tensors through msprobe's t.tolist(): floats of 1 dim index (truncated to int64),
        # a 0-dim float is refused, rows of more dims are tensors again
        case(A, [rnd([4, 3], "f32"), t.tensor([-1.5, 2.9, 0.2])])
        case(A, [rnd([4, 3], "f32"), t.tensor([], dtype=t.float32)])
        case(A, [rnd([4, 3], "f32"), t.tensor(1.0)], backward=False)
        case(A, [rnd([4, 3], "f32"), t.tensor([[1.0], [0.0]])], backward=False)
        case(A, [rnd([4, 3], "f32"), t.tensor([[1], [0]], dtype=t.int16)], backward=False)
    finally:
        g.rec, g.torch_fn = base_rec, base_fn


def late_cases(g):
    """Added after the sections above (issue 22): the element-wise overloads of max/min (a
    tensor where the reductions' dim is: torch's maximum/minimum), and zeros, ones, eye."""
    S, rnd, ints, case = g.S, g.rnd, g.ints, g.case
    t = g.torch
    for dt in FLOATS:
        case("Torch.max", [rnd([2, 3], dt), rnd([2, 3], dt)])
        case("Torch.min", [rnd([2, 3], dt), rnd([3], dt)])
    case("Tensor.max", [rnd([2, 3], "f32"), rnd([], "f32")])
    case("Tensor.min", [rnd([2, 1], "bf16"), rnd([4], "bf16")])
    case("Tensor.max", [rnd([3], "f32")], {"other": rnd([3], "f32")})
    case("Torch.max", [rnd([3], "f16"), rnd([3], "f32")])
    # transformers' LLaMA (4.28-4.30): attn_weights clamped from below by the dtype's lowest
    case("Torch.max", [rnd([2, 4, 4], "f32"), t.tensor(t.finfo(t.float32).min)])
    ties = t.tensor([1.0, 2.0, float("nan"), -0.0, 3.0])
    case("Torch.max", [ties, t.tensor([1.0, 5.0, 0.0, 0.0, float("nan")])])
    case("Torch.min", [ties, t.tensor([1.0, 5.0, 0.0, 0.0, float("nan")])])
    case("Torch.max", [ints([4], "i64"), ints([4], "i32")], backward=False)
    case("Tensor.min", [ints([4], "bool", 0, 2), ints([4], "bool", 0, 2)], backward=False)
    case("Torch.max", [rnd([2, 3], "f32"), rnd([4], "f32")], backward=False)
    case("Torch.max", [rnd([2, 3], "f32"), S(1)])  # still the reduction over dim 1
    case("Torch.zeros", [[2, 3]], backward=False)
    case("Torch.zeros", [S(2), S(3)], backward=False)
    case("Torch.zeros", [t.Size([4])], {"dtype": t.int64}, backward=False)
    case("Torch.zeros", [[]], {"dtype": t.bfloat16}, backward=False)
    case("Torch.zeros", [[2, 0]], {"dtype": t.bool}, backward=False)
    case("Torch.zeros", [[3, -1]], backward=False)
    case("Torch.ones", [[2, 3]], backward=False)
    case("Torch.ones", [S(5)], {"dtype": t.float16}, backward=False)
    case("Torch.ones", [t.Size([2, 2])], {"dtype": t.bool}, backward=False)
    case("Torch.ones", [[3]], {"dtype": t.int32, "requires_grad": S(False)}, backward=False)
    case("Torch.eye", [S(3)], backward=False)
    case("Torch.eye", [S(2), S(4)], backward=False)
    case("Torch.eye", [S(4), S(2)], {"dtype": t.int64}, backward=False)
    case("Torch.eye", [S(0)], backward=False)
    case("Torch.eye", [S(-1)], backward=False)
    case("Torch.eye", [S(2), S(-3)], backward=False)


def cases(g):
    # each section draws from its own seed, so that adding cases to one leaves the data of the
    # others (and the ULP limits pinned on them) alone
    for seed, section in enumerate([view_cases, join_cases, split_cases, tri_cases, reduce_cases,
                                    extreme_cases, factory_cases, index_cases,
                                    index_dtype_cases, late_cases]):
        g.torch.manual_seed(1000 + seed)
        section(g)
