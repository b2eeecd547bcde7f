"""numpy arrays in and out of the extension's BLOBs (docs/reference/data-formats.md).

In: f32_blob() gives a float tensor BLOB, npy_blob() a .npy BLOB that keeps
the shape.  Out: array() reads a code, parameter or float BLOB as the dtype
it holds, with a shape.  Nothing is guessed: a conversion that would round is
refused unless asked for, byte order and memory layout never change the
bytes, and a length or shape that does not fit is an error.
"""
import io
import json
import operator

import numpy as np

# The BLOBs' element types, by the extension's dtype names: numpy's
# little-endian type of one element, None for packed codes (_PACKED: bits
# per code, element i at bit (i % (8 / bits)) * bits of byte i // (8 / bits),
# docs/NUMERICS.md#codes), or "f8" for the float8 codes (_FLOAT8).
_ELEMENTS = {
    "f32": "<f4", "f16": "<f2", "bf16": "<u2",
    "int8": "i1", "uint8": "u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4",
    "int4": None, "uint4": None, "int2": None, "uint2": None,
    "f8_e4m3fn": "f8", "f8_e5m2": "f8", "f8_e4m3fnuz": "f8", "f8_e5m2fnuz": "f8",
}
_ALIASES = {"qint8": "int8", "quint8": "uint8", "qint32": "int32", "quint4x2": "uint4",
            "float8_e4m3fn": "f8_e4m3fn", "float8_e5m2": "f8_e5m2",
            "float8_e4m3fnuz": "f8_e4m3fnuz", "float8_e5m2fnuz": "f8_e5m2fnuz"}
_PACKED = {"int4": 4, "uint4": 4, "int2": 2, "uint2": 2}
_PER_BYTE = {4: "two", 2: "four"}

# The float8 formats (docs/NUMERICS.md#float8-codes): mantissa bits, bias,
# fnuz (one zero, 0x80 the one NaN, no infinity), e5m2's infinities.
_FLOAT8 = {"f8_e4m3fn": (3, 7, False, False), "f8_e5m2": (2, 15, False, True),
           "f8_e4m3fnuz": (3, 8, True, False), "f8_e5m2fnuz": (2, 16, True, False)}


def _float8_table(name):
    """The float32 bits of all 256 codes of a float8 format, from its
    definition: every code is a float32, so each value is exact; a NaN code
    reads as the quiet NaN of its sign bit (fnuz's 0x80: 0xFFC00000), as the
    extension's dequantize_blob and q_f32 give it."""
    mbits, bias, fnuz, has_inf = _FLOAT8[name]
    c = np.arange(256, dtype=np.uint32)
    sign, mag = (c & 0x80) << 24, c & 0x7F
    e, m = mag >> mbits, mag & ((1 << mbits) - 1)
    # value = m * 2^(1 - bias - mbits) (e = 0) or (2^mbits + m) * 2^(e - bias - mbits)
    scaled = np.where(e == 0, m, m + (1 << mbits)).astype(np.float64)
    exp = np.where(e == 0, 1, e).astype(np.int64) - bias - mbits
    bits = (np.ldexp(scaled, exp).astype(np.float32).view(np.uint32) | sign).astype(np.uint32)
    if fnuz:
        nan = c == 0x80
    elif has_inf:
        nan = mag > 0x7C
        bits[mag == 0x7C] = sign[mag == 0x7C] | 0x7F800000
    else:
        nan = mag == 0x7F
    bits[nan] = sign[nan] | 0x7FC00000
    return bits


def _real_array(fn, a):
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: the array must hold numbers (bool, integer or float), got {a.dtype}")
    return a


def _refuse_rounding(fn, a, allow_downcast):
    """float64 is numpy's default, and rounding it to float32 is silent in
    numpy: only dtypes that float32 holds exactly pass without asking
    (bool, float16, float32, and integers of at most 16 bits)."""
    if not allow_downcast and not np.can_cast(a.dtype, np.float32, casting="safe"):
        raise TypeError(f"{fn}: float32 cannot hold every value of this dtype exactly"
                        f" (pass allow_downcast=True to round to nearest), got {a.dtype}")


def f32_blob(a, *, allow_downcast=False):
    """The float tensor BLOB of `a`: little-endian float32, row-major (C
    order), whatever a's byte order or memory layout.

    A dtype float32 cannot hold exactly (float64, int32, ...) is refused
    unless allow_downcast=True, which rounds to nearest as numpy does; a
    finite value beyond float32's range is then an error (not infinity)."""
    a = _real_array("f32_blob", a)
    _refuse_rounding("f32_blob", a, allow_downcast)
    with np.errstate(over="ignore"):
        f = a.astype("<f4")
    if a.dtype.kind == "f" and a.dtype.itemsize > 4:
        over = np.flatnonzero(np.isinf(f) & np.isfinite(a))
        if over.size:
            i = int(over[0])
            raise ValueError(f"f32_blob: element {i} is out of float32 range,"
                             f" got {float(a.reshape(-1)[i])!r}")
    return f.tobytes(order="C")


def npy_blob(a, *, allow_downcast=False):
    """`a` as the bytes np.save writes (C order, its own dtype and shape),
    which the extension reads as a float tensor (docs/reference/data-formats.md) and
    q_tensors as an array with its shape and dtype.

    The extension converts the elements to float32; as for f32_blob, a dtype
    it would round is refused unless allow_downcast=True."""
    a = _real_array("npy_blob", a)
    if a.dtype.itemsize > 8:
        raise TypeError(f"npy_blob: the extension reads .npy floats of at most 8 bytes, got {a.dtype}")
    _refuse_rounding("npy_blob", a, allow_downcast)
    # The extension refuses fortran_order .npy files, which np.save writes
    # for column-major arrays.
    if not a.flags.c_contiguous:
        a = a.copy(order="C")
    out = io.BytesIO()
    np.save(out, a, allow_pickle=False)
    return out.getvalue()


# numpy's dtypes of the same elements, by (kind, bytes per element).
# bfloat16 has no numpy dtype of its own; ml_dtypes' is named "bfloat16".
_NUMPY = {("f", 4): "f32", ("f", 2): "f16", ("i", 1): "int8", ("u", 1): "uint8",
          ("i", 2): "int16", ("u", 2): "uint16", ("i", 4): "int32"}
_NUMPY_NAMES = "float32, float16, bfloat16, int8, uint8, int16, uint16, int32"


def _dtype_name(fn, dtype):
    """The extension's name of a dtype given by that name (any case), a
    PyTorch alias, or any numpy spelling: np.float32, np.dtype('float32'),
    'float32', 'f4', '<f4', 'single'.  The extension's names win where the
    two disagree: 'f16' is float16 here (numpy reads it as float128)."""
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype.lower(), dtype.lower())
        if name in _ELEMENTS:
            return name
        if name == "bfloat16":
            return "bf16"
    if not isinstance(dtype, (str, np.dtype, type)):
        raise TypeError(f"{fn}: dtype must be a name such as 'int8' or a numpy dtype,"
                        f" got {type(dtype).__name__}")
    try:
        d = np.dtype(dtype)
    except Exception:  # noqa: BLE001 (numpy raises TypeError or others for a bad name)
        d = None
    if d is not None:
        if d.name == "bfloat16":
            return "bf16"
        if d.name in _ALIASES and d.name.startswith("float8"):
            return _ALIASES[d.name]
        name = _NUMPY.get((d.kind, d.itemsize))
        if name is not None and d.byteorder == ">":
            raise ValueError(f"{fn}: the extension's BLOBs are little-endian, got {d.str!r}")
        if name is not None:
            return name
    # The caller's own text, or numpy's name of the dtype object given.
    got = dtype if isinstance(dtype, str) or d is None else d.name
    raise ValueError(f"{fn}: dtype must be one of {', '.join(_ELEMENTS)}"
                     f" (or {', '.join(_ALIASES)}, or numpy's {_NUMPY_NAMES}), got {got!r}")


def _shape(fn, shape):
    """A tuple of ints from a sequence or from JSON text such as the
    registry's '[64,3,3,3]'."""
    given = shape
    if isinstance(shape, str):
        try:
            shape = json.loads(shape)
        except ValueError:
            raise ValueError(f"{fn}: shape text must be a JSON array of integers, got {given!r}") from None
        if not isinstance(shape, list):
            raise ValueError(f"{fn}: shape text must be a JSON array of integers, got {given!r}")
    try:
        shape = list(shape)
        if any(isinstance(d, (bool, np.bool_)) for d in shape):
            raise TypeError
        dims = [operator.index(d) for d in shape]
    except TypeError:
        raise TypeError(f"{fn}: shape must be a sequence of integers, got {given!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{fn}: shape must be non-negative integers, got {given!r}")
    return tuple(dims)


def array(blob, dtype="f32", shape=None):
    """A new numpy array of the elements of an extension BLOB.

    dtype names what the BLOB holds, as for q_json: 'f32' (default), 'f16',
    'bf16', or a code dtype ('int8', 'uint8', 'int16', 'uint16', 'int32',
    'int4', 'uint4', 'int2', 'uint2', 'f8_e4m3fn', 'f8_e5m2', 'f8_e4m3fnuz',
    'f8_e5m2fnuz'; PyTorch's aliases too), or numpy's dtype of the same
    elements in any spelling numpy takes (np.float32, np.dtype('int8'),
    'float16', 'f4', '<i2', ...; 'bfloat16' too).  A big-endian dtype or one
    the extension has no BLOB of (float64, int64, ...) is a ValueError.  The result's dtype: float32,
    float16, float32 (bf16 widened exactly: numpy has no bfloat16), int8,
    uint8, int16, uint16, int32, int8 (int4, int2), uint8 (uint4, uint2)
    and float32 for the float8 codes (each code's exact value; a NaN code
    gives the quiet NaN of its sign, fnuz's 0x80 the negative one).

    shape (a sequence of ints, or JSON text as the SQL functions take it)
    must hold exactly the BLOB's elements; without it the result is 1-D.
    Packed codes (4-bit two per byte with element 2i in the low nibble,
    2-bit four per byte with element 4i in the low two bits) need the
    shape: a count that does not fill the last byte leaves its unused high
    bits 0, and that is checked.
    """
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TypeError(f"array: blob must be bytes, got {type(blob).__name__}")
    name = _dtype_name("array", dtype)
    dims = None if shape is None else _shape("array", shape)
    raw = np.frombuffer(blob, dtype=np.uint8)
    if _ELEMENTS[name] is None:
        bits = _PACKED[name]
        per = 8 // bits
        if dims is None:
            if per == 2:
                counts = f"{2 * raw.size} or {2 * raw.size - 1}"
            else:
                counts = f"{max(per * raw.size - per + 1, 0)} to {per * raw.size}"
            raise ValueError(f"array: {name} codes need a shape (a byte holds {_PER_BYTE[bits]} codes, so"
                             f" {raw.size} bytes are {counts} codes), got shape=None")
        count = int(np.prod(dims, dtype=np.int64))
        if raw.size != (count + per - 1) // per:
            raise ValueError(f"array: shape {list(dims)} is {count} {name} codes, which take"
                             f" {(count + per - 1) // per} bytes, got {raw.size}")
        if count % per and raw[-1] >> (bits * (count % per)):
            if per == 2:
                raise ValueError(f"array: the last byte of an odd count of {name} codes has 0 in its"
                                 f" high nibble, got 0x{raw[-1]:02X}")
            raise ValueError(f"array: the last byte of {count} {name} codes has 0 in its"
                             f" {8 - bits * (count % per)} unused high bits, got 0x{raw[-1]:02X}")
        mask = (1 << bits) - 1
        codes = np.empty(per * raw.size, dtype=np.uint8)
        for k in range(per):
            codes[k::per] = (raw >> (bits * k)) & mask
        codes = codes[:count]
        if name in ("int4", "int2"):
            half = 1 << (bits - 1)
            codes = ((codes.astype(np.int8) ^ half) - half).astype(np.int8)
        return codes.reshape(dims)
    if _ELEMENTS[name] == "f8":
        values = _float8_table(name)[raw].view(np.float32)
        if dims is None:
            return values
        count = int(np.prod(dims, dtype=np.int64))
        if count != values.size:
            raise ValueError(f"array: shape {list(dims)} is {count} elements, but the BLOB holds"
                             f" {values.size} {name} elements")
        return values.reshape(dims)
    element = np.dtype(_ELEMENTS[name])
    if raw.size % element.itemsize:
        raise ValueError(f"array: {name} BLOBs are whole {element.itemsize}-byte elements,"
                         f" got {raw.size} bytes")
    values = np.frombuffer(blob, dtype=element)
    if name == "bf16":
        # bfloat16 is the high half of a float32.
        values = (values.astype(np.uint32) << 16).view(np.float32)
    values = values.astype(values.dtype.newbyteorder("="))
    if dims is None:
        return values
    count = int(np.prod(dims, dtype=np.int64))
    if count != values.size:
        raise ValueError(f"array: shape {list(dims)} is {count} elements, but the BLOB holds"
                         f" {values.size} {name} elements")
    return values.reshape(dims)
