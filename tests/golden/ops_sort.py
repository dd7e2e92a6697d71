"""Golden cases of the "sort" group (tests/golden/make_op_goldens.py calls cases(g)): sort,
argsort, msort, topk, kthvalue, median, and the NPU ops npu_sort_v2 and
npu_moe_gating_top_k_softmax (Python references written from spec §B.4).

Where torch's order of tied values is its own (sort without stable=True, argsort, topk,
kthvalue, median with a dim), the index output is marked with ties=: the test accepts any index
whose input value equals the value at torch's index, and still requires torch's index where the
value is unique. Many inputs are small integers held in floats, so that ties occur."""

import torch


def npu_sort_v2(x, dim=-1, descending=False):
    """Spec §B.4: the values of sort(x, dim, descending)."""
    return torch.sort(x, dim, descending)[0]


def npu_moe_gating_top_k_softmax(x, finished=None, k=1):
    """Spec §B.4: p = softmax(x.float(), -1) cast back to x's dtype; idx = stable argsort of -p
    cut to k; y = p at idx; finished rows' indices = E; row_idx[i][j] = j * rows + i."""
    dt = x.dtype
    xf = x.float()
    e = torch.exp(xf - xf.max(dim=-1, keepdim=True).values)
    p = (e / e.sum(dim=-1, keepdim=True)).to(dt)
    idx = torch.argsort(-p, dim=-1, stable=True)[:, :k]
    y = torch.gather(p, -1, idx)
    if finished is not None:
        idx = torch.where(finished.view(-1, 1).expand(-1, k), x.shape[-1], idx)
    rows = y.shape[0]
    row_idx = torch.arange(rows * y.shape[1]).reshape(y.shape[1], rows).t()
    return y, idx, row_idx


def tied(g, shape, dt, hi=4):
    """Small integers held in dtype dt: ties in every slice."""
    return g.ints(shape, "i64", 0, hi).to(g.DT[dt])


def special(dt):
    n = float("nan")
    return torch.tensor([1.0, n, 0.0, -0.0, float("inf"), -2.0, n, float("-inf"), 1.0, 0.0],
                        dtype=torch.float64).to(dt)


def sort_cases(g):
    c, S, rnd = g.case, g.S, g.rnd
    for dt in g.FLOATS:
        c("Torch.sort", [rnd([3, 5], dt)], grad_index=0)
        x = tied(g, [4, 6], dt)
        c("Torch.sort", [x], ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.sort", [x, S(0), S(True)], ties=[(1, 0, 0, 1)], backward=False)
        c("Torch.sort", [x], {"dim": S(0), "descending": S(True), "stable": S(True)},
          backward=False)
    c("Torch.sort", [rnd([2, 3, 4], "f32")], {"dim": S(-2)}, grad_index=0)
    c("Torch.sort", [rnd([2, 3, 4], "bf16"), S(1), S(True)], grad_index=0)
    c("Tensor.sort", [tied(g, [3, 7], "f32")], {"descending": S(True)}, ties=[(1, 0, 1, 1)],
      backward=False)
    c("Tensor.sort", [tied(g, [3, 7], "bf16")], {"dim": S(-1), "stable": S(True)}, backward=False)
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16]:
        c("Torch.sort", [special(dt)], ties=[(1, 0, 0, 1)], backward=False)
        c("Torch.sort", [special(dt)], {"descending": S(True)}, ties=[(1, 0, 0, 1)],
          backward=False)
        c("Torch.sort", [special(dt)], {"descending": S(True), "stable": S(True)}, backward=False)
    for dt, lo, hi in [("i64", -5, 6), ("i32", -5, 6), ("u8", 0, 9), ("bool", 0, 2)]:
        x = g.ints([3, 6], dt, lo, hi)
        c("Torch.sort", [x], ties=[(1, 0, 1, 1)])
        c("Torch.sort", [x], {"dim": S(0), "descending": S(True), "stable": S(True)})
    c("Torch.sort", [torch.tensor([9007199254740993, 9007199254740992, -3])])
    c("Torch.sort", [rnd([], "f32")], grad_index=0)
    c("Torch.sort", [rnd([0, 3], "f32")], backward=False)
    c("Torch.sort", [rnd([2, 3], "f32"), S(2)], backward=False)
    c("Torch.sort", [rnd([40], "f32")], {"descending": S(True)}, grad_index=0)
    # argsort, msort
    for dt in ["f32", "bf16", "f64", "f16"]:
        x = tied(g, [3, 6], dt)
        c("Torch.argsort", [x], ties=[(0, 0, 1, 1)])
        c("Torch.argsort", [x], {"dim": S(0), "descending": S(True)}, ties=[(0, 0, 0, 1)])
        c("Torch.argsort", [x], {"stable": S(True), "descending": S(True)})
    c("Tensor.argsort", [special(torch.float32)], ties=[(0, 0, 0, 1)])
    c("Tensor.argsort", [g.ints([5, 4], "i64", -2, 3)], {"dim": S(0), "stable": S(True)})
    c("Tensor.argsort", [g.ints([5, 4], "i32", -2, 3), S(-1), S(True)], ties=[(0, 0, 1, 1)])
    c("Torch.argsort", [rnd([2, 3], "f32")], {"dim": S(-3)})
    for dt in g.FLOATS:
        c("Torch.msort", [rnd([5, 3], dt)])
    c("Torch.msort", [tied(g, [6, 3], "f32")], backward=False)
    c("Tensor.msort", [g.ints([6, 2], "i64")])
    c("Tensor.msort", [rnd([4], "bf16")])
    c("Torch.msort", [rnd([], "f64")])


def topk_cases(g):
    c, S, rnd = g.case, g.S, g.rnd
    for dt in g.FLOATS:
        c("Torch.topk", [rnd([3, 8], dt), S(3)], grad_index=0)
        c("Torch.topk", [rnd([4, 5], dt), S(2), S(0), S(False)], grad_index=0)
        x = tied(g, [4, 9], dt)
        c("Torch.topk", [x, S(4)], ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.topk", [x, S(3)], {"dim": S(0), "largest": S(False)}, ties=[(1, 0, 0, 1)],
          backward=False)
    c("Tensor.topk", [rnd([2, 3, 6], "f32"), S(2)], {"dim": S(-1)}, grad_index=0)
    c("Tensor.topk", [rnd([2, 3, 6], "bf16"), S(3), S(-2)], grad_index=0)
    # sorted=False: torch's partial sort (k * 64 <= n) gives the sorted order too
    c("Torch.topk", [rnd([2, 200], "f32"), S(3)], {"sorted": S(False)}, grad_index=0)
    c("Torch.topk", [tied(g, [2, 256], "f32", 40), S(4)], {"sorted": S(False), "largest": S(False)},
      ties=[(1, 0, 1, 1)], backward=False)
    c("Torch.topk", [rnd([3, 100], "f64"), S(10)], grad_index=0)
    c("Torch.topk", [tied(g, [3, 100], "bf16", 20), S(10)], ties=[(1, 0, 1, 1)], backward=False)
    for dt in [torch.float32, torch.float64, torch.bfloat16]:
        c("Torch.topk", [special(dt), S(4)], ties=[(1, 0, 0, 1)], backward=False)
        c("Torch.topk", [special(dt), S(6)], {"largest": S(False)}, ties=[(1, 0, 0, 1)],
          backward=False)
    c("Torch.topk", [special(torch.float16), S(3)], ties=[(1, 0, 0, 1)], backward=False)
    for dt, lo, hi in [("i64", -5, 6), ("i32", -5, 6), ("u8", 0, 9)]:
        c("Torch.topk", [g.ints([3, 7], dt, lo, hi), S(3)], ties=[(1, 0, 1, 1)])
    c("Torch.topk", [rnd([4, 5], "f32"), S(0)], backward=False)
    c("Torch.topk", [rnd([4, 5], "f32"), S(5)], grad_index=0)
    c("Torch.topk", [rnd([], "f32"), S(1)], grad_index=0)
    c("Torch.topk", [rnd([0, 5], "f32"), S(2)], backward=False)
    c("Torch.topk", [rnd([4, 5], "f32"), S(6)], backward=False)
    c("Torch.topk", [rnd([4, 5], "f32"), S(-1)], backward=False)
    c("Torch.topk", [rnd([4, 5], "f32"), S(1), S(2)], backward=False)
    c("Torch.topk", [g.ints([4], "bool", 0, 2), S(1)], backward=False)


def select_cases(g):
    c, S, rnd = g.case, g.S, g.rnd
    for dt in g.FLOATS:
        c("Torch.kthvalue", [rnd([3, 6], dt), S(2)], grad_index=0)
        c("Torch.kthvalue", [rnd([4, 3], dt), S(4), S(0), S(True)], grad_index=0)
        x = tied(g, [4, 7], dt)
        c("Torch.kthvalue", [x, S(3)], ties=[(1, 0, 1, 0)], backward=False)
        c("Torch.kthvalue", [x, S(2)], {"dim": S(0), "keepdim": S(True)}, ties=[(1, 0, 0, 1)],
          backward=False)
    c("Tensor.kthvalue", [rnd([2, 3, 4], "f32"), S(2), S(-2)], grad_index=0)
    c("Tensor.kthvalue", [tied(g, [2, 3, 5], "bf16"), S(5)], {"keepdim": S(True)},
      ties=[(1, 0, 2, 1)], backward=False)
    for k in [1, 4, 6, 9, 10]:
        c("Torch.kthvalue", [special(torch.float32), S(k)], ties=[(1, 0, 0, 0)], backward=False)
    for dt, lo, hi in [("i64", -5, 6), ("i32", -5, 6), ("u8", 0, 9)]:
        c("Torch.kthvalue", [g.ints([3, 7], dt, lo, hi), S(3)], ties=[(1, 0, 1, 0)])
    c("Torch.kthvalue", [rnd([], "f64"), S(1)], grad_index=0)
    c("Torch.kthvalue", [rnd([0, 3], "f32"), S(1), S(1)], backward=False)
    c("Torch.kthvalue", [rnd([0, 3], "f32"), S(1), S(0)], backward=False)
    c("Torch.kthvalue", [rnd([2, 3], "f32"), S(0)], backward=False)
    c("Torch.kthvalue", [rnd([2, 3], "f32"), S(4)], backward=False)
    c("Torch.kthvalue", [rnd([2, 3], "f32"), S(1), S(2)], backward=False)
    c("Torch.kthvalue", [g.ints([4], "bool", 0, 2), S(1)], backward=False)
    # median: the whole tensor (one output, with its backward), and along a dim
    for dt in g.FLOATS:
        c("Torch.median", [rnd([3, 5], dt)])
        c("Torch.median", [rnd([4, 4], dt)])  # even count: the lower middle value
        c("Torch.median", [tied(g, [3, 4], dt)])  # the gradient is shared among the ties
        c("Torch.median", [rnd([3, 6], dt), S(1)], grad_index=0)
        c("Torch.median", [rnd([4, 3], dt)], {"dim": S(0), "keepdim": S(True)}, grad_index=0)
        x = tied(g, [4, 6], dt)
        c("Torch.median", [x, S(-1)], ties=[(1, 0, 1, 0)], backward=False)
        c("Torch.median", [x, S(0), S(True)], ties=[(1, 0, 0, 1)], backward=False)
    for dt in [torch.float32, torch.bfloat16, torch.float64]:
        c("Torch.median", [special(dt)])  # NaN: the gradient goes to the NaNs
        c("Torch.median", [special(dt)[[0, 2, 3, 4, 5, 7, 8, 9]]])
        c("Torch.median", [special(dt).reshape(2, 5), S(1)], ties=[(1, 0, 1, 0)], backward=False)
        c("Torch.median", [special(dt).reshape(5, 2), S(0)], ties=[(1, 0, 0, 0)], backward=False)
    c("Tensor.median", [rnd([7], "f32")])
    c("Tensor.median", [tied(g, [2, 3, 4], "f32"), S(1)], {"keepdim": S(True)},
      ties=[(1, 0, 1, 1)], backward=False)
    c("Tensor.median", [rnd([2, 5], "bf16")], {"dim": S(-1)}, grad_index=0)
    for dt, lo, hi in [("i64", -5, 6), ("i32", -5, 6), ("u8", 0, 9)]:
        x = g.ints([3, 6], dt, lo, hi)
        c("Torch.median", [x])
        c("Torch.median", [x, S(1)], ties=[(1, 0, 1, 0)])
    c("Torch.median", [rnd([], "f32")])
    c("Torch.median", [rnd([], "f32"), S(0)], grad_index=0)
    c("Torch.median", [rnd([0], "f32")], backward=False)
    c("Torch.median", [rnd([0, 3], "bf16")], backward=False)
    c("Torch.median", [rnd([0, 3], "f32"), S(1)], backward=False)
    c("Torch.median", [rnd([0, 3], "f32"), S(0)], backward=False)
    c("Torch.median", [rnd([2, 3], "f32"), S(2)], backward=False)
    c("Torch.median", [g.ints([4], "bool", 0, 2)], backward=False)
    c("Torch.median", [g.ints([4], "bool", 0, 2), S(0)], backward=False)


def npu_cases(g):
    c, S, rnd = g.case, g.S, g.rnd
    g.register("NPU.npu_sort_v2", npu_sort_v2)
    g.register("NPU.npu_moe_gating_top_k_softmax", npu_moe_gating_top_k_softmax)
    for dt in g.FLOATS:
        c("NPU.npu_sort_v2", [rnd([3, 6], dt)])
        c("NPU.npu_sort_v2", [rnd([4, 3], dt)], {"dim": S(0), "descending": S(True)})
        c("NPU.npu_sort_v2", [tied(g, [3, 8], dt)], backward=False)
    c("NPU.npu_sort_v2", [special(torch.float32), S(-1), S(True)], backward=False)
    c("NPU.npu_sort_v2", [rnd([2, 3, 4], "bf16"), S(1)])
    c("NPU.npu_sort_v2", [rnd([2, 3], "f32"), S(2)], backward=False)
    for dt in g.FLOATS:
        c("NPU.npu_moe_gating_top_k_softmax", [rnd([5, 8], dt), None, S(2)])
        c("NPU.npu_moe_gating_top_k_softmax", [rnd([6, 16], dt, scale=3.0)], {"k": S(4)})
        c("NPU.npu_moe_gating_top_k_softmax", [tied(g, [4, 8], dt)], {"k": S(3)})
        fin = torch.tensor([True, False, False, True, False])
        c("NPU.npu_moe_gating_top_k_softmax", [rnd([5, 6], dt)], {"finished": fin, "k": S(2)})
    c("NPU.npu_moe_gating_top_k_softmax", [rnd([3, 4], "f32"), None, S(4)])
    c("NPU.npu_moe_gating_top_k_softmax", [rnd([7, 64], "bf16"), None, S(8)])
    c("NPU.npu_moe_gating_top_k_softmax", [rnd([7, 32], "f32", scale=20.0), None, S(6)])
    x = rnd([3, 6], "f32")
    x[1, 2] = float("-inf")
    x[2, :] = float("-inf")
    x[2, 4] = 1.0
    c("NPU.npu_moe_gating_top_k_softmax", [x, None, S(3)])
    c("NPU.npu_moe_gating_top_k_softmax", [rnd([1, 5], "f32")])


def large_tie_cases(g):
    """Longer slices with many ties, where torch's unstable sort, nth_element and quick select
    order ties their own way; and inputs large enough for the parallel path."""
    c, S = g.case, g.S
    for dt in ["f32", "bf16"]:
        x = tied(g, [3, 64], dt, 5)
        c("Torch.sort", [x], ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.sort", [x], {"descending": S(True)}, ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.argsort", [x], ties=[(0, 0, 1, 1)])
        c("Torch.median", [x, S(1)], ties=[(1, 0, 1, 0)], backward=False)
        c("Torch.kthvalue", [x, S(20)], ties=[(1, 0, 1, 0)], backward=False)
        c("Torch.topk", [x, S(30)], ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.msort", [x.t()], backward=False)
    c("Torch.topk", [tied(g, [33, 1000], "bf16", 50), S(5)], ties=[(1, 0, 1, 1)], backward=False)
    c("Torch.median", [tied(g, [1000, 40], "bf16", 30), S(0)], ties=[(1, 0, 0, 0)],
      backward=False)


def nanmedian_cases(g):
    c, S, rnd = g.case, g.S, g.rnd
    n = float("nan")
    for dt in g.FLOATS:
        c("Torch.nanmedian", [rnd([3, 5], dt)])
        c("Torch.nanmedian", [rnd([4, 3], dt), S(1)], grad_index=0)
    for dt in [torch.float32, torch.bfloat16, torch.float64]:
        c("Torch.nanmedian", [special(dt)])
        c("Torch.nanmedian", [special(dt).reshape(2, 5), S(1)], ties=[(1, 0, 1, 0)],
          backward=False)
        x = torch.tensor([[1.0, n, 0.0, n, 3.0], [n, n, n, n, n], [2.0, 1.0, n, 1.0, 5.0]]).to(dt)
        c("Torch.nanmedian", [x, S(-1), S(True)], ties=[(1, 0, 1, 1)], backward=False)
        c("Torch.nanmedian", [x.t()], {"dim": S(0)}, ties=[(1, 0, 0, 0)], backward=False)
    c("Torch.nanmedian", [torch.tensor([n, n, n])])  # all NaN: the gradient goes to the NaNs
    c("Torch.nanmedian", [torch.tensor([n, 2.0, 1.0, n, 2.0])])
    c("Tensor.nanmedian", [tied(g, [4, 6], "f32"), S(0)], ties=[(1, 0, 0, 0)], backward=False)
    c("Tensor.nanmedian", [g.ints([3, 6], "i64")])
    c("Tensor.nanmedian", [g.ints([3, 6], "i32"), S(1)], ties=[(1, 0, 1, 0)])
    c("Torch.nanmedian", [rnd([0, 3], "f32"), S(0)], backward=False)
    c("Torch.nanmedian", [g.ints([4], "bool", 0, 2)], backward=False)


def unique_sorted(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique as torch's CUDA kernel computes it: in sorted order for either value of
    sorted (torch 1.13's CPU kernel gives its hash set's order for sorted=False)."""
    return torch.unique(x, sorted=True, return_inverse=return_inverse,
                        return_counts=return_counts, dim=dim)


def unique_cases(g):
    """unique and unique_consecutive (issue 22). No NaN in unique without dim: torch 1.13's CPU
    kernel sorts NaNs among the numbers there (precheck puts each NaN after them, as sort and
    torch's CUDA kernel do)."""
    S, case, ints, rnd = g.S, g.case, g.ints, g.rnd
    g.register("Tensor.unique", unique_sorted)
    g.register("Torch.unique", unique_sorted)
    kw = {"return_inverse": S(True), "return_counts": S(True)}
    for dt in g.FLOATS:
        x = tied(g, [4, 5], dt, hi=6) * 0.5 - 1
        case("Tensor.unique", [x], backward=False)
        case("Tensor.unique", [x], kw, backward=False)
        case("Tensor.unique", [x], {"dim": S(1), "return_counts": S(True)}, backward=False)
        case("Torch.unique_consecutive", [x.flatten()], kw, backward=False)
    for dt in ["i64", "i32", "u8", "bool"]:
        lo, hi = (0, 2) if dt == "bool" else (0, 7)
        x = ints([3, 6], dt, lo, hi)
        case("Tensor.unique", [x], kw, backward=False)
        case("Tensor.unique", [x], {"sorted": S(False), "return_counts": S(True)}, backward=False)
        case("Tensor.unique", [x], {"dim": S(0), "return_inverse": S(True)}, backward=False)
    case("Tensor.unique", [ints([40], "i64", 0, 12)], {"sorted": S(False)}, backward=False)
    case("Tensor.unique", [ints([2, 3], "i64", -4, 4), S(True), S(True)], backward=False)
    case("Torch.unique", [rnd([10], "f32")], {"return_inverse": S(True)}, backward=False)
    case("Tensor.unique", [torch.tensor([0.0, -0.0, 1.0, -0.0])], kw, backward=False)
    case("Tensor.unique", [torch.tensor([-0.0, 0.0, 1.0])], kw, backward=False)
    case("Tensor.unique", [torch.tensor(2.5)], kw, backward=False)
    case("Tensor.unique", [rnd([0, 3], "f32")], kw, backward=False)
    case("Tensor.unique", [rnd([0, 3], "f32")], {"dim": S(0), "return_counts": S(True)}, backward=False)
    rows = torch.tensor([[1, 2, 3], [0, 5, 5], [1, 2, 3], [1, 2, 2], [0, 5, 5]])
    case("Tensor.unique", [rows], {"dim": S(0), **kw}, backward=False)
    case("Tensor.unique", [rows.t().contiguous()], {"dim": S(-1), **kw}, backward=False)
    case("Tensor.unique", [tied(g, [3, 2, 4], "f32", hi=2)], {"dim": S(1), **kw}, backward=False)
    n = float("nan")
    case("Tensor.unique", [torch.tensor([[2.0, n], [2.0, n], [1.0, 0.0]])], {"dim": S(0), **kw}, backward=False)
    case("Tensor.unique", [rnd([2, 3], "f32")], {"dim": S(2)}, backward=False)
    case("Tensor.unique", [torch.tensor(1.0)], {"dim": S(0)}, backward=False)
    case("Tensor.unique", [rnd([2, 0], "f32")], {"dim": S(0)}, backward=False)
    seq = torch.tensor([3, 3, 1, 1, 3, 2, 2, 2, 0])
    case("Torch.unique_consecutive", [seq], backward=False)
    case("Tensor.unique_consecutive", [seq], {"return_counts": S(True)}, backward=False)
    case("Tensor.unique_consecutive", [seq.reshape(3, 3)], kw, backward=False)
    case("Tensor.unique_consecutive", [torch.tensor([1.0, 1.0, n, n, 2.0, -0.0, 0.0])], kw, backward=False)
    blocks = torch.tensor([[1, 1], [1, 1], [2, 2], [1, 1]])
    case("Torch.unique_consecutive", [blocks], {"dim": S(0), **kw}, backward=False)
    case("Torch.unique_consecutive", [blocks], {"dim": S(1), **kw}, backward=False)
    case("Torch.unique_consecutive", [rnd([4], "bf16").round()], {"dim": S(0)}, backward=False)
    case("Torch.unique_consecutive", [rnd([2], "f32")], {"dim": S(3)}, backward=False)


def cases(g):
    sort_cases(g)
    topk_cases(g)
    select_cases(g)
    npu_cases(g)
    large_tie_cases(g)
    nanmedian_cases(g)
    unique_cases(g)
