"""Golden cases of the neural-network ops: GEMM, normalisation, softmax, convolution, pooling,
embedding, losses, dropout (group "nn")."""


def gemm_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for dt in ["f32", "bf16", "f64", "f16"]:
        case("Functional.linear", [rnd([4, 5], dt), rnd([3, 5], dt), rnd([3], dt)])
    case("Functional.linear", [rnd([16, 20], "bf16"), rnd([24, 20], "bf16"), rnd([24], "bf16")])
    case("Functional.linear", [rnd([2, 3, 5], "f32"), rnd([4, 5], "f32"), rnd([4], "f32")])
    case("Functional.linear", [rnd([2, 2, 2, 5], "f32"), rnd([4, 5], "f32"), rnd([4], "f32")])
    case("Functional.linear", [rnd([5], "f32"), rnd([4, 5], "f32"), rnd([4], "f32")])
    case("Functional.linear", [rnd([12, 24], "bf16"), rnd([20, 24], "bf16")])
    case("Functional.linear", [rnd([8, 64], "f32"), rnd([16, 64], "f32"), rnd([16], "f32")])
    case("Functional.linear", [rnd([2, 8, 48], "bf16"), rnd([24, 48], "bf16"), rnd([24], "bf16")])
    case("Functional.linear", [rnd([2, 3], "f32"), rnd([4, 3], "f16")])
    case("Functional.linear", [rnd([2, 3], "f32"), rnd([4, 4], "f32")])
    mm = [([5], [5]), ([3, 5], [5]), ([5], [5, 4]), ([3, 5], [5, 4]), ([2, 3, 5], [5, 4]),
          ([2, 3, 5], [5]), ([3, 5], [2, 5, 4]), ([2, 3, 5], [2, 5, 4]), ([2, 1, 3, 4], [3, 4, 5]),
          ([4], [2, 4, 3]), ([2, 3, 4], [4])]
    for a, b in mm:
        case("Torch.matmul", [rnd(a, "f32"), rnd(b, "f32")])
        case("Torch.matmul", [rnd(a, "f64"), rnd(b, "f64")])
    # bfloat16 products above torch's oneDNN threshold (m n k > 4096; below it torch 1.13
    # accumulates in bfloat16, see docs/ops.md)
    for dt in ["bf16", "f16"]:
        case("Torch.matmul", [rnd([2, 12, 20], dt), rnd([2, 20, 24], dt)])
        case("Torch.matmul", [rnd([12, 20], dt), rnd([20, 24], dt)])
    case("Torch.matmul", [rnd([4, 10, 12], "f32"), rnd([4, 12, 9], "f32")])
    case("Torch.matmul", [rnd([2, 16, 40], "f32"), rnd([40, 24], "f32")])
    case("Tensor.matmul", [rnd([3, 4], "f32"), rnd([4, 2], "f32")])
    case("Tensor.__matmul__", [rnd([2, 12, 20], "bf16"), rnd([20, 24], "bf16")])
    case("Tensor.__rmatmul__", [rnd([4, 2], "f32"), rnd([3, 4], "f32")])
    case("Torch.matmul", [g.ints([2, 3], "i64"), g.ints([3, 2], "i64")], backward=False)
    case("Torch.matmul", [rnd([2, 3], "f32"), rnd([3, 4], "f64")])
    for dt in ["f32", "f64", "f16"]:
        case("Torch.mm", [rnd([3, 6], dt), rnd([6, 2], dt)])
        case("Torch.bmm", [rnd([2, 3, 6], dt), rnd([2, 6, 4], dt)])
    case("Torch.mm", [rnd([16, 20], "bf16"), rnd([20, 16], "bf16")])
    case("Torch.bmm", [rnd([2, 12, 20], "bf16"), rnd([2, 20, 16], "bf16")])
    case("Tensor.mm", [rnd([16, 32], "f32"), rnd([32, 8], "f32")])
    case("Torch.mm", [rnd([2, 3], "f32"), rnd([4, 4], "f32")])
    case("Torch.bmm", [rnd([3, 10, 12], "f32"), rnd([3, 12, 9], "f32")])
    case("Tensor.bmm", [rnd([3, 12, 16], "bf16"), rnd([3, 16, 10], "bf16")])
    case("Torch.bmm", [rnd([2, 2, 3], "f32"), rnd([2, 4, 4], "f32")])
    for dt in ["f32", "f64"]:
        case("Torch.addmm", [rnd([4], dt), rnd([3, 5], dt), rnd([5, 4], dt)])
        case("Torch.baddbmm", [rnd([2, 3, 4], dt), rnd([2, 3, 5], dt), rnd([2, 5, 4], dt)],
             {"beta": S(0.5), "alpha": S(0.125)})
    case("Torch.addmm", [rnd([24], "bf16"), rnd([16, 20], "bf16"), rnd([20, 24], "bf16")])
    case("Torch.baddbmm", [rnd([2, 12, 16], "bf16"), rnd([2, 12, 20], "bf16"),
                           rnd([2, 20, 16], "bf16")], {"beta": S(0.5), "alpha": S(0.125)})
    case("Torch.addmm", [rnd([3, 4], "f32"), rnd([3, 5], "f32"), rnd([5, 4], "f32")],
         {"beta": S(0.5), "alpha": S(2.0)})
    case("Tensor.addmm", [rnd([1, 4], "f32"), rnd([3, 5], "f32"), rnd([5, 4], "f32")],
         {"alpha": S(-1.5)})
    case("Tensor.addmm_", [rnd([3, 4], "f32"), rnd([3, 5], "f32"), rnd([5, 4], "f32")], inplace=True)
    nan_in = rnd([2, 3, 4], "f32")
    nan_in[0, 0, 0] = float("nan")
    case("Torch.baddbmm", [nan_in, rnd([2, 3, 5], "f32"), rnd([2, 5, 4], "f32")],
         {"beta": S(0.0), "alpha": S(0.5)})
    case("Torch.baddbmm", [rnd([1, 10, 9], "f32"), rnd([3, 10, 12], "f32"), rnd([3, 12, 9], "f32")],
         {"beta": S(1.0), "alpha": S(0.25)})
    case("Tensor.baddbmm", [rnd([2, 12, 16], "bf16"), rnd([2, 12, 20], "bf16"),
                            rnd([2, 20, 16], "bf16")])
    case("Tensor.baddbmm_", [rnd([2, 3, 4], "f32"), rnd([2, 3, 5], "f32"), rnd([2, 5, 4], "f32")],
         {"alpha": S(2.0)}, inplace=True)


def norm_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for api in ["Functional.softmax", "Functional.log_softmax"]:
        # bfloat16 log_softmax: 3 ULP from torch 1.13's CPU kernel (docs/ops.md, known gaps)
        dts = ["f32", "bf16", "f64", "f16"] if api.endswith(".softmax") else ["f32", "f64", "f16"]
        for dt in dts:
            case(api, [rnd([3, 5], dt), S(-1)])
        case(api, [rnd([2, 37], "f32", scale=4), S(1)])
        case(api, [rnd([4, 3, 5], "f32")], {"dim": S(1)})
        case(api, [rnd([2, 3, 4], "f32")], {"dim": S(0)})
        # forward only: torch's "float64" gradient of a dtype=float32 call is a float32 one
        case(api, [rnd([2, 20], "bf16")], {"dim": S(-1), "dtype": g.torch.float32},
             backward=False)
        case(api, [rnd([2, 6], "f32")])
        case(api, [g.special("f32").reshape(2, 5), S(1)], backward=False)
        case(api, [rnd([], "f32"), S(0)])
    case("Torch.softmax", [rnd([3, 16], "f32"), S(-1)])
    case("Tensor.softmax", [rnd([3, 9], "f64"), S(-1)])
    # contiguous rows of >= 8 elements: log_softmax is up to 3 ULP from torch (docs/ops.md)
    case("Tensor.log_softmax", [rnd([3, 7], "f32")], {"dim": S(-1)})
    case("Functional.softmax", [g.ints([3], "i64"), S(0)], backward=False)


def layer_norm_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    # bfloat16: torch 1.13's CPU kernel rounds intermediates to bfloat16 (docs/ops.md)
    for dt in ["f32", "f64", "f16"]:
        case("Functional.layer_norm", [rnd([4, 6], dt), [6], rnd([6], dt), rnd([6], dt)])
    case("Functional.layer_norm", [rnd([2, 3, 32], "f32", scale=3), [32], rnd([32], "f32"),
                                   rnd([32], "f32")], {"eps": S(1e-6)})
    case("Functional.layer_norm", [rnd([3, 300], "f32") + 5.0, [300], rnd([300], "f32"),
                                   rnd([300], "f32")])
    case("Functional.layer_norm", [rnd([2, 1000], "f64"), [1000], rnd([1000], "f64"),
                                   rnd([1000], "f64")])
    case("Functional.layer_norm", [rnd([2, 3, 4], "f32"), [3, 4]])
    case("Functional.layer_norm", [rnd([5, 8], "f32"), [8], rnd([8], "f32"), None])
    case("Functional.layer_norm", [rnd([4, 64], "f32"), [64], None, rnd([64], "f32")])
    case("Functional.layer_norm", [rnd([2, 3], "f32"), [4]])


def misc_cases(g):
    rnd, S, case, ints, torch = g.rnd, g.S, g.case, g.ints, g.torch
    idx = torch.tensor([[0, 2, 4], [2, 2, 1]])
    for dt in ["f32", "bf16", "f64", "f16"]:
        case("Functional.embedding", [torch.tensor([3, 0, 1]), rnd([5, 4], dt)])
    case("Functional.embedding", [idx, rnd([6, 3], "f32")])
    case("Functional.embedding", [idx, rnd([6, 3], "f32")], {"padding_idx": S(2)})
    case("Functional.embedding", [idx.int(), rnd([6, 3], "f64"), S(-2)])
    case("Functional.embedding", [idx, rnd([6, 3], "f32")], {"scale_grad_by_freq": S(True)})
    case("Functional.embedding", [torch.tensor([7]), rnd([6, 3], "f32")])
    case("Functional.embedding", [rnd([2], "f32"), rnd([6, 3], "f32")])
    # dropout: only the deterministic cases (the random masks are tested by
    # tests/ops/test_nn_dropout.c)
    for dt in ["f32", "bf16"]:
        case("Functional.dropout", [rnd([3, 4], dt)], {"p": S(0.3), "training": S(False)})
    case("Functional.dropout", [rnd([3, 4], "f32"), S(0.0)])
    case("Functional.dropout", [g.special("f32"), S(1.0)])
    case("Torch.dropout", [rnd([5], "f64"), S(0.5), S(False)])
    case("Functional.dropout", [rnd([5], "f32"), S(1.5)])
    case("Functional.dropout2d", [rnd([2, 3, 2, 2], "f32")], {"training": S(False)})
    for dt in ["f32", "bf16", "f64", "f16"]:
        case("Functional.leaky_relu", [rnd([3, 4], dt)])
    case("Functional.leaky_relu", [g.special("f32"), S(0.2)], backward=False)
    case("Functional.leaky_relu", [rnd([6], "f32")], {"negative_slope": S(0.3)})
    case("Functional.leaky_relu_", [rnd([6], "bf16"), S(0.1)], inplace=True)
    case("Functional.leaky_relu", [ints([3], "i64")], backward=False)


def loss_cases(g):
    rnd, S, case, torch = g.rnd, g.S, g.case, g.torch
    t = torch.tensor([1, 0, 4, 2])
    for dt in ["f32", "bf16", "f64", "f16"]:
        case("Functional.cross_entropy", [rnd([4, 5], dt), t])
    for red in ["none", "sum", "mean"]:
        case("Functional.cross_entropy", [rnd([4, 5], "f32"), t], {"reduction": red})
        # weighted: forward only (the golden script marks every float tensor as requiring grad,
        # and torch refuses a weight that requires grad)
        case("Functional.cross_entropy", [rnd([4, 5], "f64"), torch.tensor([1, -100, 4, 2])],
             {"reduction": red, "weight": rnd([5], "f64", positive=True)}, backward=False)
        case("Functional.cross_entropy", [rnd([4, 5], "f64"), torch.tensor([1, -100, 4, 2])],
             {"reduction": red, "label_smoothing": S(0.1)})
        case("Functional.cross_entropy", [rnd([4, 5], "f64"), torch.tensor([1, 3, 4, 2])],
             {"reduction": red, "label_smoothing": S(0.2), "weight": rnd([5], "f64", positive=True)},
             backward=False)
    case("Functional.cross_entropy", [rnd([2, 3, 4], "f32"), torch.tensor([[0, 2, 1, 1], [2, 2, 0, 1]])])
    case("Functional.cross_entropy", [rnd([5], "f32"), torch.tensor(3)])
    case("Functional.cross_entropy", [rnd([4, 5], "f32"), t], {"ignore_index": S(4)})
    probs = torch.softmax(torch.randn(4, 5, dtype=torch.float64), 1)
    case("Functional.cross_entropy", [rnd([4, 5], "f64"), probs])
    case("Functional.cross_entropy", [rnd([4, 5], "f64"), probs],
         {"label_smoothing": S(0.1), "reduction": "sum"})
    case("Functional.cross_entropy", [rnd([4, 5], "f32"), probs.float()], {"reduction": "none"})
    case("Functional.cross_entropy", [rnd([4, 5], "f32"), torch.tensor([1, 0, 7, 2])])
    case("Functional.cross_entropy", [rnd([4, 5], "f32"), t], {"reduction": "avg"})


def conv_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.conv2d", [rnd([2, 3, 6, 6], dt), rnd([4, 3, 3, 3], dt), rnd([4], dt)])
    case("Functional.conv2d", [rnd([1, 2, 7, 5], "f64"), rnd([4, 2, 3, 2], "f64")],
         {"stride": [2, 1], "padding": [1, 2], "dilation": S(2)})
    case("Functional.conv2d", [rnd([2, 4, 5, 5], "f64"), rnd([6, 2, 3, 3], "f64"), rnd([6], "f64")],
         {"groups": S(2), "padding": S(1)})
    case("Functional.conv2d", [rnd([3, 6, 6], "f64"), rnd([2, 3, 1, 1], "f64")])
    case("Functional.conv2d", [rnd([1, 3, 8, 8], "f32"), rnd([2, 3, 3, 3], "f32")], {"stride": S(2)})
    case("Functional.conv2d", [rnd([2, 4, 5, 5], "f32"), rnd([6, 2, 3, 3], "f32"), rnd([6], "f32")],
         {"groups": S(2), "padding": S(1)})
    case("Functional.conv2d", [rnd([1, 2, 9, 9], "f32"), rnd([3, 2, 3, 3], "f32")],
         {"dilation": S(2), "padding": S(2)})
    case("Functional.conv2d", [rnd([2, 16, 6, 6], "f32"), rnd([8, 16, 1, 1], "f32")])
    for dt in ["f64", "f32"]:
        case("Functional.conv2d", [rnd([2, 2, 5, 6], dt), rnd([3, 2, 3, 3], dt), rnd([3], dt)],
             {"padding": "same"})
        case("Functional.conv2d", [rnd([2, 2, 5, 6], dt), rnd([3, 2, 4, 2], dt)],
             {"padding": "same", "dilation": [1, 2]})
    case("Functional.conv2d", [rnd([1, 2, 5, 5], "f64"), rnd([3, 2, 3, 3], "f64")], {"padding": "valid"})
    case("Functional.conv2d", [rnd([1, 2, 5, 5], "f64"), rnd([3, 2, 3, 3], "f64")],
         {"padding": "same", "stride": S(2)})
    case("Functional.conv2d", [rnd([1, 3, 4, 4], "f32"), rnd([2, 2, 3, 3], "f32")])


def batch_norm_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    # training with running statistics: forward only (the golden script marks every float
    # tensor as requiring grad, and torch refuses running statistics that require grad)
    for dt in ["f32", "f64", "bf16"]:
        case("Functional.batch_norm", [rnd([4, 3, 2, 2], dt), g.torch.zeros(3).to(rnd([1], dt).dtype),
                                       g.torch.ones(3).to(rnd([1], dt).dtype), rnd([3], dt),
                                       rnd([3], dt), S(True)], backward=False)
    for dt in ["f32", "f64"]:
        case("Functional.batch_norm", [rnd([4, 3, 5], dt), None, None, rnd([3], dt), rnd([3], dt),
                                       S(True)])
        case("Functional.batch_norm", [rnd([6, 4], dt), None, None], {"training": S(True)})
        case("Functional.batch_norm", [rnd([2, 3, 4, 4], dt), rnd([3], dt),
                                       rnd([3], dt, positive=True), rnd([3], dt), rnd([3], dt)],
             {"eps": S(1e-3)}, backward=False)
    case("Functional.batch_norm", [rnd([8, 16, 3, 3], "f32", scale=3) + 2, None, None,
                                   rnd([16], "f32"), rnd([16], "f32"), S(True), S(0.1), S(1e-5)])
    case("Functional.batch_norm", [rnd([1, 3], "f32"), None, None], {"training": S(True)})


def pool_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.max_pool2d", [rnd([2, 3, 6, 6], dt), S(2)])
        case("Functional.adaptive_avg_pool2d", [rnd([2, 3, 7, 5], dt), [3, 2]])
    case("Functional.max_pool2d", [rnd([1, 2, 7, 7], "f32"), [3, 3], [2, 2], S(1)])
    case("Functional.max_pool2d", [rnd([2, 7, 6], "f32"), S(3)],
         {"stride": S(2), "ceil_mode": S(True)})
    case("Functional.max_pool2d", [rnd([1, 1, 9, 9], "f64"), S(3)],
         {"stride": S(1), "dilation": S(2), "padding": S(1)})
    sp = g.special("f32")[:9].reshape(1, 1, 3, 3)
    case("Functional.max_pool2d", [sp, S(2)], {"stride": S(1)}, backward=False)
    case("Functional.max_pool2d", [rnd([1, 1, 4, 4], "f32"), S(2)], {"padding": S(2)})
    case("Functional.adaptive_avg_pool2d", [rnd([2, 3, 8, 8], "f32"), S(1)])
    case("Functional.adaptive_avg_pool2d", [rnd([3, 10, 10], "f64"), [4, 3]])
    case("Functional.adaptive_avg_pool2d", [rnd([1, 4, 5, 5], "f32"), [7, 7]])


def late_cases(g):
    """Cases added after the others: appended last so that the random data of the cases above
    (and with it the pinned known gaps) stays as it was."""
    rnd, S, case = g.rnd, g.S, g.case
    # zero-size operands
    case("Torch.matmul", [rnd([0, 3], "f32"), rnd([3, 4], "f32")])
    case("Torch.mm", [rnd([2, 0], "f32"), rnd([0, 3], "f32")])
    case("Functional.linear", [rnd([0, 5], "f32"), rnd([3, 5], "f32"), rnd([3], "f32")])
    case("Functional.softmax", [rnd([2, 0], "f32"), S(1)])
    case("Functional.log_softmax", [rnd([0, 4], "f32"), S(1)])
    # Torch.layer_norm (issue 22): the aten argument order, cudnn_enable included
    case("Torch.layer_norm", [rnd([3, 8], "f32"), [8], rnd([8], "f32"), rnd([8], "f32"), S(1e-5),
                              S(True)])
    case("Torch.layer_norm", [rnd([2, 4], "f64"), [4]])


def cases(g):
    gemm_cases(g)
    norm_cases(g)
    layer_norm_cases(g)
    misc_cases(g)
    loss_cases(g)
    conv_cases(g)
    batch_norm_cases(g)
    pool_cases(g)
    late_cases(g)
