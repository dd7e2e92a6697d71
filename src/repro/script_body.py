
# ---- from here on the same in every script precheck writes ----
import argparse
import math
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# msprobe's bench rule: the CPU bench computes float16/bfloat16 in float32, float32 in float64
RAISED = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64}
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# run_ut's details CSV (accuracy_checking_details_*.csv): the metric columns, in order
COLUMNS = ["余弦相似度", "最大绝对误差", "双百指标", "双千指标", "双万指标", "二进制一致错误率",
           "误差均衡性", "均方根误差", "小值域错误占比", "相对误差最大值", "相对误差平均值",
           "inf/nan错误率", "相对误差错误率", "绝对误差错误率", "ULP误差最大值", "ULP误差平均值",
           "ULP误差大于阈值占比"]
ENGLISH = ["cosine similarity", "max absolute error", "relative errors within 1%",
           "relative errors within 0.1%", "relative errors within 0.01%", "binary mismatch rate",
           "error balance", "root mean square error", "small-value error ratio",
           "max relative error", "mean relative error", "inf/nan mismatch rate",
           "relative error rate", "absolute error rate", "max ULP error", "mean ULP error",
           "ULP errors above the threshold"]
(COS, MAX_ABS, HUNDREDTH, THOUSANDTH, TEN_THOUSANDTH, ERROR_RATE, EB, RMSE, SMALL, MAX_REL,
 MEAN_REL, INF_NAN, REL_RATIO, ABS_RATIO, ULP_MAX, ULP_MEAN, ULP_SHARE) = range(17)
SPACE = " "


# ---- the device ----

def pick_device(wanted):
    """The device under test: an NPU when torch_npu imports and sees one, else a CUDA GPU, else
    this CPU (said so: torch's CPU kernels are then judged against the bench)."""
    if wanted in (None, "npu"):
        try:
            import torch_npu  # noqa: F401  (registers the npu device with torch)
            if torch.npu.is_available():
                return torch.device("npu:0"), "npu:0 (torch_npu)"
        except ImportError:
            if wanted == "npu":
                sys.exit("--device npu: torch_npu does not import in this Python")
    if wanted in (None, "cuda") and torch.cuda.is_available():
        return torch.device("cuda:0"), "cuda:0 (%s)" % torch.cuda.get_device_name(0)
    if wanted == "cuda":
        sys.exit("--device cuda: torch sees no CUDA GPU")
    if wanted is None:
        print("No NPU (torch_npu) and no CUDA GPU found: the device under test is this CPU, "
              "torch's own CPU kernels.")
    return torch.device("cpu"), "cpu"


# ---- the inputs ----

class Tensor:
    """A tensor argument as the dump records it: dtype, shape, the statistics it was drawn
    from, and the file that holds it (real_data and precheck's inputs)."""

    def __init__(self, dtype, shape, low, high, file=None):
        self.dtype, self.shape, self.low, self.high, self.file = dtype, shape, low, high, file


class Device:
    """A torch.device argument: becomes the device under test (or the CPU on the bench)."""


DEVICE = Device()


def dtype_of(name):
    d = getattr(torch, name.replace("torch.", ""), None)
    if not isinstance(d, torch.dtype):
        sys.exit("this torch has no dtype %s" % name)
    return d


def make_tensor(spec, gen):
    dtype = dtype_of(spec.dtype)
    if DATA_MODE != "random_data":
        path = spec.file if os.path.isabs(spec.file) else os.path.join(HERE, spec.file)
        t = torch.load(path, map_location="cpu")
        if t.dtype != dtype:
            t = t.to(dtype)
        return t
    shape = list(spec.shape)
    low, high = spec.low, spec.high
    if dtype == torch.bool:
        if low is not None and low == high:
            return torch.full(shape, bool(low), dtype=torch.bool)
        return torch.randint(0, 2, shape, generator=gen).to(torch.bool)
    if not dtype.is_floating_point and not dtype.is_complex:
        lo = int(low) if low is not None and math.isfinite(low) else -100
        hi = int(high) if high is not None and math.isfinite(high) else 100
        return torch.randint(lo, hi + 1, shape, generator=gen, dtype=torch.int64).to(dtype)
    lo = low if low is not None and math.isfinite(low) else -1.0
    hi = high if high is not None and math.isfinite(high) else 1.0
    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    return (lo + (hi - lo) * u).to(dtype)


def realise(x, gen):
    """The dump's argument tree with every Tensor made (on the CPU, in the dumped dtype)."""
    if isinstance(x, Tensor):
        return make_tensor(x, gen)
    if isinstance(x, list):
        return [realise(v, gen) for v in x]
    if isinstance(x, tuple):
        return tuple(realise(v, gen) for v in x)
    if isinstance(x, dict):
        return {k: realise(v, gen) for k, v in x.items()}
    return x


def place(x, device, bench, grad, leaves):
    """A copy of a realised tree for one side: tensors on that side's device (the bench raises
    the dtype by msprobe's rule), floating tensors made leaves that require grad when a
    backward follows (collected in leaves, in order)."""
    if isinstance(x, torch.Tensor):
        t = x.detach().clone()
        if bench and t.dtype in RAISED and (RAISE_BENCH == "all" or (
                RAISE_BENCH == "half" and t.dtype != torch.float32)):
            t = t.to(RAISED[t.dtype])
        t = t.to(device)
        if grad and t.dtype in FLOATS:
            t.requires_grad_(True)
            leaves.append(t)
        return t
    if isinstance(x, Device):
        return device
    if isinstance(x, list):
        return [place(v, device, bench, grad, leaves) for v in x]
    if isinstance(x, tuple):
        return tuple(place(v, device, bench, grad, leaves) for v in x)
    if isinstance(x, dict):
        return {k: place(v, device, bench, False, leaves) for k, v in x.items()}
    return x


# ---- the call ----

def api_function():
    if API_TYPE == "Functional":
        return getattr(torch.nn.functional, API_NAME)
    if API_TYPE == "Tensor":
        return getattr(torch.Tensor, API_NAME)
    if API_TYPE == "Torch":
        f = torch
        for part in API_NAME.split("."):
            f = getattr(f, part)
        return f
    if API_TYPE == "NPU":
        import torch_npu
        return getattr(torch_npu, API_NAME)
    if API_TYPE == "Aten":
        f = torch.ops.aten
        for part in API_NAME.split("."):
            f = getattr(f, part)
        return f
    sys.exit("API type %s cannot be called" % API_TYPE)


def flatten(out):
    if isinstance(out, (list, tuple)):
        items = []
        for o in out:
            items.extend(flatten(o) if isinstance(o, (list, tuple)) else [o])
        return items
    return [out]


def run_side(func, args, kwargs, grads, device, bench):
    backward = PROPAGATION == "backward"
    leaves = []
    a = place(args, device, bench, backward, leaves)
    positional = [t for t in a if isinstance(t, torch.Tensor) and t.requires_grad]
    k = place(kwargs, device, bench, False, leaves)
    out = func(*a, **k)
    if not backward:
        return flatten(out)
    g = place(grads[0], device, bench, False, [])
    target = out
    if isinstance(out, (list, tuple)):
        target = out[GRAD_INDEX if GRAD_INDEX is not None else 0]
    if not positional:
        return []
    got = torch.autograd.grad(target, positional, grad_outputs=g, allow_unused=True)
    return list(got)


# ---- the comparison: run_ut's metrics (docs/metrics.md) in torch ----

def f32_text(x):
    """numpy's repr of a float32 scalar: the shortest digits that round-trip."""
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    x32 = struct.unpack("f", struct.pack("f", x))[0]
    for p in range(1, 10):
        s = "%.*g" % (p, x32)
        if struct.unpack("f", struct.pack("f", float(s)))[0] == x32:
            break
    v = float(s)
    if v == 0 or 1e-4 <= abs(v) < 1e16:
        t = repr(v)
        return t
    m, e = ("%.*e" % (max(p - 1, 0), v)).split("e")
    if "." in m:
        m = m.rstrip("0").rstrip(".")
    return "%se%s%02d" % (m, e[0], abs(int(e)))


def cell(x, kind):
    if isinstance(x, int):
        return str(x)
    if kind == torch.float32:
        return f32_text(float(x))
    return "%.14f" % float(x)


def ratio(num, den):
    return 0 if den == 0 else num / den


def compare_tensor(name, b, d):
    """One details row: (bench dtype, device dtype, shape, cells, status, message)."""
    cells = [SPACE] * 17
    msg = []
    D = d.dtype
    bench_dtype, device_dtype, shape = str(b.dtype), str(D), str(tuple(d.shape))
    b = b.detach().cpu()
    d = d.detach().cpu()
    if D == torch.bfloat16:
        b, d = b.float(), d.float()
    elif b.dtype == torch.bfloat16:
        return bench_dtype, device_dtype, shape, cells, "error", "Got unsupported ScalarType BFloat16"
    if b.shape != d.shape:
        return (bench_dtype, device_dtype, shape, cells, "error",
                "The shape of bench%s and npu%s not equal." % (b.shape, d.shape))
    ints = (torch.int32, torch.int64)
    comparable = ((b.dtype.is_floating_point and d.dtype.is_floating_point) or
                  (b.dtype in (torch.bool, torch.uint8) and d.dtype in (torch.bool, torch.uint8)) or
                  (b.dtype in ints and d.dtype in ints))
    if not comparable:
        return (bench_dtype, device_dtype, shape, cells, "error",
                "Bench out dtype is %s but npu output dtype is %s, cannot compare." % (b.dtype, d.dtype))
    n = d.numel()
    if n == 0:
        return bench_dtype, device_dtype, shape, cells, "error", "There is not bench calculation result."
    if not b.dtype.is_floating_point:
        rate = (b.long() != d.long()).sum().item() / n
        cells[ERROR_RATE] = cell(rate, torch.float64)
        return (bench_dtype, device_dtype, shape, cells, "pass" if rate == 0 else "error",
                "Compare algorithm is not supported for %s data. Only judged by Error Rate.\n"
                % str(b.dtype).replace("torch.", ""))
    std = STANDARD
    if D not in (torch.float16, torch.bfloat16, torch.float32):
        msg.append("The data type %s is not supported for new precision standard." % D)
        std = None
    th = THRESHOLDS.get(str(D), THRESHOLDS["other"])
    b = b.reshape(-1)
    d = d.reshape(-1)
    tb, td = b.dtype, d.dtype
    tp = torch.promote_types(tb, td)
    eps = th["bench_eps"] if th["bench_eps"] else torch.finfo(tb).eps
    ab = b.abs()
    abe = ab + eps
    ae = (d.to(tp) - b.to(tp)).abs()
    rel = ae / abe
    bc = b.to(td)
    finite = torch.isfinite(d) & torch.isfinite(bc)

    # cosine similarity
    md, mb = d.abs().max().item(), ab.max().item()
    cos_pass, cos_msg, cos = True, "", None
    if n == 1:
        cos_msg = "All the data in device dump data is scalar. Please refer to other compare algorithms."
    elif md <= 2.220446049250313e-16 and mb <= 2.220446049250313e-16:
        cos_msg = "All the data in device and bench outputs are zero."
    elif md <= 2.220446049250313e-16:
        cos_pass, cos_msg = False, "All the data is zero in device dump data."
    elif mb <= 2.220446049250313e-16:
        cos_pass, cos_msg = False, "All the data is zero in bench dump data."
    else:
        dd, bb = d.double(), b.double()
        cos = (dd * bb).sum().item() / (math.sqrt((dd * dd).sum().item()) * math.sqrt((bb * bb).sum().item()))
        if math.isnan(cos):
            cos_msg = "Dump data has NaN when comparing with Cosine Similarity."
        cos = min(max(cos, -1.0), 1.0) if not math.isnan(cos) else cos
        cos_pass = cos > 0.99
        cells[COS] = cell(cos, torch.float64)
    max_ae = ae.max().item()
    ratios = [(rel < t).sum().item() / n for t in (0.01, 0.001, 0.0001)]

    if std in ("benchmark",):
        small = finite & (ab <= th["small_value"])
        cells[SMALL] = cell(ratio((small & (ae > th["small_value_atol_bench"])).sum().item(),
                                  small.sum().item()), torch.float64)
        masked = small | ~finite
        e = torch.where(masked, torch.zeros_like(ae), ae)
        mse = (e * e).mean().item()
        factor = n / ((n - masked.sum().item()) + 0.0001) + 0.0001
        cells[RMSE] = cell(math.sqrt(mse * factor), torch.float64)
        relb = rel[~masked]
        cells[MAX_REL] = cell(relb.max().item(), rel.dtype) if relb.numel() else "0"
        cells[MEAN_REL] = cell(relb.mean().item(), rel.dtype) if relb.numel() else "0"
    if std in ("benchmark", "accumulative"):
        diff = d - bc
        cells[EB] = cell(abs((diff > 0).sum().item() - (diff < 0).sum().item()) / n, torch.float64)
    if std in ("absolute", "accumulative"):
        acc = std == "accumulative"
        rtol = th["accum_bound"] if acc else th["rtol"]
        small = finite & (ab <= (th["accum_small_value"] if acc else th["small_value"]))
        normal = finite & ~small
        atol = th["accum_bound"] if acc else th["small_value_atol_abs"]
        bad = ~finite
        hi = 3.3895313892515355e38 if D == torch.bfloat16 else torch.finfo(td).max
        gc = bc[bad].clamp(-hi, hi)
        dc = d[bad].clamp(-hi, hi)
        re = (dc - gc).abs() / abe[bad]
        fail = ~((re <= rtol) | (torch.isnan(d[bad]) & torch.isnan(gc)))
        cells[INF_NAN] = cell(ratio(fail.sum().item(), bad.sum().item()), torch.float64)
        cells[REL_RATIO] = cell(ratio((normal & (rel > rtol)).sum().item(), normal.sum().item()),
                                torch.float64)
        cells[ABS_RATIO] = cell(ratio((small & (ae > atol)).sum().item(), small.sum().item()),
                                torch.float64)
    if std == "ulp":
        C = torch.float64 if D == torch.float32 else torch.float32
        ex = torch.where(ab == 0, torch.zeros_like(ab), torch.floor(torch.log2(ab)))
        ex = torch.clamp(ex, min=th["ulp_min_exp"])
        scale = torch.pow(2.0, th["ulp_mantissa_bits"] - ex.double()).to(C)
        ulp = ((d.to(C) - b.to(C)).to(C) * scale).abs()
        cells[ULP_MAX] = cell(ulp.max().item(), C)
        cells[ULP_MEAN] = cell(ulp.mean().item(), C)
        cells[ULP_SHARE] = cell((ulp > th["ulp_threshold"]).sum().item() / n, torch.float64)
    if std == "thousandth":
        cells[THOUSANDTH] = cell(ratios[1], torch.float64)

    # run_ut's status: cosine, max absolute error, then the shares of small relative errors
    msg.append(cos_msg + "\n")
    if not cos_pass:
        msg.append("Cosine similarity is less than 0.99, consider as error, skip other check and set to SPACE.\n")
        return bench_dtype, device_dtype, shape, cells, "error", "".join(msg)
    cells[MAX_ABS] = cell(max_ae, tp)
    if max_ae < 0.001:
        msg.append("Max abs error is less than 0.001, consider as pass, skip other check and set to SPACE.\n")
        return bench_dtype, device_dtype, shape, cells, "pass", "".join(msg)
    half = D in (torch.float16, torch.bfloat16)
    if half:
        cells[HUNDREDTH] = cell(ratios[0], torch.float64)
        if not ratios[0] > 1.0 - 0.01:
            msg.append("Relative error is greater than 0.01, consider as error, skip other check and set to SPACE.\n")
            return bench_dtype, device_dtype, shape, cells, "error", "".join(msg)
    cells[THOUSANDTH] = cell(ratios[1], torch.float64)
    ok = ratios[1] > 1.0 - 0.001
    if half:
        if ok:
            msg.append("Relative error is less than 0.001, consider as pass, skip other check and set to SPACE.\n")
            return bench_dtype, device_dtype, shape, cells, "pass", "".join(msg)
        msg.append("Relative error is greater than 0.001, consider as warning, skip other check and set to SPACE.\n")
        return bench_dtype, device_dtype, shape, cells, "Warning", "".join(msg)
    cells[TEN_THOUSANDTH] = cell(ratios[2], torch.float64)
    if D in (torch.float32, torch.float64):
        if not ok:
            msg.append("Relative error is greater than 0.001, consider as error, skip other check and set to SPACE.\n")
            return bench_dtype, device_dtype, shape, cells, "error", "".join(msg)
        if not ratios[2] > 1.0 - 0.0001:
            msg.append("Relative error is greater than 0.0001, consider as warning, skip other check and set to SPACE.\n")
            return bench_dtype, device_dtype, shape, cells, "Warning", "".join(msg)
        msg.append("Relative error is less than 0.0001, consider as pass.\n")
        return bench_dtype, device_dtype, shape, cells, "pass", "".join(msg)
    return bench_dtype, device_dtype, shape, cells, "pass", "".join(msg)


def compare_item(name, b, d):
    if d is None or b is None:
        return "", "", "", [SPACE] * 17, "SKIP", "There is no output to compare (None)."
    if isinstance(b, torch.Tensor) and isinstance(d, torch.Tensor):
        return compare_tensor(name, b, d)
    if isinstance(b, (bool, int, float)) and type(b) == type(d):
        same = b == d
        cells = [SPACE] * 17
        cells[ERROR_RATE] = "0" if same else "1"
        return (type(b).__name__, type(d).__name__, "[]", cells, "pass" if same else "error", "")
    return "", "", "", [SPACE] * 17, "error", "The bench and device outputs are not the same type."


def verdict_of_standard(std, cells, dtype):
    """The standard's own verdict where one machine can give it (absolute, binary, ULP);
    the benchmark and accumulative standards compare against a GPU run."""
    def val(i):
        return None if cells[i] == SPACE else float(cells[i])
    if std == "absolute":
        bad = [ENGLISH[i] for i in (INF_NAN, REL_RATIO, ABS_RATIO) if val(i)]
        return "pass" if not bad else "error (%s above 0)" % ", ".join(bad)
    if std == "binary":
        return "pass" if not val(ERROR_RATE) else "error (binary mismatch rate above 0)"
    if std == "ulp" and val(ULP_SHARE) is not None:
        limit = 0.05 if dtype == torch.float32 else 0.001
        return "%s (share of ULP errors above the threshold %s, limit %g)" % (
            "pass" if val(ULP_SHARE) <= limit else "error", cells[ULP_SHARE], limit)
    return "judged by api_precision_compare against a GPU run's figures"


def main():
    parser = argparse.ArgumentParser(description="Replays %s (%s) on a device and on the CPU bench, "
                                     "and prints run_ut's metrics and verdict per output." % (API_FULL_NAME, PROPAGATION))
    parser.add_argument("--device", choices=("npu", "cuda", "cpu"),
                        help="the device under test (default: npu if torch_npu imports, else cuda, else cpu)")
    parser.add_argument("--csv", metavar="FILE",
                        help="also write the rows as run_ut's details CSV (accuracy_checking_details)")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="torch's intra-op threads on the CPU (a CPU device's sums depend on them; "
                        "precheck's torch backend logs the count it used)")
    opts = parser.parse_args()
    if opts.threads:
        torch.set_num_threads(opts.threads)
    device, device_text = pick_device(opts.device)
    print("%s %s: device %s, bench cpu (float16/bfloat16 in float32, float32 in float64), torch %s, "
          "%d intra-op threads" % (API_FULL_NAME, PROPAGATION, device_text, torch.__version__,
                                   torch.get_num_threads()))
    print("inputs: %s" % INPUTS_TEXT)
    func = api_function()
    gen = torch.Generator().manual_seed(RANDOM_SEED)
    rows = []
    for it in range(ITER_TIMES if DATA_MODE == "random_data" else 1):
        spec_args, spec_kwargs, spec_grads = inputs()
        args, kwargs = realise(spec_args, gen), realise(spec_kwargs, gen)
        grads = realise(spec_grads, gen) if PROPAGATION == "backward" else None
        torch.manual_seed(RANDOM_SEED)
        dev_out = run_side(func, args, kwargs, grads, device, False)
        torch.manual_seed(RANDOM_SEED)
        bench_out = run_side(func, args, kwargs, grads, torch.device("cpu"), True)
        if ITER_TIMES > 1 and DATA_MODE == "random_data":
            print("iteration %d:" % it)
        for i in range(max(len(dev_out), len(bench_out))):
            name = "%s.%s.output.%d" % (API_FULL_NAME, PROPAGATION, i)
            b = bench_out[i] if i < len(bench_out) else None
            d = dev_out[i] if i < len(dev_out) else None
            bd, dd, shape, cells, status, message = compare_item(name, b, d)
            std = STANDARD if isinstance(d, torch.Tensor) and d.dtype in FLOATS else "binary"
            rows.append([name, bd, dd, shape] + cells + [status, message])
            print("\n%s  shape %s  device %s  bench %s" % (name, shape, dd, bd))
            print("  standard: %s" % std)
            for k in range(17):
                if cells[k] != SPACE:
                    print("  %-34s %s" % ("%s (%s)" % (ENGLISH[k], COLUMNS[k]), cells[k]))
            print("  standard's verdict: %s" % verdict_of_standard(std, cells, d.dtype if isinstance(d, torch.Tensor) else None))
            print("  run_ut's Status: %s  %s" % (status, message.strip().replace("\n", " ")))
    worst = "pass"
    for r in rows:
        if r[-2] == "error" or (r[-2] == "Warning" and worst == "pass") or (r[-2] == "SKIP" and worst == "pass"):
            worst = r[-2] if worst != "error" else worst
    print("\n%s %s: %s (run_ut's word for this direction: error if any row is error, else "
          "Warning if any is, else pass)" % (API_FULL_NAME, PROPAGATION, worst))
    if EXPECTED:
        print("precheck's row on the machine that wrote this script: %s" % EXPECTED)
    if opts.csv:
        import csv
        with open(opts.csv, "w", newline="", encoding="utf-8-sig") as f:
            w = csv.writer(f)
            w.writerow(["API Name", "Bench Dtype", "DEVICE Dtype", "Shape"] + COLUMNS + ["Status", "Message"])
            w.writerows(rows)
    return 0 if worst in ("pass", "Warning") else 1


if __name__ == "__main__":
    sys.exit(main())
