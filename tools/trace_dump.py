#!/usr/bin/python3
"""A small API tracer that writes msprobe-style dumps (statistics or tensor mode) of toy steps.

precheck's coverage test needs dumps of LLaMA-, BERT-, ViT-, MoE- and ResNet-style training
steps, and no msprobe is at hand. This script stands in for msprobe's L1 dumper: for the length
of one training step (forward, loss, backward) it wraps the torch.nn.functional, torch.Tensor
and torch functions that msprobe's support_wrap_ops.yaml names (the lists below, taken from the
project's notes on that file), records each outermost wrapped call as
"<Functional|Tensor|Torch>.<name>.<n>.forward" with statistics of its arguments and outputs,
and records the gradients flowing through the autograd node of the call's first output tensor
as "<...>.<n>.backward". The file follows msprobe's dump.json format in statistics mode
(task "statistics", level "L1", dump_data_dir null); it is written from the format's
description, not from msprobe's code.

Run with Debian's Python, which has torch 1.13 (CPU):
    /usr/bin/python3 tools/trace_dump.py                 # every model into tests/fixtures/coverage
    /usr/bin/python3 tools/trace_dump.py --out DIR llama resnet
    /usr/bin/python3 tools/trace_dump.py --check         # against the real msprobe dumps
    /usr/bin/python3 tools/trace_dump.py --tensor        # tensor-mode dumps: tests/fixtures/check_dump

Each model writes DIR/<model>/dump.json. --check rebuilds the models of the real msprobe dumps
in tests/fixtures/msprobe/dumps, traces them and compares the records (names, order, argument
types, dtypes, shapes, scalar values, backward records) with msprobe's, then recomputes the
statistics of the saved tensors of the tensor-mode dumps.
"""
import argparse
import json
import math
import os
import shutil
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

# ---- the names msprobe wraps (support_wrap_ops.yaml: functional, tensor, torch sections) ----

FUNCTIONAL_NAMES = """
conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d conv_tbc avg_pool1d
avg_pool2d avg_pool3d fractional_max_pool2d_with_indices fractional_max_pool2d
fractional_max_pool3d_with_indices fractional_max_pool3d max_pool1d_with_indices max_pool1d
max_pool2d_with_indices max_pool2d max_pool3d_with_indices max_pool3d max_unpool1d max_unpool2d
max_unpool3d lp_pool2d lp_pool1d adaptive_max_pool1d_with_indices adaptive_max_pool1d
adaptive_max_pool2d_with_indices adaptive_max_pool2d adaptive_max_pool3d_with_indices
adaptive_max_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d dropout
alpha_dropout dropout2d dropout3d feature_alpha_dropout threshold threshold_ relu relu_ glu
hardtanh hardtanh_ relu6 elu elu_ selu selu_ celu celu_ leaky_relu leaky_relu_ prelu rrelu
rrelu_ logsigmoid gelu hardshrink tanhshrink softsign softplus softmin softmax gumbel_softmax
log_softmax softshrink tanh sigmoid hardsigmoid linear bilinear silu hardswish embedding
embedding_bag batch_norm instance_norm layer_norm group_norm local_response_norm ctc_loss
nll_loss poisson_nll_loss gaussian_nll_loss kl_div cross_entropy binary_cross_entropy
binary_cross_entropy_with_logits smooth_l1_loss l1_loss mse_loss margin_ranking_loss
hinge_embedding_loss multilabel_margin_loss soft_margin_loss multilabel_soft_margin_loss
cosine_embedding_loss multi_margin_loss pixel_shuffle pixel_unshuffle channel_shuffle upsample
interpolate upsample_nearest upsample_bilinear grid_sample affine_grid pad pairwise_distance
pdist cosine_similarity one_hot triplet_margin_loss triplet_margin_with_distance_loss normalize
unfold fold multi_head_attention_forward scaled_dot_product_attention lp_pool3d dropout1d mish
huber_loss
""".split()

TENSOR_NAMES = """
__add__ __and__ __bool__ __div__ __eq__ __floordiv__ __ge__ __gt__ __iadd__ __iand__ __idiv__
__ifloordiv__ __ilshift__ __imod__ __imul__ __ior__ __ipow__ __irshift__ __isub__ __ixor__
__le__ __lshift__ __lt__ __matmul__ __mod__ __mul__ __ne__ __nonzero__ __or__ __pow__ __radd__
__rdiv__ __rmod__ __rmul__ __ror__ __rpow__ __rshift__ __rsub__ __rxor__ __setitem__ __sub__
__truediv__ __xor__ abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_
addcdiv addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint align_as align_to
all allclose amax amin aminmax angle any arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere asin
asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_ baddbmm baddbmm_ bernoulli bernoulli_
bfloat16 bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not
bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor
bitwise_xor_ bmm bool broadcast_to byte cauchy_ ceil ceil_ cfloat char cholesky cholesky_inverse
cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_
conj_physical copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cov cummax cummin
cumprod cumprod_ cumsum cumsum_ deg2rad deg2rad_ det diag diag_embed diagflat diagonal
diagonal_scatter diff digamma digamma_ dist div div_ divide divide_ dot double dsplit eig eq eq_
equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_
exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float float_power
float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp
gather gcd gcd_ ge ge_ geometric_ geqrf ger greater greater_ greater_equal greater_equal_ gt gt_
half hardshrink heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_
igammac igammac_ index_add index_add_ index_copy index_copy_ index_fill index_fill_ index_put
index_put_ index_select inner int inverse isclose isfinite isinf isnan isneginf isposinf isreal
kron kthvalue lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma
lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp
logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not logical_not_ logical_or
logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve map2_
map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
matrix_power max maximum mean median min minimum mm mode moveaxis movedim msort mul mul_
multinomial multiply multiply_ mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean nanmedian
nanquantile nansum narrow narrow_copy ne ne_ neg neg_ negative negative_ nextafter nextafter_
nonzero norm normal_ not_equal not_equal_ numpy orgqr ormqr outer permute pinverse polygamma
polygamma_ pow pow_ prelu prod put_ q_zero_point qr quantile rad2deg rad2deg_ ravel reciprocal
reciprocal_ relu relu_ remainder remainder_ renorm renorm_ repeat repeat_interleave reshape
reshape_as resize_ resize_as_ resolve_neg roll rot90 round round_ rsqrt rsqrt_ scatter scatter_
scatter_add scatter_add_ select sgn sgn_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc
sinc_ sinh sinh_ slice_scatter slogdet smm softmax solve sort split split_with_sizes sqrt sqrt_
square square_ squeeze squeeze_ sspaddmm std stft stride sub sub_ subtract sum sum_to_size svd
swapaxes swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split
tile to topk transpose transpose_ triangular_solve tril tril_ triu triu_ true_divide
true_divide_ trunc trunc_ type_as unbind unflatten unfold unique unique_consecutive unsafe_chunk
unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ var vdot view_as vsplit where xlogy
xlogy_
""".split()

TORCH_NAMES = """
linalg.norm linalg.vector_norm linalg.matrix_norm linalg.diagonal linalg.det linalg.slogdet
linalg.cond linalg.matrix_rank linalg.qr linalg.lu linalg.lu_factor linalg.svd linalg.svdvals
linalg.solve linalg.lstsq linalg.inv linalg.pinv linalg.matrix_exp linalg.matrix_power
linalg.cross linalg.matmul linalg.vecdot linalg.multi_dot linalg.householder_product
linalg.tensorsolve linalg.vander linalg.cholesky_ex linalg.inv_ex linalg.solve_ex
linalg.lu_factor_ex linalg.ldl_factor linalg.ldl_factor_ex _adaptive_avg_pool2d _add_relu
_add_relu_ _aminmax _batch_norm_impl_index _convolution _foreach_norm _fused_adamw_
_softmax_backward_data abs abs_ absolute acos acos_ acosh acosh_ adaptive_avg_pool1d
adaptive_max_pool1d add addbmm addcdiv addcmul addmm addmv addmv_ addr affine_grid_generator
align_tensors all alpha_dropout alpha_dropout_ amax amin aminmax angle any arange arccos arccos_
arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan_ arctanh arctanh_ argmax
argmin argsort argwhere asin asin_ asinh asinh_ atan atan2 atan_ atanh atanh_ atleast_1d
atleast_2d atleast_3d avg_pool1d baddbmm bartlett_window batch_norm_backward_elemt
batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats
batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats bernoulli bilinear
binary_cross_entropy_with_logits bincount binomial bitwise_and bitwise_not bitwise_or
bitwise_xor blackman_window block_diag bmm broadcast_tensors broadcast_to bucketize
cartesian_prod cat cdist ceil ceil_ celu celu_ chain_matmul channel_shuffle cholesky
cholesky_inverse cholesky_solve choose_qparams_optimized chunk clamp clamp_ clamp_max clamp_max_
clamp_min clamp_min_ clip clip_ clone column_stack combinations concat concatenate
constant_pad_nd conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d
convolution copysign cos cos_ cosh cosh_ cosine_embedding_loss cosine_similarity count_nonzero
cov cross ctc_loss cummax cummin cumprod cumsum cumulative_trapezoid deg2rad deg2rad_ det diag
diag_embed diagflat diagonal diagonal_scatter diff digamma dist div divide dot dropout dropout_
dsmm dsplit dstack eig einsum embedding embedding_bag embedding_renorm_ empty empty_like eq
equal erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_ expm1 expm1_ eye feature_alpha_dropout
feature_alpha_dropout_ feature_dropout feature_dropout_ fill_ fix fix_ flatten flip fliplr
flipud float_power floor floor_ floor_divide fmax fmin fmod frac frac_ frexp frobenius_norm full
full_like gather gcd gcd_ ge geqrf ger greater greater_equal grid_sampler grid_sampler_2d
grid_sampler_3d group_norm gru gru_cell gt hamming_window hann_window hardshrink heaviside
hinge_embedding_loss histc histogram histogramdd hsmm hsplit hspmm hstack hypot i0 i0_ igamma
igammac index_add index_copy index_fill index_put index_put_ index_select inner instance_norm
inverse isclose isfinite isin isinf isnan isneginf isposinf istft kaiser_window kl_div kron
kthvalue layer_norm lcm lcm_ ldexp ldexp_ le lerp less less_equal lgamma linspace log log10
log10_ log1p log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2 logcumsumexp logdet
logical_and logical_not logical_or logical_xor logit logit_ logspace logsumexp lstm lstm_cell
lstsq lt lu_solve lu_unpack margin_ranking_loss masked_fill masked_scatter masked_select matmul
matrix_exp matrix_power matrix_rank max max_pool1d max_pool1d_with_indices max_pool2d max_pool3d
maximum mean median min minimum mm mode moveaxis movedim msort mul multinomial multiply mv
mvlgamma nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy
native_batch_norm native_group_norm native_layer_norm native_norm ne neg neg_ negative negative_
nextafter nonzero norm norm_except_dim normal not_equal nuclear_norm ones_like outer
pairwise_distance pdist permute pinverse pixel_shuffle pixel_unshuffle poisson poisson_nll_loss
polar polygamma pow prelu prod qr quantile rad2deg rad2deg_ range ravel real reciprocal
reciprocal_ relu relu_ remainder renorm repeat_interleave reshape resize_as_ resolve_neg roll
rot90 round round_ row_stack rrelu rrelu_ rsqrt rsqrt_ rsub saddmm scalar_tensor scatter
scatter_add searchsorted select selu selu_ sgn sigmoid sigmoid_ sign signbit sin sin_ sinc sinc_
sinh sinh_ slogdet smm softmax solve sort sparse_coo_tensor split split_with_sizes spmm sqrt
sqrt_ square square_ squeeze sspaddmm stack std std_mean stft sub subtract sum svd swapaxes
swapdims symeig t take take_along_dim tan tan_ tanh tanh_ tensor_split tensordot threshold
threshold_ tile topk transpose trapz triangular_solve tril tril_indices triplet_margin_loss triu
triu_indices true_divide trunc trunc_ unbind unflatten unique_consecutive unsafe_chunk
unsafe_split unsafe_split_with_sizes unsqueeze vander var var_mean vdot vsplit vstack where
xlogy xlogy_
""".split()

# ---- the tracer ----


class Tracer:
    """Wraps the listed APIs while active and collects dump.json records.

    Only the outermost wrapped call is recorded: calls made while a recorded call runs (torch's
    Python code calling other wrapped APIs, and the tracer's own statistics) go straight to the
    original function and do not advance the call counters.

    With tensor_dir, the dump is a tensor-mode one (msprobe's task "tensor"): every tensor is also
    saved there as msprobe's dumper saves it, torch.save of t.clone().contiguous().detach() into
    "<record name>.<input|kwargs|output>.<index path>.pt", named by the record's data_name; the
    statistics stay those of the tensor as the API saw it (a strided view stays a view)."""

    def __init__(self, tensor_dir=None, data_dir_label=None):
        self.data = {}
        self.counters = {}
        self.depth = 0
        self.saved = []
        self.tensor_dir = tensor_dir
        self.data_dir_label = data_dir_label

    # -- installing the wrappers --

    def _targets(self):
        for name in FUNCTIONAL_NAMES:
            yield "Functional", name, F, name
        for name in TENSOR_NAMES:
            yield "Tensor", name, torch.Tensor, name
        for name in TORCH_NAMES:
            owner, attr = torch, name
            if "." in name:  # linalg.norm -> torch.linalg.norm
                sub, attr = name.rsplit(".", 1)
                owner = getattr(torch, sub, None)
                if owner is None:
                    continue
            yield "Torch", name, owner, attr

    def __enter__(self):
        for prefix, name, owner, attr in self._targets():
            orig = getattr(owner, attr, None)
            if orig is None or not callable(orig) or isinstance(orig, type):
                continue  # the name is not in this torch version
            raw = owner.__dict__.get(attr) if isinstance(owner, type) else None
            if isinstance(raw, (staticmethod, classmethod, property)):
                continue
            had = isinstance(owner, type) and attr in owner.__dict__
            restore = had or not isinstance(owner, type)
            self.saved.append((owner, attr, raw if had else orig, restore))
            setattr(owner, attr, self._wrap(prefix, name, orig))
        return self

    def __exit__(self, *exc):
        for owner, attr, orig, restore in reversed(self.saved):
            if restore:
                setattr(owner, attr, orig)
            else:  # the method lives on a base class (torch._C._TensorBase)
                delattr(owner, attr)
        self.saved = []
        return False

    def _wrap(self, prefix, name, orig):
        tracer = self

        def wrapped(*args, **kwargs):
            if tracer.depth:
                return orig(*args, **kwargs)
            tracer.depth += 1
            try:
                return tracer._call(prefix, name, orig, args, kwargs)
            finally:
                tracer.depth -= 1

        wrapped.__name__ = getattr(orig, "__name__", name)
        wrapped.__doc__ = getattr(orig, "__doc__", None)
        return wrapped

    # -- one call --

    def _call(self, prefix, name, orig, args, kwargs):
        # inputs are described before the call, so in-place APIs show the values they read
        base = "%s.%s." % (prefix, name)
        n = self.counters.get(base, 0)
        fwd = "%s%d.forward" % (base, n)
        in_args = [self.arg(a, file="%s.input.%d" % (fwd, i)) for i, a in enumerate(args)]
        in_kwargs = {k: self.arg(v, k, file="%s.kwargs.%s" % (fwd, k)) for k, v in kwargs.items()}
        out = orig(*args, **kwargs)
        self.counters[base] = n + 1
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        self.data[fwd] = {
            "input_args": in_args,
            "input_kwargs": in_kwargs,
            "is_recompute": False,
            "output": [self.arg(o, file="%s.output.%d" % (fwd, i)) for i, o in enumerate(outs)],
        }
        if "dropout" in name and _dropout_p(args, kwargs) == 0:
            return out  # msprobe writes no backward record for a dropout with p == 0
        first = _first_tensor(outs)
        if first is not None and first.grad_fn is not None:
            first.grad_fn.register_hook(self._backward_hook("%s%d.backward" % (base, n)))
        return out

    def _backward_hook(self, key):
        tracer = self

        # autograd calls it with (gradients w.r.t. the node's inputs, w.r.t. its outputs); the
        # dump's "input" is what flows into the backward, i.e. the gradients of the outputs
        def hook(grad_inputs, grad_outputs):
            tracer.depth += 1
            try:
                tracer.data[key] = {
                    "input": [tracer.arg(g, file="%s.input.%d" % (key, i))
                              for i, g in enumerate(grad_outputs)],
                    "output": [tracer.arg(g, file="%s.output.%d" % (key, i))
                               for i, g in enumerate(grad_inputs)],
                }
            finally:
                tracer.depth -= 1

        return hook

    # -- argument records --

    def arg(self, v, key=None, level=0, file=None):
        """The record of v; file is the tensor file name it gets in tensor mode, without .pt."""
        if level > 400:
            return {}
        if isinstance(v, torch.Tensor):
            rec = tensor_record(v)
            if self.tensor_dir is not None and file is not None and _has_data(v):
                rec["data_name"] = file + ".pt"
                torch.save(v.clone().contiguous().detach(), os.path.join(self.tensor_dir,
                                                                         rec["data_name"]))
            return rec
        if v is None:
            return None
        if key == "dtype" and isinstance(v, torch.dtype):
            return {"type": "torch.dtype", "value": str(v)}
        if key == "device":
            value = "%s:%s" % (v.type, v.index) if isinstance(v, torch.device) else v
            return {"type": "torch.device", "value": value}
        if isinstance(v, torch.memory_format):
            return {"type": "torch.memory_format", "format": str(v).rsplit(".", 1)[-1]}
        if isinstance(v, bool):
            return {"type": "bool", "value": v}
        if isinstance(v, int):
            return {"type": "int", "value": v}
        if isinstance(v, float):
            return {"type": "float", "value": v}
        if isinstance(v, str):
            return {"type": "str", "value": v}
        if isinstance(v, slice):
            parts = [_slice_part(v.start), _slice_part(v.stop), _slice_part(v.step)]
            return {"type": "slice", "value": parts}
        if v is Ellipsis:
            return {"type": "ellipsis", "value": "..."}
        if isinstance(v, torch.Size):
            return {"type": "torch.Size", "value": list(v)}
        if isinstance(v, tuple) and hasattr(v, "_fields"):  # namedtuple
            return {f: self.arg(x, None, level + 1, _sub(file, f)) for f, x in zip(v._fields, v)}
        if isinstance(v, (list, tuple)):
            return [self.arg(x, None, level + 1, _sub(file, i)) for i, x in enumerate(v)]
        if isinstance(v, dict):
            return {str(k): self.arg(x, None, level + 1, _sub(file, k)) for k, x in v.items()}
        return {}  # dtype or device passed positionally, functions, generators...

    def dump(self):
        tensor = self.tensor_dir is not None
        return {
            "task": "tensor" if tensor else "statistics",
            "level": "L1",
            "framework": "pytorch",
            "dump_data_dir": self.data_dir_label if tensor else None,
            "data": self.data,
        }


def _sub(file, key):
    return None if file is None else "%s.%s" % (file, key)


def _has_data(t):
    """msprobe saves no file for a tensor without storage (an empty one, a meta tensor)."""
    try:
        return t.storage().data_ptr() != 0
    except (RuntimeError, NotImplementedError):
        return False


def _slice_part(x):
    return x if x is None or isinstance(x, int) else int(x)


def _first_tensor(values):
    for v in values:
        if isinstance(v, torch.Tensor):
            return v
        if isinstance(v, (list, tuple)):
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _dropout_p(args, kwargs):
    if "p" in kwargs:
        return kwargs["p"]
    if len(args) > 1 and isinstance(args[1], (int, float)) and not isinstance(args[1], bool):
        return args[1]
    return 0.5


def tensor_record(t):
    """msprobe's statistics of one tensor: Max/Min/Mean/Norm in the tensor's own dtype for
    float16/bfloat16/float32, in float32 for float64 and integer tensors; any/all for bool;
    the value itself for a 0-dim tensor; null for an empty one."""
    rec = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape)}
    with torch.no_grad(), torch.autocast("cpu", enabled=False):
        x = t.detach()
        if x.numel() == 0:
            st = (None, None, None, None)
        elif x.is_complex():
            a = x.abs().float()
            st = (a.max().item(), a.min().item(), a.mean().item(), None)
        elif x.dtype == torch.bool:
            st = (bool(x.any().item()), bool(x.all().item()), None, None)
        elif x.dim() == 0:
            v = x.item()
            st = (v, v, v, v)
        else:
            if x.dtype == torch.float64 or not x.is_floating_point():
                x = x.float()
            st = (x.max().item(), x.min().item(), x.mean().item(), torch.norm(x).item())
    rec["Max"], rec["Min"], rec["Mean"], rec["Norm"] = st
    rec["requires_grad"] = t.requires_grad
    return rec


# ---- the models (small sizes; nn modules call torch.nn.functional as transformers and
# torchvision's models do) ----


class RMSNorm(nn.Module):
    """LLaMA's RMSNorm as transformers writes it: float32 statistics, weight in the input dtype."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        var = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(var + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaRotary(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        self.dim, self.base = dim, base

    def forward(self, x, position_ids):
        exponent = torch.arange(0, self.dim, 2, dtype=torch.int64).float() / self.dim
        inv_freq = 1.0 / (self.base ** exponent)
        inv = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        pos = position_ids[:, None, :].float()
        freqs = (inv @ pos).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


class LlamaAttention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        rep = self.h // self.kv  # grouped-query attention: repeat_kv
        k = k[:, :, None, :, :].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        v = v[:, :, None, :, :].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = F.dropout(w, p=0.0, training=self.training)
        o = torch.matmul(w, v)
        o = o.transpose(1, 2).contiguous().reshape(b, s, -1)
        return self.o_proj(o)


class LlamaMLP(nn.Module):
    def __init__(self, d, inter):
        super().__init__()
        self.gate_proj = nn.Linear(d, inter, bias=False)
        self.up_proj = nn.Linear(d, inter, bias=False)
        self.down_proj = nn.Linear(inter, d, bias=False)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, inter):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = LlamaMLP(d, inter)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


def causal_mask(attention_mask, dtype, device):
    """transformers' 4D mask for eager attention: causal, plus the padding of each row; the
    masked places hold torch.finfo(dtype).min."""
    b, s = attention_mask.shape
    min_dtype = torch.finfo(dtype).min
    cache_position = torch.arange(0, s, device=device)
    mask = torch.full((s, s), fill_value=min_dtype, dtype=dtype, device=device)
    mask = torch.triu(mask, diagonal=1)
    mask *= torch.arange(s, device=device) > cache_position.reshape(-1, 1)
    mask = mask[None, None, :, :].expand(b, 1, -1, -1).clone()
    padding = mask[:, :, :, :s] + attention_mask[:, None, None, :]
    padding = padding == 0
    mask[:, :, :, :s] = mask[:, :, :, :s].masked_fill(padding, min_dtype)
    return mask


class Llama(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, kv_heads=2, inter=64, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.rotary = LlamaRotary(d // heads)
        self.layers = nn.ModuleList(LlamaLayer(d, heads, kv_heads, inter) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids, attention_mask):
        h = self.embed_tokens(ids)
        pos = torch.arange(0, ids.shape[1], device=ids.device).unsqueeze(0)
        cos, sin = self.rotary(h, pos)
        mask = causal_mask(attention_mask, h.dtype, ids.device)
        for layer in self.layers:
            h = layer(h, cos, sin, mask)
        return self.lm_head(self.norm(h))


def llama_batch():
    ids = torch.randint(0, 64, (2, 8))
    attention_mask = torch.ones_like(ids)
    attention_mask[1, 6:] = 0  # right padding
    labels = ids.masked_fill(attention_mask == 0, -100)
    return ids, attention_mask, labels


def llama_step(model, batch, autocast_dtype=None):
    ids, attention_mask, labels = batch
    ctx = torch.autocast("cpu", dtype=autocast_dtype) if autocast_dtype else _nullcontext()
    with ctx:
        logits = model(ids, attention_mask)
        # transformers' causal-LM loss: float logits, labels padded by one and shifted
        logits = logits.float()
        labels = F.pad(labels, (0, 1), value=-100)
        shift_labels = labels[..., 1:].contiguous()
        loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), shift_labels.view(-1),
                               ignore_index=-100, reduction="mean")
    loss.backward()


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class BertSelfAttention(nn.Module):
    def __init__(self, d, heads, p):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.dropout = nn.Dropout(p)

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask):
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.hd)
        scores = scores + ext_mask
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.h * self.hd,))


class BertLayer(nn.Module):
    def __init__(self, d, heads, inter, p):
        super().__init__()
        self.attention = BertSelfAttention(d, heads, p)
        self.attn_out = nn.Linear(d, d)
        self.attn_norm = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, inter)
        self.act = nn.GELU()
        self.output = nn.Linear(inter, d)
        self.out_norm = nn.LayerNorm(d, eps=1e-12)
        self.dropout = nn.Dropout(p)

    def forward(self, x, ext_mask):
        a = self.attn_norm(self.dropout(self.attn_out(self.attention(x, ext_mask))) + x)
        return self.out_norm(self.dropout(self.output(self.act(self.intermediate(a)))) + a)


class Bert(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, inter=64, layers=2, max_pos=16, labels=3, p=0.1):
        super().__init__()
        self.word = nn.Embedding(vocab, d, padding_idx=0)
        self.position = nn.Embedding(max_pos, d)
        self.token_type = nn.Embedding(2, d)
        self.emb_norm = nn.LayerNorm(d, eps=1e-12)
        self.dropout = nn.Dropout(p)
        self.layers = nn.ModuleList(BertLayer(d, heads, inter, p) for _ in range(layers))
        self.pooler = nn.Linear(d, d)
        self.pool_act = nn.Tanh()
        self.classifier = nn.Linear(d, labels)

    def forward(self, ids, token_type, attention_mask):
        s = ids.shape[1]
        pos = torch.arange(s, dtype=torch.long, device=ids.device).unsqueeze(0).expand_as(ids)
        h = self.word(ids) + self.token_type(token_type)
        h = h + self.position(pos)
        h = self.dropout(self.emb_norm(h))
        ext = attention_mask[:, None, None, :].to(dtype=h.dtype)
        ext = (1.0 - ext) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, ext)
        pooled = self.pool_act(self.pooler(h[:, 0]))
        return self.classifier(self.dropout(pooled))


def bert_batch():
    ids = torch.randint(1, 64, (2, 8))
    ids[1, 6:] = 0  # padding
    token_type = torch.zeros_like(ids)
    token_type[:, 4:] = 1
    return ids, token_type, (ids != 0).long(), torch.tensor([0, 2])


def bert_step(model, batch):
    ids, token_type, attention_mask, labels = batch
    logits = model(ids, token_type, attention_mask)
    loss = F.cross_entropy(logits.view(-1, 3), labels.view(-1))
    loss.backward()


class VitAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.scale = self.hd ** -0.5
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(x)


class VitBlock(nn.Module):
    def __init__(self, d, heads, inter):
        super().__init__()
        self.norm1 = nn.LayerNorm(d, eps=1e-6)
        self.attn = VitAttention(d, heads)
        self.norm2 = nn.LayerNorm(d, eps=1e-6)
        self.fc1, self.act, self.fc2 = nn.Linear(d, inter), nn.GELU(), nn.Linear(inter, d)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(self.act(self.fc1(self.norm2(x))))


class Vit(nn.Module):
    def __init__(self, img=16, patch=4, d=32, heads=4, inter=64, layers=2, classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, d) * 0.02)
        self.pos_drop = nn.Dropout(0.1)
        self.blocks = nn.ModuleList(VitBlock(d, heads, inter) for _ in range(layers))
        self.norm = nn.LayerNorm(d, eps=1e-6)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.pos_drop(x + self.pos_embed)
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return self.head(x[:, 0])


def vit_batch():
    return torch.randn(2, 3, 16, 16), torch.tensor([3, 7])


def vit_step(model, batch):
    images, labels = batch
    loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
    loss.backward()


class Expert(nn.Module):
    def __init__(self, d, inter):
        super().__init__()
        self.w1 = nn.Linear(d, inter, bias=False)
        self.w2 = nn.Linear(inter, d, bias=False)
        self.w3 = nn.Linear(d, inter, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoe(nn.Module):
    """Mixtral's block: softmax router, top-k, per-expert token lists from torch.where,
    index_add back into the output; returns the router probabilities for the aux loss."""

    def __init__(self, d, inter, experts, top_k):
        super().__init__()
        self.e, self.k = experts, top_k
        self.gate = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(Expert(d, inter) for _ in range(experts))

    def forward(self, x):
        b, s, d = x.shape
        h = x.view(-1, d)
        probs = F.softmax(self.gate(h), dim=1, dtype=torch.float)
        weights, selected = torch.topk(probs, self.k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        weights = weights.to(h.dtype)
        out = torch.zeros((b * s, d), dtype=h.dtype, device=h.device)
        expert_mask = F.one_hot(selected, num_classes=self.e).permute(2, 1, 0)
        for i in range(self.e):
            idx, top_x = torch.where(expert_mask[i])
            if top_x.numel() == 0:
                continue
            cur = torch.index_select(h, 0, top_x)
            cur = self.experts[i](cur) * weights[top_x, idx, None]
            out.index_add_(0, top_x, cur.to(h.dtype))
        return out.reshape(b, s, d), probs, selected


class DenseMoe(nn.Module):
    """Masked dispatch: every expert on every token, combined with scattered top-k gates."""

    def __init__(self, d, inter, experts, top_k):
        super().__init__()
        self.e, self.k = experts, top_k
        self.gate = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(Expert(d, inter) for _ in range(experts))

    def forward(self, x):
        logits = self.gate(x)
        probs = logits.softmax(dim=-1)
        top_w, top_i = probs.topk(self.k, dim=-1)
        gates = torch.zeros_like(probs).scatter(-1, top_i, top_w)
        gates = gates / gates.sum(-1, keepdim=True)
        outs = torch.stack([e(x) for e in self.experts], dim=-2)
        out = (gates.unsqueeze(-1) * outs).sum(dim=-2)
        return out, probs.reshape(-1, self.e), top_i.reshape(-1, self.k)


class PermuteMoe(nn.Module):
    """Megatron-style dispatch: the top-k assignments sorted by expert (argsort), the tokens
    gathered in that order, split by the count of each expert, the results put back with
    index_copy and weighted; a router z-loss (logsumexp squared)."""

    def __init__(self, d, inter, experts, top_k):
        super().__init__()
        self.e, self.k = experts, top_k
        self.gate = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(Expert(d, inter) for _ in range(experts))

    def forward(self, x):
        b, s, d = x.shape
        h = x.reshape(-1, d)
        logits = self.gate(h)
        z_loss = torch.logsumexp(logits, dim=-1).square().mean()
        probs, idx = torch.topk(logits.softmax(dim=-1), self.k, dim=-1)
        probs = probs / probs.sum(dim=-1, keepdim=True)
        flat = idx.flatten()
        order = torch.argsort(flat, stable=True)
        tokens_per_expert = torch.bincount(flat, minlength=self.e)
        permuted = h.index_select(0, order // self.k)
        chunks = torch.split(permuted, tokens_per_expert.tolist())
        outs = torch.cat([self.experts[i](c) for i, c in enumerate(chunks)], dim=0)
        back = torch.zeros_like(outs).index_copy(0, order, outs)
        back = back.reshape(-1, self.k, d) * probs.unsqueeze(-1)
        return back.sum(dim=1).reshape(b, s, d), z_loss


class Moe(nn.Module):
    def __init__(self, vocab=64, d=32, inter=32, experts=4, top_k=2):
        super().__init__()
        self.e = experts
        self.embed = nn.Embedding(vocab, d)
        self.norm1, self.moe1 = RMSNorm(d), SparseMoe(d, inter, experts, top_k)
        self.norm2, self.moe2 = RMSNorm(d), DenseMoe(d, inter, experts, top_k)
        self.norm3, self.moe3 = RMSNorm(d), PermuteMoe(d, inter, experts, top_k)
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def aux_loss(self, probs, selected):
        # Switch-style load balancing: token share per expert times mean router probability
        mask = F.one_hot(selected, self.e).float()
        tokens_per_expert = torch.mean(mask, dim=0)
        prob_per_expert = torch.mean(probs, dim=0)
        return torch.sum(tokens_per_expert * prob_per_expert.unsqueeze(0)) * self.e

    def forward(self, ids):
        h = self.embed(ids)
        m, p1, s1 = self.moe1(self.norm1(h))
        h = h + m
        m, p2, s2 = self.moe2(self.norm2(h))
        h = h + m
        m, z_loss = self.moe3(self.norm3(h))
        h = h + m
        aux = self.aux_loss(p1, s1) + self.aux_loss(p2, s2)
        return self.lm_head(self.norm(h)), aux, z_loss


def moe_batch():
    return torch.randint(0, 64, (2, 8))


def moe_step(model, ids):
    logits, aux, z_loss = model(ids)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, 64), ids[:, 1:].reshape(-1))
    loss = loss + 0.01 * aux + 1e-3 * z_loss
    loss.backward()


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def resnet_batch():
    return torch.randn(4, 3, 16, 16), torch.tensor([1, 0, 9, 4])


def resnet_step(model, batch):
    images, labels = batch
    loss = F.cross_entropy(model(images), labels)
    loss.backward()


class MegatronRotary(nn.Module):
    """Megatron-core's RotaryEmbedding: the table is rebuilt in every forward, positions x
    inverse frequencies through torch.outer (so the step's dump holds Torch.outer)."""

    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, max_seq_len):
        seq = torch.arange(max_seq_len, device=self.inv_freq.device, dtype=self.inv_freq.dtype)
        freqs = torch.outer(seq, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb[:, None, None, :]


def megatron_rotate_half(x):
    x1, x2 = torch.chunk(x, 2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def megatron_apply_rotary(t, freqs):
    rot_dim = freqs.shape[-1]
    t, t_pass = t[..., :rot_dim], t[..., rot_dim:]
    cos_ = torch.cos(freqs).to(t.dtype)
    sin_ = torch.sin(freqs).to(t.dtype)
    t = (t * cos_) + (megatron_rotate_half(t) * sin_)
    return torch.cat((t, t_pass), dim=-1)


class MegatronRMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class MegatronAttention(nn.Module):
    """Megatron-core's SelfAttention + DotProductAttention, sequence first ([s, b, h]): fused
    QKV linear, rotary on q and k, the query groups repeated (repeat_interleave), scores by
    baddbmm (beta 0, alpha 1/sqrt(d)), the fused softmax's fallback (masked_fill_ with -10000,
    softmax), bmm with the values."""

    def __init__(self, d, heads, groups):
        super().__init__()
        self.np, self.ng, self.hn = heads, groups, d // heads
        self.linear_qkv = nn.Linear(d, (heads + 2 * groups) * self.hn, bias=False)
        self.linear_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, mask, rotary):
        s, b, _ = x.shape
        qkv = self.linear_qkv(x).view(s, b, self.ng, (self.np // self.ng + 2) * self.hn)
        q, k, v = torch.split(qkv, [self.np // self.ng * self.hn, self.hn, self.hn], dim=3)
        q = q.reshape(s, b, self.np, self.hn)
        q, k = megatron_apply_rotary(q, rotary), megatron_apply_rotary(k, rotary)
        k = k.repeat_interleave(self.np // self.ng, dim=2)
        v = v.repeat_interleave(self.np // self.ng, dim=2)
        q, k = q.reshape(s, b * self.np, self.hn), k.reshape(s, b * self.np, self.hn)
        # Megatron takes the (ignored, beta=0) buffer from torch.empty; zeros keep the dump the
        # same at every regeneration (torch.zeros is not wrapped)
        buf = torch.zeros(b * self.np, s, s, dtype=q.dtype, device=q.device)
        scores = torch.baddbmm(buf, q.transpose(0, 1), k.transpose(0, 1).transpose(1, 2),
                               beta=0.0, alpha=1.0 / math.sqrt(self.hn))
        scores = scores.view(b, self.np, s, s)
        scores.masked_fill_(mask, -10000.0)
        probs = F.softmax(scores, dim=-1)
        probs = F.dropout(probs, p=0.0, training=self.training)
        v = v.reshape(s, b * self.np, self.hn)
        ctx = torch.bmm(probs.view(b * self.np, s, s), v.transpose(0, 1))
        ctx = ctx.view(b, self.np, s, self.hn).permute(2, 0, 1, 3).contiguous()
        return self.linear_proj(ctx.view(s, b, -1))


class MegatronMLP(nn.Module):
    """linear_fc1 to twice the FFN width, SwiGLU (chunk, silu, mul), linear_fc2."""

    def __init__(self, d, ffn):
        super().__init__()
        self.linear_fc1 = nn.Linear(d, 2 * ffn, bias=False)
        self.linear_fc2 = nn.Linear(ffn, d, bias=False)

    def forward(self, x):
        a, g = torch.chunk(self.linear_fc1(x), 2, dim=-1)
        return self.linear_fc2(F.silu(a) * g)


class MegatronMoE(nn.Module):
    """Megatron-core's MoE layer on one rank: TopKRouter (top-k of the logits, softmax of
    them; Switch load-balancing loss), the dropless all-gather token dispatcher (masked_select,
    nonzero, gather, histc token counts, argsort), SequentialMLP experts over cumsum ranges,
    and the unpermutation (scatter, scatter_add)."""

    def __init__(self, d, ffn, experts, topk):
        super().__init__()
        self.e, self.k = experts, topk
        self.router = nn.Parameter(torch.randn(experts, d) * 0.1)
        self.experts = nn.ModuleList(MegatronMLP(d, ffn) for _ in range(experts))

    def forward(self, x):
        shape = x.shape
        h = x.view(-1, shape[-1])
        logits = F.linear(h, self.router)
        top_logits, indices = torch.topk(logits, k=self.k, dim=1)
        scores = torch.softmax(top_logits, dim=-1, dtype=torch.float32).type_as(logits)
        probs = torch.softmax(logits, dim=-1, dtype=torch.float32)
        mask = F.one_hot(indices, num_classes=self.e).sum(dim=1)
        aux = torch.sum(torch.mean(probs, dim=0) * torch.mean(mask.float(), dim=0)) * self.e
        local_mask = (indices >= 0) & (indices <= self.e - 1)
        local_indices = indices.masked_select(local_mask)
        local_probs = scores.masked_select(local_mask)
        local_map = local_mask.nonzero()[:, 0]
        local_map = local_map.view(-1, 1).expand(-1, h.shape[-1])
        local_h = torch.gather(h, 0, local_map)
        with torch.no_grad():
            # Megatron passes the int64 indices; torch 1.13's CPU has no integer histc (CUDA
            # has), and run_ut gives histc float32 inputs anyway (its CONVERT_API)
            tokens = torch.histc(local_indices.float(), bins=self.e, min=0, max=self.e - 1)
            tokens = tokens.cpu().to(torch.long)
        order = torch.argsort(local_indices, dim=0)
        permuted = torch.gather(local_h, 0, order.view(-1, 1).expand(-1, h.shape[-1]))
        out_local = torch.zeros_like(permuted)
        bounds = torch.cat((torch.zeros(1, dtype=torch.long), torch.cumsum(tokens, dim=0)))
        for i, expert in enumerate(self.experts):
            start, end = bounds[i], bounds[i + 1]
            out_local[start:end] = expert(permuted[start:end])
        back = torch.zeros_like(out_local)
        back = back.scatter(0, order.view(-1, 1).expand(-1, h.shape[-1]), out_local)
        back = back * local_probs.to(dtype=h.dtype).view(-1, 1)
        total = torch.zeros(h.shape, dtype=h.dtype, device=h.device)
        total = total.scatter_add(0, local_map, back)
        return total.view(shape), aux


class MegatronLayer(nn.Module):
    def __init__(self, d, heads, groups, ffn, moe):
        super().__init__()
        self.input_layernorm = MegatronRMSNorm(d)
        self.self_attention = MegatronAttention(d, heads, groups)
        self.pre_mlp_layernorm = MegatronRMSNorm(d)
        self.mlp = MegatronMoE(d, ffn, 4, 2) if moe else MegatronMLP(d, ffn)

    def forward(self, x, mask, rotary):
        x = x + self.self_attention(self.input_layernorm(x), mask, rotary)
        out = self.mlp(self.pre_mlp_layernorm(x))
        out, aux = out if isinstance(out, tuple) else (out, None)
        return x + out, aux


class VocabParallelCrossEntropy(torch.autograd.Function):
    """Megatron's cross entropy on one rank (its own forward and backward): the logits' max
    subtracted, the target logit picked, exp in place (out=), log of the sum; the backward
    writes softmax - onehot through __setitem__ and scales it in place."""

    @staticmethod
    def forward(ctx, logits, target):
        logits_max = torch.max(logits, dim=-1)[0]
        logits = logits - logits_max.unsqueeze(dim=-1)
        vocab = logits.shape[-1]
        target_mask = (target < 0) | (target >= vocab)
        masked_target = target.clone()
        masked_target[target_mask] = 0
        logits_2d = logits.view(-1, vocab)
        masked_target_1d = masked_target.view(-1)
        arange_1d = torch.arange(start=0, end=logits_2d.size()[0], device=logits_2d.device)
        predicted = logits_2d[arange_1d, masked_target_1d].clone().contiguous().view_as(target)
        predicted[target_mask] = 0.0
        exp_logits = logits
        torch.exp(logits, out=exp_logits)
        sum_exp = exp_logits.sum(dim=-1)
        loss = torch.log(sum_exp) - predicted
        exp_logits.div_(sum_exp.unsqueeze(dim=-1))
        ctx.save_for_backward(exp_logits, target_mask, masked_target_1d)
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        softmax, target_mask, masked_target_1d = ctx.saved_tensors
        grad_input = softmax
        grad_2d = grad_input.view(-1, softmax.shape[-1])
        arange_1d = torch.arange(start=0, end=grad_2d.size()[0], device=grad_2d.device)
        update = 1.0 - target_mask.view(-1).float()
        grad_2d[arange_1d, masked_target_1d] -= update
        grad_input.mul_(grad_output.unsqueeze(dim=-1))
        return grad_input, None


class MegatronLlama(nn.Module):
    """A LLaMA as Megatron-core (MindSpeed) builds it, sequence first: embedding, rotary table
    by torch.outer, causal mask from tril (< 0.5), a dense and an MoE layer, final RMSNorm,
    output layer, Megatron's cross entropy and the masked mean of the losses."""

    def __init__(self, vocab=64, d=32, heads=4, groups=2, ffn=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.rotary = MegatronRotary(d // heads)
        self.layers = nn.ModuleList([MegatronLayer(d, heads, groups, ffn, False),
                                     MegatronLayer(d, heads, groups, ffn, True)])
        self.final_layernorm = MegatronRMSNorm(d)
        self.output_layer = nn.Linear(d, vocab, bias=False)

    def forward(self, ids, labels):
        b, s = ids.shape
        mask = torch.tril(torch.ones((1, s, s), device=ids.device)).view(1, 1, s, s) < 0.5
        x = self.embedding(ids).transpose(0, 1).contiguous()
        rotary = self.rotary(s)
        aux = 0.0
        for layer in self.layers:
            x, a = layer(x, mask, rotary)
            if a is not None:
                aux = aux + a
        logits = self.output_layer(self.final_layernorm(x)).transpose(0, 1).contiguous()
        losses = VocabParallelCrossEntropy.apply(logits.float(), labels)
        return losses, aux


def megatron_batch():
    ids = torch.randint(0, 64, (2, 8))
    labels = torch.roll(ids, -1, dims=1)
    loss_mask = torch.ones(2, 8)
    loss_mask[:, -1] = 0
    return ids, labels, loss_mask


def megatron_step(model, batch):
    ids, labels, loss_mask = batch
    losses, aux = model(ids, labels)
    loss_mask = loss_mask.view(-1).float()
    loss = torch.sum(losses.view(-1) * loss_mask) / loss_mask.sum()
    (loss + 0.01 * aux).backward()


# ---- the models of the two real msprobe dumps in tests/fixtures/msprobe/dumps, rebuilt from
# what their records show, so that --check can compare this tracer's records with msprobe's ----


class GptCheck(nn.Module):
    """gpt_stats: token + position embedding, a pre-LN causal attention block with a GELU MLP,
    then an RMSNorm + SwiGLU block, an LM head and cross_entropy."""

    def __init__(self, vocab=64, d=32, heads=4, seq=8):
        super().__init__()
        self.h = heads
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)
        self.rms_w = nn.Parameter(torch.ones(d))
        self.w1, self.w3 = nn.Linear(d, 2 * d, bias=False), nn.Linear(d, 2 * d, bias=False)
        self.w2 = nn.Linear(2 * d, d, bias=False)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        b, t = idx.shape
        pos = torch.arange(t, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        c = x.shape[-1]
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=-1)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(c // self.h)
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
        att = self.drop(F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1))
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.drop(self.c_proj(y))
        x = x + self.drop(self.proj(F.gelu(self.fc(self.ln_2(x)))))
        n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.rms_w
        x = x + self.w2(F.silu(self.w1(n)) * self.w3(n))
        return self.lm_head(x)


def gpt_check_batch():
    return torch.randint(0, 64, (2, 8)), torch.randint(0, 64, (2, 8))


def gpt_check_step(model, batch):
    idx, targets = batch
    logits = model(idx)
    F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1)).backward()


class CnnCheck(nn.Module):
    """cnn_tensor: two conv/batch_norm/relu stages, max_pool2d, adaptive_avg_pool2d, linear."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2, self.b2 = nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.adaptive_avg_pool2d(F.relu(self.b2(self.c2(x))), 1)
        return self.fc(x.flatten(1))


def cnn_check_step(model, batch):
    images, labels = batch
    F.cross_entropy(model(images), labels).backward()


# ---- small tensor-mode dumps for check_dump's tests (--tensor, into tests/fixtures/check_dump):
# statistics that torch computes with a rounding precheck cannot reproduce from the saved files ----


class MaskedAttention(nn.Module):
    """One causal self-attention layer as transformers' eager attention computes it: the additive
    mask of causal_mask (finfo(dtype).min above the diagonal and on the padding), a fused qkv
    projection split into heads (q, k and v are strided views of its output), scores + mask,
    softmax in float32, an output projection. torch's float32 sum over the mask overflows (Mean
    -inf); in bfloat16, torch 1.13 reduces the strided q/k/v views in bfloat16 (Norm far off)."""

    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)

    def forward(self, x, attention_mask):
        b, s, d = x.shape
        mask = causal_mask(attention_mask, x.dtype, x.device)
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, s, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d // self.h)
        w = F.softmax(w + mask, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(w, v).transpose(1, 2).reshape(b, s, d)
        return self.o(o)


def attn_batch(b, s, d, dtype):
    attention_mask = torch.ones(b, s, dtype=torch.int64)
    attention_mask[-1, s - 2:] = 0  # right padding
    return torch.randn(b, s, d).to(dtype), attention_mask


def attn_step(model, batch):
    x, attention_mask = batch
    model(x, attention_mask).float().pow(2).mean().backward()


TENSOR_MODELS = {
    "attn_mask_fp32": (lambda: MaskedAttention(8, 2),
                       lambda: attn_batch(2, 8, 8, torch.float32), attn_step),
    "attn_bf16": (lambda: MaskedAttention(32, 2).to(torch.bfloat16),
                  lambda: attn_batch(2, 16, 32, torch.bfloat16), attn_step),
}

MODELS = {
    "llama": (Llama, llama_batch, llama_step),
    "llama_bf16": (Llama, llama_batch, lambda m, b: llama_step(m, b, torch.bfloat16)),
    "bert": (Bert, bert_batch, bert_step),
    "vit": (Vit, vit_batch, vit_step),
    "moe": (Moe, moe_batch, moe_step),
    "resnet": (ResNet, resnet_batch, resnet_step),
    "llama_megatron": (MegatronLlama, megatron_batch, megatron_step),
}

CHECKS = {
    "gpt_stats": (GptCheck, gpt_check_batch, gpt_check_step),
    "cnn_tensor": (CnnCheck, resnet_batch, cnn_check_step),
}


def trace(entry, tensor_dir=None, data_dir_label=None):
    """One training step of a model, traced (the batch is made before); returns the dump. With
    tensor_dir, a tensor-mode dump whose files go there."""
    torch.manual_seed(1234)
    make, batch, step = entry
    model = make()
    model.train()
    data = batch()
    tracer = Tracer(tensor_dir, data_dir_label)
    with tracer:
        step(model, data)
    return tracer.dump()


def structure(v):
    """A record with the statistics (and tensor file names) left out."""
    if isinstance(v, list):
        return [structure(x) for x in v]
    if isinstance(v, dict):
        if v.get("type") == "torch.Tensor":
            return ("tensor", v["dtype"], tuple(v["shape"]), v["requires_grad"])
        return {k: structure(x) for k, x in v.items()}
    return v


def check(fixtures):
    """Compares the records of the two rebuilt models with the real msprobe dumps: the same
    record names in the same order, the same arguments (dtypes, shapes, requires_grad, scalar
    values, kwargs); only the statistics differ (other weights and data)."""
    bad = 0
    for name, entry in CHECKS.items():
        path = os.path.join(fixtures, name, "step0", "rank", "dump.json")
        with open(path) as f:
            real = json.load(f)["data"]
        ours = trace(entry)["data"]
        if list(real) != list(ours):
            bad += 1
            print("%s: record names differ:\n  msprobe: %s\n  tracer:  %s"
                  % (name, list(real), list(ours)))
            continue
        diffs = [k for k in real if structure(real[k]) != structure(ours[k])]
        for k in diffs:
            print("%s: %s differs:\n  msprobe: %s\n  tracer:  %s"
                  % (name, k, structure(real[k]), structure(ours[k])))
        bad += bool(diffs)
        print("%-10s %d records, %d differ in structure" % (name, len(real), len(diffs)))
    for name in ("gpt_tensor", "gpt_bf16_tensor", "cnn_tensor", "ew_fp16_tensor"):
        check_stats(os.path.join(fixtures, name, "step0", "rank"), name)
    return 1 if bad else 0


def check_stats(rank_dir, name):
    """The statistics of every saved tensor of a real tensor-mode dump, recomputed from its
    .pt file, against what msprobe wrote. The files hold contiguous copies, so a tensor that
    was a strided view when msprobe took its statistics (split outputs, transposes) sums in
    another order and may differ in its last bits (bfloat16: in its last few bits); the split
    of the gpt dumps is rebuilt as the view it was to show that those agree too. Informative:
    returns 0."""
    with open(os.path.join(rank_dir, "dump.json")) as f:
        data = json.load(f)["data"]
    records = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            if "data_name" in v:
                records.append(v)
            else:
                for x in v.values():
                    walk(x)

    def same(rec, t):
        ours = tensor_record(t)
        for k in ("Max", "Min", "Mean", "Norm"):
            a, b = rec[k], ours[k]
            nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
            if type(a) != type(b) or not (a == b or nan):
                return False
        return True

    def load(data_name):
        return torch.load(os.path.join(rank_dir, "dump_tensor_data", data_name))

    walk(data)
    wrong = [r["data_name"] for r in records if not same(r, load(r["data_name"]))]
    views = ""
    if "Tensor.split.0.forward" in data:
        split = data["Tensor.split.0.forward"]
        size = split["input_args"][1]["value"]
        parts = load("Functional.linear.0.forward.output.0.pt").split(size, dim=-1)
        ok = sum(same(rec, t) for rec, t in zip(split["output"], parts))
        views = "; split outputs rebuilt as views: %d of %d agree" % (ok, len(parts))
    print("%-15s %d saved tensors, %d agree bit for bit from the file%s"
          % (name, len(records), len(records) - len(wrong), views))
    return 0


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="default: tests/fixtures/coverage, with --tensor "
                    "tests/fixtures/check_dump")
    ap.add_argument("--check", action="store_true",
                    help="compare the tracer with the real msprobe dumps in "
                    "tests/fixtures/msprobe/dumps")
    ap.add_argument("--tensor", action="store_true",
                    help="tensor-mode dumps (every tensor saved); models: " +
                    ", ".join(TENSOR_MODELS) + " (default), or any of the others")
    ap.add_argument("models", nargs="*", help="some of: " + ", ".join(MODELS) + " (default: all)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    if args.check:
        return check(os.path.join(root, "tests", "fixtures", "msprobe", "dumps"))
    models = dict(MODELS, **TENSOR_MODELS) if args.tensor else MODELS
    out = args.out or os.path.join(root, "tests", "fixtures",
                                   "check_dump" if args.tensor else "coverage")
    for name in args.models:
        if name not in models:
            ap.error("unknown model '%s'" % name)
    for name in args.models or list(TENSOR_MODELS if args.tensor else MODELS):
        path = os.path.join(out, name, "dump.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if args.tensor:
            tensor_dir = os.path.join(out, name, "dump_tensor_data")
            shutil.rmtree(tensor_dir, ignore_errors=True)
            os.makedirs(tensor_dir)
            d = trace(models[name], tensor_dir, name + "/dump_tensor_data")
        else:
            d = trace(models[name])
        with open(path, "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
        fwd = sum(k.endswith(".forward") for k in d["data"])
        print("%-14s %4d forward, %4d backward records, %7d bytes -> %s"
              % (name, fwd, len(d["data"]) - fwd, os.path.getsize(path), os.path.relpath(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
