"""Golden cases of the "npu" group (tests/golden/make_op_goldens.py calls cases(g)).

torch 1.13 has no torch_npu, so each NPU op is a Python reference registered with
g.register("NPU.<api>", fn), written with torch ops from the formulas of msprobe's CPU bench
functions (spec dump_and_ops.md §B.4). The generator calls it twice: with the inputs as given
(".dev", the reference device) and with float inputs raised to float64 (".f64", the bench).
The reference device computes as a fused NPU kernel: float16/bfloat16 inputs in float32 with
one rounding of the result (up() / .to(dtype) below), except where the bench rounds on the way
(swiglu's float16/bfloat16 branch); float32 and float64 in their own dtype.
"""
import math

import torch

HALF = (torch.float16, torch.bfloat16)


def up(t):
    """The compute dtype of a tensor on the reference device (float32 for half types)."""
    return t.float() if t is not None and t.dtype in HALF else t


def rms_norm(x, gamma, epsilon=1e-5):
    od = torch.promote_types(x.dtype, gamma.dtype)
    xf, gf = up(x), up(gamma)
    rstd = torch.rsqrt(torch.mean(xf * xf, dim=-1, keepdim=True) + epsilon)
    return (xf * rstd * gf).to(od), rstd.float()


def rotary_mul(x, r1, r2):
    od = torch.promote_types(torch.promote_types(x.dtype, r1.dtype), r2.dtype)
    xf, a, b = up(x), up(r1), up(r2)
    x1, x2 = torch.chunk(xf, 2, -1)
    return (a * xf + b * torch.cat((-x2, x1), dim=-1)).to(od)


def swiglu(x, dim=-1):
    halves = torch.chunk(x, 2, dim=dim)
    a, b = halves[0], halves[1]
    if x.dtype in HALF:  # msprobe's float16/bfloat16 branch, as its GPU side runs it
        s = torch.nn.functional.silu(a.float()).to(x.dtype).float()
        return (s * b.float()).to(x.dtype)
    return torch.mul(torch.mul(torch.sigmoid(a), a), b)


def to_bnsd(t, n, layout):
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, n, h // n).permute(0, 2, 1, 3)
    if layout == "SBH":
        s, b, h = t.shape
        return t.reshape(s, b, n, h // n).permute(1, 2, 0, 3)
    if layout == "BSND":
        return t.permute(0, 2, 1, 3)
    return t


def from_bnsd(t, layout):
    b, n, s, d = t.shape
    if layout == "BSH":
        return t.permute(0, 2, 1, 3).reshape(b, s, n * d)
    if layout == "SBH":
        return t.permute(2, 0, 1, 3).reshape(s, b, n * d)
    if layout == "BSND":
        return t.permute(0, 2, 1, 3)
    return t


def band(s1, s2, pre, nxt):
    ones = torch.ones(s1, s2, dtype=torch.float64)
    return torch.triu(ones, diagonal=nxt + 1) + torch.tril(ones, diagonal=-pre - 1)


def gen_mask(mask, mode, s1, s2, pre, nxt):
    ones = torch.ones(s1, s2, dtype=torch.float64)
    if mask is not None:
        if mode in (2, 3, 4) and tuple(mask.shape) == (2048, 2048) and torch.equal(
                mask.bool(), torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1)):
            mask = None
        else:
            return mask
    if mode in (0, 4):
        return band(s1, s2, pre, nxt)
    if mode == 1:
        return torch.zeros(s1, s2, dtype=torch.float64)
    if mode == 2:
        return torch.triu(ones, diagonal=1)
    return torch.triu(ones, diagonal=s2 - s1 + 1)


def fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None,
                     atten_mask=None, scale=None, keep_prob=1.0, pre_tockens=2147483647,
                     next_tockens=2147483647, inner_precise=0, prefix=None, actual_seq_qlen=None,
                     actual_seq_kvlen=None, sparse_mode=0, gen_mask_parallel=True, sync=False):
    if input_layout == "TND":
        raise ValueError("input_layout TND does not supported for now.")
    od = query.dtype
    if input_layout in ("BSH", "SBH"):
        n1 = head_num
        d = query.shape[2] // n1
        n2 = key.shape[2] // d
    elif input_layout == "BSND":
        n1, d, n2 = query.shape[2], query.shape[3], key.shape[2]
    else:
        n1, d, n2 = query.shape[1], query.shape[3], key.shape[1]
    if scale is None:
        scale = 1 / (d ** 0.5)
    q = up(to_bnsd(query, n1, input_layout))
    k = up(to_bnsd(key, n2, input_layout))
    v = up(to_bnsd(value, n2, input_layout))
    if n1 != n2:
        k = k.repeat_interleave(n1 // n2, dim=1)
        v = v.repeat_interleave(n1 // n2, dim=1)
    s1, s2 = q.shape[2], k.shape[2]
    mask = gen_mask(atten_mask, sparse_mode, s1, s2, pre_tockens, next_tockens)
    qk = torch.matmul(q, k.permute(0, 1, 3, 2))
    if pse is not None and pse.dim() > 0:
        qk = qk + up(pse)
    qk = qk.mul(scale)
    qk = qk + mask.bool() * (-40000.0)
    x_max = torch.max(qk, dim=-1, keepdim=True)[0]
    e = torch.exp(qk.sub(x_max))
    x_sum = e.sum(dim=-1, keepdim=True)
    out = torch.matmul(e.div(x_sum), v)
    return (from_bnsd(out, input_layout).to(od), x_max.repeat(1, 1, 1, 8),
            x_sum.repeat(1, 1, 1, 8))


def cases(g):
    g.register("NPU.npu_rms_norm", rms_norm)
    g.register("NPU.npu_rotary_mul", rotary_mul)
    g.register("NPU.npu_swiglu", swiglu)
    g.register("NPU.npu_fusion_attention", fusion_attention)
    rnd, S, case = g.rnd, g.S, g.case

    # npu_rms_norm: (y, rstd); tuple output, so no backward (run_ut: forward only)
    for dt in g.FLOATS:
        case("NPU.npu_rms_norm", [rnd([2, 3, 16], dt), rnd([16], dt)])
    case("NPU.npu_rms_norm", [rnd([4, 64], "bf16", scale=20), rnd([64], "bf16")], {"epsilon": S(1e-6)})
    case("NPU.npu_rms_norm", [rnd([3, 40], "f16"), rnd([40], "f16")], {"epsilon": S(1e-3)})
    case("NPU.npu_rms_norm", [rnd([2, 5, 128], "f32"), rnd([128], "f32")], {"epsilon": S(1e-6)})
    case("NPU.npu_rms_norm", [rnd([2, 8], "bf16"), rnd([8], "f32")])
    case("NPU.npu_rms_norm", [rnd([2, 8], "f32"), rnd([2, 8], "f32")])
    case("NPU.npu_rms_norm", [rnd([7], "f64"), rnd([7], "f64")], {"epsilon": S(0.5)})
    case("NPU.npu_rms_norm", [rnd([0, 8], "f32"), rnd([8], "f32")])

    # npu_rotary_mul: the three r shapes of MindSpeed, and general broadcasting
    B, Sq, N, D = 2, 3, 2, 8
    for dt in g.FLOATS:
        case("NPU.npu_rotary_mul", [rnd([B, Sq, N, D], dt), rnd([1, Sq, 1, D], dt), rnd([1, Sq, 1, D], dt)])
        case("NPU.npu_rotary_mul", [rnd([B, N, Sq, D], dt), rnd([1, 1, Sq, D], dt), rnd([1, 1, Sq, D], dt)])
        case("NPU.npu_rotary_mul", [rnd([B, Sq, N, D], dt), rnd([B, 1, 1, D], dt), rnd([B, 1, 1, D], dt)])
    case("NPU.npu_rotary_mul", [rnd([Sq, B, N, 16], "bf16"), rnd([Sq, 1, 1, 16], "bf16"), rnd([Sq, 1, 1, 16], "bf16")])
    case("NPU.npu_rotary_mul", [rnd([2, 3, 6], "f32"), rnd([3, 6], "f32"), rnd([6], "f32")])
    case("NPU.npu_rotary_mul", [rnd([2, 5], "f32"), rnd([2, 5], "f32"), rnd([2, 5], "f32")])
    case("NPU.npu_rotary_mul", [rnd([2, 4], "bf16"), rnd([2, 4], "f32"), rnd([2, 4], "f32")])

    # npu_swiglu
    for dt in g.FLOATS:
        case("NPU.npu_swiglu", [rnd([3, 16], dt, scale=3)])
        case("NPU.npu_swiglu", [rnd([2, 6, 4], dt, scale=3)], {"dim": S(1)})
    case("NPU.npu_swiglu", [rnd([2, 4, 3], "bf16", scale=3)], {"dim": S(-2)})
    case("NPU.npu_swiglu", [rnd([4, 2, 3], "f16", scale=3)], {"dim": S(0)})
    case("NPU.npu_swiglu", [rnd([2, 64], "bf16", scale=8)])
    case("NPU.npu_swiglu", [rnd([2, 5], "f32")])
    case("NPU.npu_swiglu", [rnd([2, 1], "f32")])
    case("NPU.npu_swiglu", [rnd([2, 4], "f32")], {"dim": S(2)})

    # npu_fusion_attention: backward through output 0 (msprobe's grad_index 0). The values are
    # positive, so O = P v does not cancel: torch's vectorised exp is an ULP from glibc's on a
    # few percent of arguments, which a cancelling sum would turn into many ULP of a small
    # output (the gradients cancel by nature: op_gaps_npu.inc)
    fa = "NPU.npu_fusion_attention"

    def pos(shape, dt, scale=2.0):
        return rnd(shape, dt, scale=scale, positive=True)

    def qk(shape, dt, scale=0.7):  # soft rows: a peaked softmax makes the gradients cancel
        return rnd(shape, dt, scale=scale)
    for dt in g.FLOATS:
        b, s, n, d = 2, 5, 2, 8
        case(fa, [qk([b, s, n * d], dt), qk([b, s, n * d], dt), pos([b, s, n * d], dt), S(n), "BSH"],
             grad_index=0)
    b, s1, s2, n1, n2, d = 2, 6, 7, 4, 2, 8
    case(fa, [qk([s1, b, n1 * d], "bf16"), qk([s2, b, n2 * d], "bf16"), pos([s2, b, n2 * d], "bf16"),
              S(n1), "SBH"], {"scale": S(0.3)}, grad_index=0)
    case(fa, [qk([b, s1, n1, d], "f16"), qk([b, s2, n2, d], "f16"), pos([b, s2, n2, d], "f16")],
         {"head_num": S(n1), "input_layout": "BSND", "sparse_mode": S(3)}, grad_index=0)
    case(fa, [qk([b, n1, s1, d], "f32"), qk([b, n1, s2, d], "f32"), pos([b, n1, s2, d], "f32"),
              S(n1), "BNSD"],
         {"pse": rnd([1, n1, s1, s2], "f32"), "scale": S(0.125), "sparse_mode": S(1)}, grad_index=0)
    # sparse modes 2-4 without a mask: the compressed 2048 x 2048 mask expands to the same
    # masks (too large for the fixtures; tests/inputs/test_atten_mask.c checks that path)
    for mode in (2, 3, 4):
        kw = {"sparse_mode": S(mode)}
        if mode == 4:
            kw.update({"pre_tockens": S(2), "next_tockens": S(1)})
        case(fa, [qk([1, s1, 2 * d], "bf16"), qk([1, s2, 2 * d], "bf16"), pos([1, s2, 2 * d], "bf16"),
                  S(2), "BSH"], kw, grad_index=0)
    mask = torch.rand(b, 1, s1, s2) > 0.7
    case(fa, [qk([b, s1, n1 * d], "f32"), qk([b, s2, n2 * d], "f32"), pos([b, s2, n2 * d], "f32"),
              S(n1), "BSH"], {"atten_mask": mask}, grad_index=0)
    case(fa, [qk([b, s1, n1 * d], "f64"), qk([b, s2, n1 * d], "f64"), pos([b, s2, n1 * d], "f64"),
              S(n1), "BSH"], {"pre_tockens": S(1), "next_tockens": S(0)}, grad_index=0)
    case(fa, [qk([b, n1, s1, d], "bf16", scale=2), qk([b, n2, s2, d], "bf16", scale=2),
              pos([b, n2, s2, d], "bf16"), S(n1), "BNSD"],
         {"atten_mask": torch.rand(s1, s2) > 0.5, "sparse_mode": S(0)}, grad_index=0)
    # S1 S2 D of 400 and more: torch's bmm goes through BLAS, and so does precheck
    for dt in ("bf16", "f32"):
        case(fa, [qk([1, 16, 2, 16], dt), qk([1, 16, 2, 16], dt), pos([1, 16, 2, 16], dt)],
             {"head_num": S(2), "input_layout": "BSND", "sparse_mode": S(2)}, grad_index=0)
    case(fa, [qk([4, 2, 3], "f32"), qk([4, 2, 3], "f32"), qk([4, 2, 3], "f32"), S(1), "TND"],
         backward=False)
    more_cases(g)


def scaled_masked_softmax(x, mask, scale=1.0, fixed_triu_mask=False):
    if fixed_triu_mask:
        mask = torch.triu(torch.ones(mask.shape), diagonal=1).bool()
    z = (up(x) * scale).masked_fill(mask, value=-10000)
    z = z - torch.max(z, dim=-1, keepdim=True)[0]
    e = torch.exp(z)  # msprobe: exp(z.float()); precheck's bench stays in float64
    return torch.div(e, torch.sum(e, dim=-1, keepdim=True)).to(x.dtype)


def fast_gelu(x):
    xf = up(x)
    a = torch.abs(xf)
    down = torch.exp(a * (0 - 1.702)) + 1
    u = xf * torch.exp((xf - a) * (1.702 / 2))
    return (u * torch.reciprocal(down)).to(x.dtype)


def confusion_transpose(x, perm, shape, transpose_first):
    if transpose_first:
        return x.permute(*perm).contiguous().view(shape)
    return x.view(shape).permute(*perm)


def layer_norm_eval(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return torch.nn.functional.layer_norm(x, normalized_shape)  # msprobe's bench ignores the rest


def apply_adam(beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking,
               use_nesterov, out):
    var, m, v = out
    ods = (var.dtype, m.dtype, v.dtype)
    var, m, v, g = up(var), up(m), up(v), up(grad)
    dt = m.dtype
    one = torch.ones(1, dtype=dt)
    neg = one * -1
    b1 = torch.tensor(beta1, dtype=dt)
    b2 = torch.tensor(beta2, dtype=dt)
    m_t = m + (b1 + neg) * (m - g)
    v_t = v + (b2 + neg) * (v - g * g)
    lr_t = lr * torch.sqrt(beta2_power * neg + one)
    lr_t = lr_t / (beta1_power * neg + one)
    left = lr_t * (m_t * b1 + (b1 * neg + one) * g) if use_nesterov else lr_t * m_t
    var_t = var - left / (torch.sqrt(v_t) + torch.tensor(epsilon, dtype=dt))
    return var_t.to(ods[0]), m_t.to(ods[1]), v_t.to(ods[2])


def apply_adam_w(beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad,
                 max_grad_norm, amsgrad, maximize, out):
    if amsgrad:  # msprobe's bench draws a random max_grad_norm: nothing to compare with
        raise ValueError("npu_apply_adam_w with amsgrad=True is not supported")
    var, m, v = out
    ods = (var.dtype, m.dtype, v.dtype)
    var, m, v, grad = up(var), up(m), up(v), up(grad)
    b1po = beta1_power * beta1
    b2po = beta2_power * beta2
    var_t = var * (1 + (-lr * weight_decay))
    gt = -grad if maximize else grad
    m_out = m * beta1 - (beta1 + (-1)) * gt
    v_out = v * beta2 - (beta2 + (-1)) * gt * gt
    denom = torch.sqrt(torch.div(v_out, (1 - b2po))) + epsilon
    if (1 - b1po) == 0:
        b1po -= epsilon
    var_out = var_t + torch.div(-lr * m_out, (1 - b1po)).div(denom)
    return var_out.to(ods[0]), m_out.to(ods[1]), v_out.to(ods[2])


def group_norm_silu(x, weight, bias, group, eps=1e-5):
    if x.dim() != 4:
        raise ValueError("x shape should be (N, C, H, W)")
    n, c, h, w = x.shape
    y, mean, rstd = torch.ops.aten.native_group_norm(up(x), up(weight), up(bias), n, c, h * w,
                                                     group, eps)
    return (torch.nn.functional.silu(y).to(x.dtype), mean.to(x.dtype), rstd.to(x.dtype))


def more_cases(g):
    """The other NPU ops (called after cases(), so the first cases keep their data)."""
    g.register("NPU.npu_scaled_masked_softmax", scaled_masked_softmax)
    g.register("NPU.npu_fast_gelu", fast_gelu)
    g.register("NPU.npu_confusion_transpose", confusion_transpose)
    g.register("NPU.npu_linear", torch.nn.functional.linear)
    g.register("NPU.npu_layer_norm_eval", layer_norm_eval)
    g.register("NPU.npu_mish", torch.nn.functional.mish)
    g.register("NPU.npu_apply_adam", apply_adam)
    g.register("NPU.npu_apply_adam_w", apply_adam_w)
    rnd, S, case = g.rnd, g.S, g.case
    sms = "NPU.npu_scaled_masked_softmax"
    for dt in g.FLOATS:
        case(sms, [rnd([2, 2, 4, 6], dt), torch.rand(2, 1, 4, 6) > 0.6], {"scale": S(0.5)})
    case(sms, [rnd([2, 3, 5, 5], "bf16", scale=4), torch.zeros(2, 3, 5, 5, dtype=torch.bool), S(1.0), S(True)])
    case(sms, [rnd([1, 2, 9, 9], "f16"), torch.zeros(1, 1, 9, 9, dtype=torch.bool)],
         {"scale": S(0.125), "fixed_triu_mask": S(True)})
    case(sms, [rnd([3, 16], "f32"), torch.rand(3, 16) > 0.5], {"scale": S(2.0)})
    case(sms, [rnd([2, 20], "f64"), torch.rand(20) > 0.3])

    for dt in g.FLOATS:
        case("NPU.npu_fast_gelu", [rnd([3, 7], dt, scale=3)])
    case("NPU.npu_fast_gelu", [g.special("f32")], backward=False)
    case("NPU.npu_fast_gelu", [torch.tensor([0.0, -0.0, 1e-8, -30.0, 30.0, 100.0, -100.0])])

    ct = "NPU.npu_confusion_transpose"
    for dt in ("bf16", "f32", "f64"):
        case(ct, [rnd([2, 3, 4], dt), [0, 2, 1], [2, 12], S(True)])
        case(ct, [rnd([2, 12], dt), [1, 0, 2], [2, 3, 4], S(False)])
    case(ct, [rnd([2, 6, 8], "f16"), [0, 2, 1, 3], [2, 6, 2, 4], S(False)])
    case(ct, [rnd([2, 3, 4], "f32"), [0, 2, 1], [5, 5], S(True)])

    for dt in g.FLOATS:
        case("NPU.npu_linear", [rnd([3, 4], dt), rnd([5, 4], dt), rnd([5], dt)])
    case("NPU.npu_linear", [rnd([2, 3, 4], "f32"), rnd([5, 4], "f32")])

    lne = "NPU.npu_layer_norm_eval"
    for dt in ("bf16", "f32", "f64"):
        case(lne, [rnd([3, 8], dt), [8]], {"weight": rnd([8], dt), "bias": rnd([8], dt), "eps": S(1e-3)})
    case(lne, [rnd([2, 3, 4], "f32"), [3, 4]])

    for dt in ("f16", "f32", "f64"):
        case("NPU.npu_mish", [rnd([2, 5], dt)])

    def adam_state(dt, n=(3, 4)):
        return [rnd(list(n), dt), rnd(list(n), dt, scale=0.1), rnd(list(n), dt, scale=0.01, positive=True)]

    for dt in g.FLOATS:
        case("NPU.npu_apply_adam", [S(0.9 ** 3), S(0.999 ** 3), S(1e-3), S(0.9), S(0.999), S(1e-8),
                                    rnd([3, 4], dt, scale=0.1), S(False), S(False)],
             {"out": adam_state(dt)})
        case("NPU.npu_apply_adam_w", [S(0.9 ** 3), S(0.999 ** 3), S(1e-3), S(0.01), S(0.9), S(0.999),
                                      S(1e-8), rnd([3, 4], dt, scale=0.1), None, S(False), S(False)],
             {"out": adam_state(dt)})
    case("NPU.npu_apply_adam", [S(0.9), S(0.999), S(0.01), S(0.9), S(0.999), S(1e-6),
                                rnd([7], "f32", scale=0.1), S(False), S(True)], {"out": adam_state("f32", (7,))})
    case("NPU.npu_apply_adam_w", [S(1.0), S(0.5), S(0.01), S(0.1), S(1.0), S(0.9), S(1e-6),
                                  rnd([7], "f32", scale=0.1), None, S(False), S(True)],
         {"out": adam_state("f32", (7,))})
    case("NPU.npu_apply_adam_w", [S(0.9), S(0.999), S(1e-3), S(0.01), S(0.9), S(0.999), S(1e-8),
                                  rnd([3], "f32"), rnd([3], "f32"), S(True), S(False)],
         {"out": adam_state("f32", (3,))})

    g.register("NPU.npu_group_norm_silu", group_norm_silu)
    gns = "NPU.npu_group_norm_silu"
    for dt in g.FLOATS:
        case(gns, [rnd([2, 6, 3, 4], dt), rnd([6], dt), rnd([6], dt), S(3)], {"eps": S(1e-5)})
    case(gns, [rnd([1, 4, 5, 5], "f32", scale=4) + 2, None, None, S(2)])
    case(gns, [rnd([2, 8, 16, 16], "f32"), rnd([8], "f32"), rnd([8], "f32"), S(2), S(1e-6)])
    case(gns, [rnd([2, 6, 4], "f32"), rnd([6], "f32"), rnd([6], "f32"), S(3)])
