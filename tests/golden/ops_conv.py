"""Golden cases of the "conv" group (tests/golden/make_op_goldens.py calls cases(g)):
conv1d, conv3d, conv_transpose1d/2d/3d, and the 1-D/3-D, average and adaptive pools."""


def conv_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    # conv1d: torch views it as a conv2d of height 1
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.conv1d", [rnd([2, 3, 9], dt), rnd([4, 3, 3], dt), rnd([4], dt)])
    case("Functional.conv1d", [rnd([1, 4, 11], "f32"), rnd([6, 2, 3], "f32"), rnd([6], "f32")],
         {"stride": S(2), "padding": S(1), "groups": S(2)})
    case("Functional.conv1d", [rnd([1, 2, 12], "f64"), rnd([3, 2, 4], "f64")],
         {"stride": [3], "padding": [2], "dilation": [2]})
    case("Functional.conv1d", [rnd([1, 3, 10], "f32"), rnd([2, 3, 3], "f32")])
    case("Functional.conv1d", [rnd([3, 10], "f32"), rnd([2, 3, 5], "f32"), rnd([2], "f32")],
         {"dilation": S(2)})
    for dt in ["f32", "f64"]:
        case("Functional.conv1d", [rnd([2, 2, 8], dt), rnd([3, 2, 4], dt), rnd([3], dt)],
             {"padding": "same"})
        case("Functional.conv1d", [rnd([2, 2, 8], dt), rnd([3, 2, 3], dt)], {"padding": "valid"})
    case("Functional.conv1d", [rnd([1, 3, 5], "f32"), rnd([2, 3, 3], "f32")],
         {"padding": "same", "stride": S(2)})
    case("Functional.conv1d", [rnd([2, 5, 7], "f32"), rnd([4, 3, 3], "f32")])
    case("Functional.conv1d", [rnd([2, 3, 2], "f32"), rnd([4, 3, 5], "f32")])
    case("Functional.conv1d", [rnd([2, 3, 4, 5], "f32"), rnd([4, 3, 3], "f32")])
    case("Torch.conv1d", [rnd([2, 3, 9], "f32"), rnd([4, 3, 3], "f32")], {"padding": S(1)})
    case("Torch.conv2d", [rnd([2, 3, 5, 5], "f32"), rnd([4, 3, 3, 3], "f32")])
    # conv3d
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.conv3d", [rnd([2, 3, 4, 5, 4], dt), rnd([4, 3, 3, 3, 2], dt), rnd([4], dt)])
    case("Functional.conv3d", [rnd([1, 2, 5, 6, 5], "f64"), rnd([4, 2, 3, 2, 3], "f64")],
         {"stride": [2, 1, 2], "padding": [1, 2, 0], "dilation": S(2)})
    case("Functional.conv3d", [rnd([1, 4, 4, 4, 4], "f32"), rnd([6, 2, 3, 3, 3], "f32"), rnd([6], "f32")],
         {"groups": S(2), "padding": S(1)})
    case("Functional.conv3d", [rnd([1, 2, 5, 5, 5], "f32"), rnd([3, 2, 3, 3, 3], "f32")],
         {"stride": S(2)})
    case("Functional.conv3d", [rnd([1, 2, 4, 5, 6], "f32"), rnd([3, 2, 2, 3, 3], "f32")])
    case("Functional.conv3d", [rnd([2, 4, 4, 4], "f64"), rnd([3, 2, 1, 2, 1], "f64")])
    for dt in ["f32", "f64"]:
        case("Functional.conv3d", [rnd([2, 2, 4, 5, 4], dt), rnd([3, 2, 2, 3, 4], dt), rnd([3], dt)],
             {"padding": "same"})
    case("Torch.conv3d", [rnd([1, 2, 4, 4, 4], "f64"), rnd([2, 2, 3, 3, 3], "f64")], {"padding": "valid"})
    case("Functional.conv3d", [rnd([1, 3, 4, 4, 4], "f32"), rnd([2, 2, 3, 3, 3], "f32")])
    # transposed
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.conv_transpose2d", [rnd([2, 3, 4, 5], dt), rnd([3, 4, 3, 3], dt), rnd([4], dt)])
    case("Functional.conv_transpose2d", [rnd([1, 4, 4, 3], "f32"), rnd([4, 3, 3, 2], "f32"), rnd([6], "f32")],
         {"stride": [2, 3], "padding": [1, 0], "output_padding": [1, 2], "groups": S(2)})
    case("Functional.conv_transpose2d", [rnd([2, 2, 3, 3], "f64"), rnd([2, 3, 3, 3], "f64")],
         {"stride": S(2), "dilation": S(2), "padding": S(2), "output_padding": S(1)})
    case("Functional.conv_transpose2d", [rnd([2, 3, 3], "f32"), rnd([2, 2, 1, 1], "f32")])
    case("Torch.conv_transpose2d", [rnd([1, 2, 3, 4], "f32"), rnd([2, 2, 2, 2], "f32")], {"stride": S(2)})
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.conv_transpose1d", [rnd([2, 3, 6], dt), rnd([3, 2, 3], dt), rnd([2], dt)])
    case("Functional.conv_transpose1d", [rnd([1, 4, 7], "f32"), rnd([4, 3, 4], "f32")],
         {"stride": S(3), "padding": S(2), "output_padding": S(1), "groups": S(2), "dilation": S(1)})
    case("Functional.conv_transpose1d", [rnd([4, 5], "f64"), rnd([4, 2, 3], "f64"), rnd([2], "f64")],
         {"stride": S(2), "dilation": S(3)})
    case("Torch.conv_transpose1d", [rnd([2, 3, 6], "f32"), rnd([3, 2, 3], "f32")])
    for dt in ["f32", "f64", "bf16"]:
        case("Functional.conv_transpose3d", [rnd([2, 3, 3, 4, 3], dt), rnd([3, 2, 2, 3, 2], dt), rnd([2], dt)])
    case("Functional.conv_transpose3d", [rnd([1, 2, 3, 3, 2], "f32"), rnd([2, 2, 3, 2, 3], "f32")],
         {"stride": [2, 1, 2], "padding": S(1), "output_padding": [1, 0, 1], "groups": S(2)})
    case("Torch.conv_transpose3d", [rnd([1, 2, 2, 3, 3], "f64"), rnd([2, 3, 2, 2, 2], "f64")],
         {"stride": S(2), "dilation": S(2)})
    case("Functional.conv_transpose2d", [rnd([1, 3, 4, 4], "f32"), rnd([2, 2, 3, 3], "f32")])
    case("Functional.conv_transpose2d", [rnd([1, 2, 4, 4], "f32"), rnd([2, 2, 3, 3], "f32")],
         {"stride": S(1), "output_padding": S(1)})


def pool_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.max_pool1d", [rnd([2, 3, 9], dt), S(3)])
        if dt != "bf16":  # torch 1.13 CPU has no bfloat16 3-D pool kernel
            case("Functional.max_pool3d", [rnd([1, 2, 4, 5, 4], dt), S(2)])
        case("Functional.avg_pool1d", [rnd([2, 3, 9], dt), S(3)], {"stride": S(2), "padding": S(1)})
        case("Functional.avg_pool2d", [rnd([2, 3, 6, 7], dt), S(3)], {"stride": S(2), "padding": S(1)})
        if dt != "bf16":  # torch 1.13 CPU has no bfloat16 3-D pool kernel
            case("Functional.avg_pool3d", [rnd([1, 2, 5, 4, 6], dt), [3, 2, 3]], {"stride": [2, 1, 2], "padding": S(1)})
        case("Functional.adaptive_avg_pool1d", [rnd([2, 3, 10], dt), S(4)])
        if dt != "bf16":  # torch 1.13 CPU has no bfloat16 3-D pool kernel
            case("Functional.adaptive_avg_pool3d", [rnd([1, 2, 5, 6, 7], dt), [2, 4, 3]])
        case("Functional.adaptive_max_pool1d", [rnd([2, 3, 10], dt), S(4)])
        case("Functional.adaptive_max_pool2d", [rnd([2, 3, 7, 6], dt), [3, 4]])
    case("Functional.max_pool1d", [rnd([2, 3, 11], "f32"), S(3)],
         {"stride": S(2), "padding": S(1), "dilation": S(2), "ceil_mode": S(True)})
    case("Functional.max_pool1d", [rnd([3, 11], "f64"), S(4)], {"stride": S(1)})
    case("Functional.max_pool1d", [rnd([2, 3, 9], "f32"), S(3)], {"return_indices": S(True)})
    case("Functional.max_pool1d_with_indices", [rnd([2, 3, 9], "f32"), S(2)])
    case("Torch.max_pool1d", [rnd([2, 3, 9], "f32"), S(2)])
    case("Torch.max_pool1d_with_indices", [rnd([2, 3, 9], "f64"), S(3), S(2)])
    case("Functional.max_pool2d_with_indices", [rnd([1, 2, 6, 6], "f32"), S(3)], {"stride": S(2), "padding": S(1)})
    case("Torch.max_pool2d", [rnd([1, 2, 6, 6], "f32"), S(2)])
    case("Functional.max_pool3d", [rnd([1, 2, 5, 6, 5], "f32"), [3, 2, 3]],
         {"stride": [2, 2, 1], "padding": [1, 1, 0], "dilation": [1, 2, 1], "ceil_mode": S(True)})
    case("Functional.max_pool3d", [rnd([2, 5, 5, 5], "f64"), S(3)], {"stride": S(2), "return_indices": S(True)})
    case("Functional.max_pool3d_with_indices", [rnd([1, 1, 4, 4, 4], "f32"), S(2)])
    case("Torch.max_pool3d", [rnd([1, 2, 4, 4, 4], "f32"), S(2)])
    sp = g.special("f32")[:9].reshape(1, 1, 9)
    case("Functional.max_pool1d", [sp, S(2)], {"stride": S(1)}, backward=False)
    case("Functional.max_pool1d", [rnd([1, 1, 4], "f32"), S(2)], {"padding": S(2)})
    case("Functional.avg_pool1d", [rnd([2, 3, 10], "f32"), S(4)],
         {"stride": S(3), "padding": S(2), "ceil_mode": S(True), "count_include_pad": S(False)})
    case("Torch.avg_pool1d", [rnd([3, 8], "f32"), S(2)])
    case("Functional.avg_pool2d", [rnd([1, 2, 7, 7], "f32"), [3, 2]],
         {"stride": [2, 3], "padding": [1, 1], "ceil_mode": S(True), "count_include_pad": S(False)})
    case("Functional.avg_pool2d", [rnd([2, 6, 6], "f64"), S(3)], {"divisor_override": S(5)})
    case("Functional.avg_pool2d", [rnd([1, 2, 7, 7], "f32"), S(3)], {"stride": S(2), "ceil_mode": S(True)})
    case("Functional.avg_pool3d", [rnd([1, 2, 5, 5, 5], "f32"), S(2)],
         {"ceil_mode": S(True), "count_include_pad": S(False), "padding": S(1)})
    case("Functional.avg_pool3d", [rnd([2, 4, 4, 4], "f32"), S(2)], {"divisor_override": S(3)})
    case("Functional.avg_pool2d", [rnd([1, 1, 4, 4], "f32"), S(2)], {"padding": S(2)})
    case("Functional.adaptive_avg_pool1d", [rnd([2, 3, 9], "f32"), S(1)])
    case("Functional.adaptive_avg_pool1d", [rnd([3, 7], "f64"), S(10)])
    case("Torch.adaptive_avg_pool1d", [rnd([2, 3, 9], "f32"), S(2)])
    case("Functional.adaptive_avg_pool3d", [rnd([2, 3, 4, 4], "f32"), S(1)])
    case("Functional.adaptive_avg_pool3d", [rnd([1, 2, 3, 5, 4], "f64"), [5, 2, 3]])
    case("Functional.adaptive_max_pool1d", [rnd([2, 3, 10], "f32"), S(3)], {"return_indices": S(True)})
    case("Functional.adaptive_max_pool1d_with_indices", [rnd([3, 10], "f64"), S(4)])
    case("Torch.adaptive_max_pool1d", [rnd([2, 3, 10], "f32"), S(4)])
    case("Functional.adaptive_max_pool2d", [rnd([3, 5, 8], "f64"), S(3)])
    case("Functional.adaptive_max_pool2d_with_indices", [rnd([1, 3, 5, 8], "f32"), [2, 5]])
    case("Functional.adaptive_max_pool2d", [g.special("f32")[:9].reshape(1, 1, 3, 3), S(2)], backward=False)
    case("Functional.avg_pool1d", [g.ints([2, 3, 6], "i64"), S(2)], backward=False)


def interp_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    I = "Functional.interpolate"
    for dt in ["f32", "f64", "bf16", "f16"]:
        case(I, [rnd([1, 2, 5, 7], dt)], {"size": [9, 11], "mode": "bilinear"})
        case(I, [rnd([1, 2, 5, 7], dt)], {"scale_factor": S(2.0)})
        case(I, [rnd([1, 2, 6], dt)], {"size": S(10), "mode": "linear", "align_corners": S(True)})
    for ac in [True, False]:
        case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [3, 4], "mode": "bilinear", "align_corners": S(ac)})
        case(I, [rnd([1, 2, 3, 4, 5], "f32")], {"size": [5, 3, 8], "mode": "trilinear", "align_corners": S(ac)})
        case(I, [rnd([1, 2, 3, 4, 5], "f64")], {"scale_factor": S(1.7), "mode": "trilinear", "align_corners": S(ac)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(1.5), "mode": "bilinear"})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(1.5), "mode": "bilinear", "recompute_scale_factor": S(True)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(0.6), "mode": "bilinear"})
    case(I, [rnd([2, 3, 7], "f32")], {"scale_factor": S(2.5), "mode": "linear"})
    case(I, [rnd([2, 3, 7], "f64")], {"size": S(3), "mode": "linear"})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [7, 9]})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": S(3)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(1.7)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(1.7), "recompute_scale_factor": S(True)})
    case(I, [rnd([2, 3, 7], "f32")], {"scale_factor": S(3)})
    case(I, [rnd([1, 2, 3, 4, 3], "f64")], {"size": [5, 7, 4]})
    case(I, [rnd([1, 2, 3, 4, 3], "bf16")], {"scale_factor": S(2)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [8, 10], "mode": "nearest-exact"})
    case(I, [rnd([2, 3, 7], "f64")], {"scale_factor": S(0.5), "mode": "nearest-exact"})
    case(I, [rnd([1, 2, 5, 7], "f32"), [8, 10], None, "bilinear", S(False)])
    for dt in ["f32", "f64", "bf16"]:
        case(I, [rnd([1, 2, 7, 9], dt)], {"size": [3, 4], "mode": "area"})
    case(I, [rnd([2, 3, 10], "f32")], {"size": S(4), "mode": "area"})
    case(I, [rnd([1, 2, 4, 5, 6], "f32")], {"scale_factor": S(0.5), "mode": "area"})
    case(I, [rnd([1, 2, 4, 5, 6], "f16")], {"size": [3, 2, 4], "mode": "area"})
    # errors
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [8, 10], "align_corners": S(True)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": S(8), "mode": "linear"})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [8, 10], "scale_factor": S(2.0)})
    case(I, [rnd([1, 2, 5, 7], "f32")], {})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [8, 10, 3]})
    case(I, [rnd([1, 2, 5, 7], "f32")], {"size": [8, 10], "recompute_scale_factor": S(True)})
    case("Functional.upsample", [rnd([1, 2, 5, 7], "f32")], {"size": [9, 11], "mode": "bilinear", "align_corners": S(True)})
    case("Functional.upsample", [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(2)})
    case("Functional.upsample_nearest", [rnd([1, 2, 5, 7], "f32")], {"scale_factor": S(2)})
    case("Functional.upsample_nearest", [rnd([2, 3, 5], "bf16")], {"size": S(12)})
    case("Functional.upsample_bilinear", [rnd([1, 2, 5, 7], "f32")], {"size": [9, 11]})
    case("Functional.upsample_bilinear", [rnd([1, 3, 4, 4], "f64")], {"scale_factor": S(2)})


def fold_cases(g):
    rnd, S, case = g.rnd, g.S, g.case
    for dt in ["f32", "f64", "bf16", "f16"]:
        case("Functional.unfold", [rnd([2, 3, 5, 6], dt), S(2)])
        case("Functional.fold", [rnd([2, 12, 20], dt), [5, 6], S(2)])
    case("Functional.unfold", [rnd([1, 2, 7, 6], "f32"), [3, 2]],
         {"dilation": [2, 1], "padding": S(1), "stride": [2, 3]})
    case("Functional.unfold", [rnd([2, 5, 5], "f64"), S(3)], {"padding": S(1), "stride": S(2)})
    case("Functional.fold", [rnd([1, 12, 9], "f32"), [5, 6], [3, 2]],
         {"dilation": [1, 2], "padding": S(1), "stride": S(2)})
    case("Functional.fold", [rnd([18, 9], "f64"), S(5), S(3)], {"padding": S(1), "stride": S(2)})
    case("Functional.fold", [rnd([1, 12, 8], "f32"), [4, 4], S(2)])
    case("Functional.fold", [rnd([1, 13, 9], "f32"), [4, 4], S(2)])
    case("Functional.unfold", [g.ints([1, 3, 5, 5], "i64"), S(2)], backward=False)


def half_reference(fn):
    """torch 1.13's CPU has no half-precision transposed convolution (slow_conv_transpose is
    float/double only, and its bfloat16 oneDNN choice runs a plain convolution: wrong shapes):
    the reference is the float32 one rounded, as precheck's device computes it."""
    def ref(x, w, b=None, *args, **kw):
        if x.dtype in (g_torch[0].float16, g_torch[0].bfloat16):
            dt = x.dtype
            y = fn(x.float(), w.float(), None if b is None else b.float(), *args, **kw)
            return y.to(dt)
        return fn(x, w, b, *args, **kw)
    return ref


g_torch = [None]


def cases(g):
    S = g.S
    g_torch[0] = g.torch
    for n in ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]:
        fn = getattr(g.F, n)
        g.register("Functional." + n, half_reference(fn))
        g.register("Torch." + n, half_reference(fn))
    conv_cases(g)
    pool_cases(g)
    interp_cases(g)
    fold_cases(g)
    # conv2d (the nn group's kernel) where OpenBLAS's small-matrix sgemm splits K (>= 32)
    g.case("Torch.conv2d", [g.rnd([2, 8, 5, 5], "f32"), g.rnd([4, 8, 3, 3], "f32"), g.rnd([4], "f32")])
    g.case("Torch.conv2d", [g.rnd([1, 4, 6, 6], "f32"), g.rnd([2, 4, 5, 5], "f32")], {"padding": S(2)})
