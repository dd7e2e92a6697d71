#!/usr/bin/python3
"""Makes the golden tensor-file fixtures of tests/io from PyTorch and numpy.

Run with an interpreter that has torch (Debian's python3-torch, 1.13) and numpy:

    /usr/bin/python3 tests/golden/make_pt_fixtures.py

It rewrites tests/fixtures/pt/ and tests/fixtures/npy/, each with a MANIFEST that tells the
C tests what every file must load as. A manifest line is

    <file> <dtype> <shape> <strides> <offset> <storage_numel> <requires_grad> <hex>

(npy: <file> <dtype> <shape> <strides> <fortran_order> <big_endian> <version> <hex>), where
shape and strides are comma lists in brackets ("[2,3]", "[]" for 0-dim), and hex is the
tensor's elements in row-major order as little-endian bytes (bool as 0/1 bytes, bfloat16 as
its 16 bits), or "-" when there are none. Files named bad_* must fail to load; the C tests say
with which message.

Everything is deterministic: values are written out, never drawn at random, so re-running
the script reproduces the same bytes.
"""

import collections
import io
import os
import re
import struct
import sys
import types
import zipfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PT_DIR = os.path.join(HERE, "..", "fixtures", "pt")
NPY_DIR = os.path.join(HERE, "..", "fixtures", "npy")

INF, NAN = float("inf"), float("nan")

# Values of every dtype, with its edge cases: extremes, signed zeros, infinities, NaN,
# subnormals, and values that round differently in each narrow format.
FLOAT_VALUES = [0.0, -0.0, 1.0, -2.5, INF, -INF, NAN, 1e-40, 65504.0, 3.1415926, -1e-3, 7.0]
VALUES = {
    torch.bool: [True, False, True, True, False, False],
    torch.uint8: [0, 1, 127, 128, 200, 255],
    torch.int8: [0, 1, -1, 127, -128, 42],
    torch.int16: [0, 1, -1, 32767, -32768, 12345],
    torch.int32: [0, 1, -1, 2**31 - 1, -(2**31), 123456789],
    torch.int64: [0, 1, -1, 2**63 - 1, -(2**63), 2**53 + 1],
    torch.float16: FLOAT_VALUES[:6] + [NAN, 6e-8, 65504.0, 3.1415926, -1e-3, 7.0],
    torch.bfloat16: FLOAT_VALUES,
    torch.float32: FLOAT_VALUES,
    torch.float64: FLOAT_VALUES[:7] + [5e-324, 1.7976931348623157e308, 3.1415926, -1e-3, 7.0],
    torch.complex64: [complex(1, -2), complex(-0.0, 0.0), complex(INF, NAN), complex(3.5, 1e-40),
                      complex(-7, 8), complex(0.1, 0.2)],
    torch.complex128: [complex(1, -2), complex(-0.0, 0.0), complex(INF, NAN),
                       complex(3.5, 5e-324), complex(-7, 8), complex(0.1, 0.2)],
}
NAMES = {
    torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64",
    torch.complex64: "complex64", torch.complex128: "complex128",
}


def value_tensor(dtype, shape=(3, 4)):
    vals = VALUES[dtype]
    n = 1
    for d in shape:
        n *= d
    vals = (vals * (n // len(vals) + 1))[:n]
    if dtype.is_floating_point and dtype != torch.float64:
        # Through float64 first, so that each value is rounded once to the target format.
        t = torch.tensor(vals, dtype=torch.float64).to(dtype)
    else:
        t = torch.tensor(vals, dtype=dtype)
    return t.reshape(shape)


def element_bytes(t):
    """The tensor's elements in row-major order, as little-endian bytes."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def dims(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def hexbytes(b):
    return b.hex() if b else "-"


# ---------------------------------------------------------------------------------------------
# Zip records written by hand, for the variations torch 1.13 does not write itself
# ---------------------------------------------------------------------------------------------

def read_records(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(n, z.read(n)) for n in z.namelist()]


def write_zip(records, align=None, compress=False, prefix=b""):
    """A zip of the given (name, bytes) records. With align, each member's data starts at a
    multiple of align from the start of the archive (torch's 'FB' padding extra field)."""
    out = io.BytesIO()
    out.write(prefix)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        for name, data in records:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            if align:
                start = out.tell() - len(prefix) + 30 + len(name.encode()) + 4
                pad = (-start) % align
                info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            z.writestr(info, data)
    return out.getvalue()


def swap_storage(data, dtype):
    width = torch.tensor([], dtype=dtype).element_size()
    if dtype.is_complex:
        width //= 2
    if width == 1:
        return data
    return b"".join(data[i:i + width][::-1] for i in range(0, len(data), width))


# ---------------------------------------------------------------------------------------------
# torch_npu's pickle, made with stand-ins for its modules
# ---------------------------------------------------------------------------------------------

def install_fake_torch_npu():
    if hasattr(sys.modules.get("torch_npu.npu._format"), "Format"):
        return sys.modules["torch_npu.utils.storage"]._rebuild_npu_tensor, \
            sys.modules["torch_npu.npu._format"].Format
    for name in ["torch_npu", "torch_npu.utils", "torch_npu.utils.storage", "torch_npu.npu",
                 "torch_npu.npu._format"]:
        sys.modules.setdefault(name, types.ModuleType(name))

    def _rebuild_npu_tensor(storage, storage_offset, size, stride, requires_grad,
                            backward_hooks, npu_format):
        raise RuntimeError("stand-in")

    _rebuild_npu_tensor.__module__ = "torch_npu.utils.storage"
    _rebuild_npu_tensor.__qualname__ = "_rebuild_npu_tensor"
    sys.modules["torch_npu.utils.storage"]._rebuild_npu_tensor = _rebuild_npu_tensor

    class Format(int):
        def __reduce__(self):
            return (Format, (int(self),))

    Format.__module__ = "torch_npu.npu._format"
    Format.__qualname__ = "Format"
    sys.modules["torch_npu.npu._format"].Format = Format
    return _rebuild_npu_tensor, Format


def save_as_npu(t, npu_format):
    """What torch_npu's patched Tensor.__reduce_ex__ makes torch.save write."""
    rebuild, _ = install_fake_torch_npu()
    original = torch.Tensor.__reduce_ex__

    def reduce_ex(self, proto):
        return (rebuild, (self.storage(), self.storage_offset(), tuple(self.size()),
                          self.stride(), self.requires_grad, collections.OrderedDict(),
                          npu_format))

    torch.Tensor.__reduce_ex__ = reduce_ex
    try:
        b = io.BytesIO()
        torch.save(t, b)
    finally:
        torch.Tensor.__reduce_ex__ = original
    return b.getvalue()


# ---------------------------------------------------------------------------------------------
# .pt fixtures
# ---------------------------------------------------------------------------------------------

def make_pt():
    os.makedirs(PT_DIR, exist_ok=True)
    for f in os.listdir(PT_DIR):
        os.remove(os.path.join(PT_DIR, f))
    manifest = []

    def expect(name, t, storage_numel=None, requires_grad=None):
        if storage_numel is None:
            storage_numel = t.storage().size()
        if requires_grad is None:
            requires_grad = t.requires_grad
        manifest.append(" ".join([
            name, NAMES[t.dtype], dims(t.shape), dims(t.stride()), str(t.storage_offset()),
            str(storage_numel), "1" if requires_grad else "0", hexbytes(element_bytes(t))]))

    def save(name, t, **kw):
        torch.save(t, os.path.join(PT_DIR, name), **kw)
        back = torch.load(os.path.join(PT_DIR, name))
        assert back.dtype == t.dtype and back.shape == t.shape
        assert element_bytes(back) == element_bytes(t), name
        expect(name, t)

    def put(name, data):
        with open(os.path.join(PT_DIR, name), "wb") as f:
            f.write(data)

    # Every dtype torch 1.13 saves, 3x4 with edge values.
    for dtype in VALUES:
        save("dtype_%s.pt" % NAMES[dtype], value_tensor(dtype))
    # 0-dim, empty, and views saved as views.
    save("scalar_float32.pt", torch.tensor(3.5))
    save("scalar_int64.pt", torch.tensor(2**40 + 1))
    save("empty_float32.pt", torch.zeros(0))
    save("empty_3x0_int32.pt", torch.zeros(3, 0, dtype=torch.int32))
    save("empty_bool.pt", torch.zeros(0, 4, dtype=torch.bool))
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    save("transpose_float32.pt", base.t())  # storage of 12, strides (1, 4)
    big = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    save("view_offset_transpose_float64.pt", big[1:, 2:].t())  # offset 8, strides (1, 6)
    save("view_offset_int16.pt", torch.arange(20, dtype=torch.int16)[3:9])  # offset 3 of 20
    save("view_step_bfloat16.pt", value_tensor(torch.bfloat16, (4, 6))[::2, 1::2])
    save("rank5_float16.pt", value_tensor(torch.float16, (1, 2, 1, 3, 2)))
    save("large_dims_uint8.pt", torch.arange(300, dtype=torch.int64).to(torch.uint8)
         .reshape(300, 1))  # BININT2 for 300
    # requires_grad, Parameter, other pickle protocols, a file object's "archive/" prefix.
    save("requires_grad_float32.pt", torch.tensor([1.5, -2.0], requires_grad=True))
    p = torch.nn.Parameter(torch.tensor([[0.25, 0.5]]))
    torch.save(p, os.path.join(PT_DIR, "parameter_float32.pt"))
    expect("parameter_float32.pt", p.detach(), requires_grad=True)
    save("protocol4_int64.pt", value_tensor(torch.int64), pickle_protocol=4)
    save("protocol5_complex64.pt", value_tensor(torch.complex64), pickle_protocol=5)
    b = io.BytesIO()
    t = value_tensor(torch.int8)
    torch.save(t, b)
    put("file_object_int8.pt", b.getvalue())
    expect("file_object_int8.pt", t)

    # torch 2.x records (byteorder, serialization_id, ...), here written by Python's zipfile
    # with torch's 64-byte alignment.
    t = value_tensor(torch.float32)
    b = io.BytesIO()
    torch.save(t, b)
    recs = dict(read_records(b.getvalue()))
    put("torch2_layout_float32.pt", write_zip([
        ("t2/data.pkl", recs["archive/data.pkl"]), ("t2/.format_version", b"1"),
        ("t2/.storage_alignment", b"64"), ("t2/byteorder", b"little"),
        ("t2/data/0", recs["archive/data/0"]), ("t2/version", b"3\n"),
        ("t2/.data/serialization_id", b"1234567890123456789012345678901234567890")],
        align=64))
    expect("torch2_layout_float32.pt", t)
    # The same without alignment: data at odd offsets, which must be copied.
    put("unaligned_float64.pt", write_zip([
        (n.replace("archive/", "u/"), d) for n, d in
        read_records(torch_bytes(value_tensor(torch.float64)))]))
    expect("unaligned_float64.pt", value_tensor(torch.float64))
    # Bytes before the archive (its offsets do not count them).
    put("prefixed_int32.pt", write_zip(read_records(torch_bytes(value_tensor(torch.int32))),
                                       align=64, prefix=b"#!junk before the archive\n" * 3))
    expect("prefixed_int32.pt", value_tensor(torch.int32))

    # Big-endian files: byteorder "big", storage bytes swapped; aligned and not.
    for dtype, align in [(torch.float32, 64), (torch.float64, None), (torch.int16, 64),
                         (torch.bfloat16, 64), (torch.float16, None), (torch.complex64, 64),
                         (torch.int64, None), (torch.uint8, 64)]:
        t = value_tensor(dtype)
        recs = read_records(torch_bytes(t))
        out = []
        for n, d in recs:
            if n.endswith("data/0"):
                d = swap_storage(d, dtype)
            out.append((n, d))
            if n.endswith("data.pkl"):
                out.append(("archive/byteorder", b"big"))
        name = "big_endian_%s%s.pt" % (NAMES[dtype], "" if align else "_unaligned")
        put(name, write_zip(out, align=align))
        expect(name, t)

    # torch_npu: _rebuild_npu_tensor with a Format object and with a plain int.
    _, npu_format_class = install_fake_torch_npu()
    t = value_tensor(torch.float16)
    put("npu_format_object_float16.pt", save_as_npu(t, npu_format_class(29)))
    expect("npu_format_object_float16.pt", t)
    t = value_tensor(torch.bfloat16)
    put("npu_format_int_bfloat16.pt", save_as_npu(t, 2))
    expect("npu_format_int_bfloat16.pt", t)
    # Stock rebuild with an NPU location tag.
    t = value_tensor(torch.float32)
    recs = read_records(torch_bytes(t))
    recs = [(n, d.replace(b"X\x03\x00\x00\x00cpu", b"X\x05\x00\x00\x00npu:0")) for n, d in recs]
    put("npu_location_float32.pt", write_zip(recs, align=64))
    expect("npu_location_float32.pt", t)

    # Files that must be refused.
    t = value_tensor(torch.float32)
    put("bad_compressed.pt", write_zip(read_records(torch_bytes(t)), compress=True))
    b = io.BytesIO()
    torch.save(t, b, _use_new_zipfile_serialization=False)
    put("bad_legacy.pt", fixed_legacy_key(b.getvalue()))
    put("bad_dict.pt", torch_bytes({"x": torch.zeros(2)}))
    put("bad_list.pt", torch_bytes([torch.zeros(1), torch.ones(1)]))
    put("bad_missing_storage.pt", write_zip(
        [(n, d) for n, d in read_records(torch_bytes(t)) if not n.endswith("data/0")], align=64))
    put("bad_short_storage.pt", write_zip(
        [(n, d[:-4] if n.endswith("data/0") else d) for n, d in read_records(torch_bytes(t))],
        align=64))
    put("bad_no_pickle.pt", write_zip(
        [(n, d) for n, d in read_records(torch_bytes(t)) if not n.endswith("data.pkl")]))
    put("bad_byteorder.pt", write_zip(
        [(n, d) for n, d in read_records(torch_bytes(t))] + [("archive/byteorder", b"middle")]))
    put("bad_quantized.pt", torch_bytes(torch.quantize_per_tensor(
        torch.tensor([1.0, 2.0]), 0.1, 0, torch.quint8)))
    with open(os.path.join(PT_DIR, "MANIFEST"), "w") as f:
        f.write("# written by tests/golden/make_pt_fixtures.py; see its docstring\n")
        f.write("\n".join(manifest) + "\n")


def fixed_legacy_key(data):
    """The legacy format names its storage by an object address, different in every run;
    replace it by "0" so that the fixture does not change."""
    m = re.search(rb"Storage\nq\x02X(....)", data, re.DOTALL)
    n = struct.unpack("<I", m.group(1))[0]
    key = data[m.end():m.end() + n]
    return data.replace(b"X" + m.group(1) + key, b"X\x01\x00\x00\x000")


def torch_bytes(obj, **kw):
    b = io.BytesIO()
    torch.save(obj, b, **kw)
    return b.getvalue()


# ---------------------------------------------------------------------------------------------
# .npy fixtures
# ---------------------------------------------------------------------------------------------

NP_TYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
            np.float64, np.complex64, np.complex128]
NP_NAMES = {np.bool_: "bool", np.uint8: "uint8", np.int8: "int8", np.int16: "int16",
            np.int32: "int32", np.int64: "int64", np.float16: "float16", np.float32: "float32",
            np.float64: "float64", np.complex64: "complex64", np.complex128: "complex128"}
TORCH_OF = {np.bool_: torch.bool, np.uint8: torch.uint8, np.int8: torch.int8,
            np.int16: torch.int16, np.int32: torch.int32, np.int64: torch.int64,
            np.float16: torch.float16, np.float32: torch.float32, np.float64: torch.float64,
            np.complex64: torch.complex64, np.complex128: torch.complex128}


def make_npy():
    os.makedirs(NPY_DIR, exist_ok=True)
    for f in os.listdir(NPY_DIR):
        os.remove(os.path.join(NPY_DIR, f))
    manifest = []

    def put(name, a, version=None, raw=None):
        path = os.path.join(NPY_DIR, name)
        if raw is not None:
            with open(path, "wb") as f:
                f.write(raw)
        elif version is None:
            np.save(path, a)
        else:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, a, version=version)
        back = np.load(path)
        assert back.dtype == a.dtype and back.shape == a.shape
        logical = np.ascontiguousarray(back).astype(back.dtype.newbyteorder("<"))
        ver = open(path, "rb").read()[6]
        strides = [s // a.itemsize for s in back.strides]
        manifest.append(" ".join([
            name, NP_NAMES[a.dtype.type], dims(a.shape), dims(strides),
            "1" if back.flags.f_contiguous and not back.flags.c_contiguous else "0",
            "1" if a.dtype.byteorder == ">" else "0", str(ver),
            hexbytes(logical.tobytes())]))

    for t in NP_TYPES:
        a = value_tensor(TORCH_OF[t]).numpy()
        put("c_%s.npy" % NP_NAMES[t], a)
        if a.itemsize > 1:
            put("big_endian_%s.npy" % NP_NAMES[t], a.astype(a.dtype.newbyteorder(">")))
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    put("fortran_float32.npy", np.asfortranarray(a))
    put("fortran_big_endian_int32.npy",
        np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3)))
    put("version2_float64.npy", np.arange(5, dtype=np.float64), version=(2, 0))
    put("version3_int16.npy", np.arange(4, dtype=np.int16).reshape(2, 2), version=(3, 0))
    put("scalar_float64.npy", np.array(2.5))
    put("empty_float32.npy", np.zeros((0, 3), dtype=np.float32))
    # A header as very old numpy wrote it: 16-byte alignment and Python 2 longs.
    header = b"{'descr': '<i2', 'fortran_order': False, 'shape': (3L,), }"
    total = 10 + len(header) + 1
    header += b" " * ((-total) % 16) + b"\n"
    put("old_header_int16.npy", np.arange(3, dtype=np.int16),
        raw=b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header +
        np.arange(3, dtype="<i2").tobytes())
    with open(os.path.join(NPY_DIR, "MANIFEST"), "w") as f:
        f.write("# written by tests/golden/make_pt_fixtures.py; see its docstring\n")
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    torch.manual_seed(0)
    make_pt()
    make_npy()
