#!/usr/bin/python3
"""gen_safetensors.py: safetensors test files, valid and invalid, with the
index or the exact error the reader must give (docs/FORMATS.md#safetensors).

    /usr/bin/python3 tests/gen_safetensors.py

writes, deterministically (the outputs are committed; the suite needs no
Python):

  tests/data/safetensors_cases.tcl   every case: its bytes in hex and the
                                     expected tensors and metadata, or error
  tests/data/safetensors_cases.h     the same for tests/safetensors_core_test.c
  tests/data/safetensors/*.safetensors  a few of the valid files, for the
                                     path readers

The writer here is independent of the C reader: only json and struct, laid
out as the published format says (8-byte little-endian header length, the
JSON header padded with spaces to a multiple of 8, then the data of each
tensor in turn).  Invalid files are valid ones with one rule broken by hand.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {  # file name: (canonical name, size, struct code)
    "F64": ("f64", 8, "d"), "F32": ("f32", 4, "f"), "F16": ("f16", 2, "e"),
    "BF16": ("bf16", 2, "H"), "I64": ("int64", 8, "q"), "I32": ("int32", 4, "i"),
    "I16": ("int16", 2, "h"), "I8": ("int8", 1, "b"), "U64": ("uint64", 8, "Q"),
    "U32": ("uint32", 4, "I"), "U16": ("uint16", 2, "H"), "U8": ("uint8", 1, "B"),
    "BOOL": ("bool", 1, "?"), "F8_E4M3": ("f8_e4m3fn", 1, "B"),
    "F8_E5M2": ("f8_e5m2", 1, "B"),
}


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def pack(dtype, values):
    code = DTYPES[dtype][2]
    return struct.pack("<%d%s" % (len(values), code), *values)


def header_bytes(obj, pad_to=8, extra_pad=0, **dumps):
    h = json.dumps(obj, **dumps).encode("utf-8")
    h += b" " * ((-len(h)) % pad_to + extra_pad)
    return h


def frame(header, data=b""):
    return struct.pack("<Q", len(header)) + header + data


def write(tensors, metadata=None, order=None, pad_to=8, extra_pad=0, **dumps):
    """tensors: list of (name, dtype, shape, data bytes), laid out in order.
    order: the header's key order (names; default the data order)."""
    entries, off, data = {}, 0, b""
    for name, dtype, shape, raw in tensors:
        entries[name] = {"dtype": dtype, "shape": list(shape),
                         "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        data += raw
    obj = {}
    if metadata is not None:
        obj["__metadata__"] = metadata
    for name in (order or [t[0] for t in tensors]):
        obj[name] = entries[name]
    if "separators" not in dumps and "indent" not in dumps:
        dumps["separators"] = (",", ":")
    return frame(header_bytes(obj, pad_to, extra_pad, **dumps), data)


def index_of(blob, tensors, metadata=None):
    """The expected index of a file that write() laid out."""
    hlen = struct.unpack("<Q", blob[:8])[0]
    base, off, rows = 8 + hlen, 0, []
    for name, dtype, shape, raw in tensors:
        assert len(raw) == prod(shape) * DTYPES[dtype][1]
        rows.append((name, DTYPES[dtype][0], list(shape), base + off, len(raw)))
        off += len(raw)
    meta = [(k, "string", json.dumps(v, ensure_ascii=False))
            for k, v in (metadata or {}).items()]
    return rows, meta


CASES = []  # (name, bytes, ("ok", rows, meta) | ("error", message))


def ok(name, tensors, metadata=None, order=None, **kw):
    blob = write(tensors, metadata, order, **kw)
    rows, meta = index_of(blob, tensors, metadata)
    CASES.append((name, blob, ("ok", rows, meta)))
    return blob


def bad(name, blob, message):
    CASES.append((name, blob, ("error", "safetensors: " + message)))


def raw_header(text, data=b"", pad=True):
    h = text.encode("utf-8") if isinstance(text, str) else text
    if pad:
        h += b" " * ((-len(h)) % 8)
    return frame(h, data)


def f32(*v):
    return pack("F32", v)


# ---------------------------------------------------------------- valid files
W = ("w", "F32", [2, 2], f32(1.0, -2.0, 0.5, 3.25))
B = ("b", "I8", [3], pack("I8", [1, -2, 127]))
ok("basic", [W, B], {"format": "pt"})
ok("all_dtypes", [
    ("f64", "F64", [2], pack("F64", [1.5, -0.25])),
    ("f32", "F32", [2], pack("F32", [1.5, -0.25])),
    ("f16", "F16", [2], pack("F16", [1.5, -0.25])),
    ("bf16", "BF16", [2], pack("BF16", [0x3FC0, 0xBE80])),
    ("i64", "I64", [2], pack("I64", [-(2 ** 63), 2 ** 63 - 1])),
    ("i32", "I32", [2], pack("I32", [-(2 ** 31), 2 ** 31 - 1])),
    ("i16", "I16", [2], pack("I16", [-32768, 32767])),
    ("i8", "I8", [2], pack("I8", [-128, 127])),
    ("u64", "U64", [2], pack("U64", [0, 2 ** 64 - 1])),
    ("u32", "U32", [2], pack("U32", [0, 2 ** 32 - 1])),
    ("u16", "U16", [2], pack("U16", [0, 65535])),
    ("u8", "U8", [2], pack("U8", [0, 255])),
    ("bool", "BOOL", [2], pack("BOOL", [True, False])),
    ("f8_e4m3fn", "F8_E4M3", [2], bytes([0x38, 0xB8])),
    ("f8_e5m2", "F8_E5M2", [2], bytes([0x3C, 0xBC])),
])
ok("scalar", [("s", "F32", [], f32(7.0))])
ok("empty_tensor", [("e", "F32", [0, 3], b""), ("x", "U8", [2], b"\x01\x02")])
ok("zero_dim_large", [("z", "F64", [0, 2 ** 40, 2 ** 40], b"")])
ok("no_tensors", [])
ok("no_tensors_meta", [], {"k": "v"})
ok("padded_header", [W], extra_pad=64)
ok("indented_header", [W, B], {"a": "b"}, indent=2)
# header order differs from data order: the index follows the data
ok("header_order", [("z", "U8", [1], b"\x05"), ("a", "U8", [2], b"\x06\x07"),
                    ("m", "U8", [1], b"\x08")], order=["a", "m", "z"])
# zero-size tensors tie at one offset: header order breaks the tie
ok("zero_size_ties", [("t2", "F32", [0], b""), ("t1", "F32", [0], b""),
                      ("t0", "U8", [1], b"\x09")], order=["t0", "t2", "t1"])
ok("names_escaped", [("caf\u00e9", "U8", [1], b"\x01"),
                     ("q\"uote\\", "U8", [1], b"\x02"),
                     ("smile\U0001F600", "U8", [1], b"\x03"),
                     ("", "U8", [1], b"\x04"),
                     ("tab\tnl\n", "U8", [1], b"\x05")], ensure_ascii=True)
ok("names_utf8", [("\u043c\u0430\u0442\u0440\u0438\u0446\u0430", "U8", [1],
                   b"\x01")], ensure_ascii=False)
ok("meta_values", [B], {"quote": "a\"b\\c", "nl": "line1\nline2",
                        "ctl": "\x01\x1f", "uni": "caf\u00e9 \U0001F600",
                        "empty": "", "slash": "a/b"}, ensure_ascii=True)
ok("dims_32", [("d", "U8", [1] * 31 + [2], b"\x01\x02")])
h = raw_header(
    '{"__metadata__":null,"b":{"dtype":"I8","shape":[3],"data_offsets":[0,3]}}',
    B[3])
CASES.append(("meta_null", h, ("ok", [("b", "int8", [3], len(h) - 3, 3)], [])))
ok("meta_empty", [B], {})
# keys of a tensor beyond the three are skipped, whatever JSON they hold
text = ('{"b":{"extra":{"x":[1,-2.5e-3,true,false,null,"s",{}],"y":[]},'
        '"dtype":"I8","shape":[3],"data_offsets":[0,3],"z":0}}')
h = raw_header(text, B[3])
CASES.append(("unknown_fields", h,
              ("ok", [("b", "int8", [3], 8 + (len(h) - 8 - 3), 3)], [])))
# escaped field names are the same fields
text = '{"b":{"d\\u0074ype":"I\\u0038","shape":[3],"data_offsets":[0,3]}}'
h = raw_header(text, B[3])
CASES.append(("escaped_field_names", h,
              ("ok", [("b", "int8", [3], 8 + (len(h) - 8 - 3), 3)], [])))
# whitespace of every JSON kind pads the header, not only spaces
h = frame(b'{"b":{"dtype":"I8","shape":[3],"data_offsets":[0,3]}}\n\t\r ', B[3])
CASES.append(("pad_whitespace", h, ("ok", [("b", "int8", [3], len(h) - 3, 3)], [])))
# an unpadded header (not a multiple of 8) is valid too
h = frame(b'{"b":{"dtype":"I8","shape":[3],"data_offsets":[0,3]}}', B[3])
CASES.append(("unpadded", h, ("ok", [("b", "int8", [3], len(h) - 3, 3)], [])))
# The byte vectors of the reference implementation's own serialization
# tests (its Rust crate, tensor.rs), literally: what its writer produces.
REF_F32 = struct.pack("<6f", 0, 1, 2, 3, 4, 5)
h = (struct.pack("<Q", 64) +
     b'{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}' + REF_F32)
CASES.append(("reference_serialization", h,
              ("ok", [("attn.0", "f32", [1, 2, 3], 72, 24)], [])))
h = (struct.pack("<Q", 72) +
     b'{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}' +
     b" " * 7 + REF_F32)
CASES.append(("reference_forced_alignment", h,
              ("ok", [("attn0", "f32", [1, 1, 2, 3], 80, 24)], [])))
h = struct.pack("<Q", 8) + b"{}" + b" " * 6
CASES.append(("reference_empty", h, ("ok", [], [])))
h = struct.pack("<Q", 40) + b'{"__metadata__":{"framework":"pt"}}' + b" " * 5
CASES.append(("reference_empty_metadata", h,
              ("ok", [], [("framework", "string", '"pt"')])))
BIGN = 1000
ok("many_tensors", [("t%05d" % i, "U8", [1], bytes([i % 256]))
                    for i in range(BIGN)])


# ---------------------------------------------------------------- bad files
GOOD = '{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}'
WD = W[3]


def tensor_json(dtype='"F32"', shape="[2,2]", offsets="[0,16]", name="w"):
    return '{"%s":{"dtype":%s,"shape":%s,"data_offsets":%s}}' % (
        name, dtype, shape, offsets)


def at(text, marker, plus=0):
    return text.encode("utf-8").index(marker.encode("utf-8")) + plus


bad("short_file", b"\x10\x00\x00\x00\x00",
    "the file is 5 bytes, too short for the 8-byte header length")
bad("empty_file", b"", "the file is 0 bytes, too short for the 8-byte header length")
bad("header_over_limit", struct.pack("<Q", 100000001) + b"{}      ",
    "header length 100000001 is over the limit of 100000000 bytes")
bad("header_huge", struct.pack("<Q", 2 ** 64 - 1) + b"{}      ",
    "header length 18446744073709551615 is over the limit of 100000000 bytes")
bad("header_past_end", struct.pack("<Q", 4096) + b"{" + b" " * 91,
    "header length 4096 is past the end of the 100-byte file")
bad("header_past_end_by_one", struct.pack("<Q", 9) + b"{}      ",
    "header length 9 is past the end of the 16-byte file")
bad("header_empty", struct.pack("<Q", 0) + WD,
    "the header does not begin with '{'")
bad("header_array", raw_header("[1]"), "the header does not begin with '{'")
bad("header_leading_space", raw_header(" {}"),
    "the header does not begin with '{'")
bad("header_not_utf8", raw_header(b'{"w\xff":1}'),
    "the header is not UTF-8 (byte 0xff at byte 3)")
bad("header_overlong_utf8", raw_header(b'{"\xc0\xaf":1}'),
    "the header is not UTF-8 (byte 0xc0 at byte 2)")
bad("header_surrogate_utf8", raw_header(b'{"\xed\xa0\x80":1}'),
    "the header is not UTF-8 (byte 0xed at byte 2)")
bad("header_truncated_utf8", raw_header(b'{"\xe2\x82', pad=False),
    "the header is not UTF-8 (byte 0xe2 at byte 2)")
t = GOOD[:-1] + ",}"
bad("trailing_comma_object", raw_header(t, WD),
    "header JSON has '}' at byte %d where a string was expected" % at(t, ",}", 1))
t = tensor_json(shape="[2,2,]")
bad("trailing_comma_array", raw_header(t, WD),
    "header JSON has ']' at byte %d where a value was expected" % at(t, ",]", 1))
t = GOOD + "x"
bad("trailing_garbage", raw_header(t, WD),
    "the header has bytes after its JSON object, from byte %d (only "
    "whitespace may pad it)" % (len(t) - 1))
bad("nul_padding", frame(GOOD.encode() + b"\0" * 6, WD),
    "the header has bytes after its JSON object, from byte %d (only "
    "whitespace may pad it)" % len(GOOD))
bad("two_objects", raw_header("{}{}"),
    "the header has bytes after its JSON object, from byte 2 (only "
    "whitespace may pad it)")
t = '{/*c*/}'
bad("comment", raw_header(t), "header JSON has '/' at byte 1 where a string was expected")
t = "{'w':1}"
bad("single_quotes", raw_header(t),
    "header JSON has ''' at byte 1 where a string was expected")
t = '{"w":{"x":NaN,' + GOOD[6:]
bad("nan", raw_header(t, WD),
    "header JSON has 'N' at byte %d where a value was expected" % at(t, "NaN"))
t = tensor_json(shape="[02,2]")
bad("leading_zero", raw_header(t, WD),
    "header JSON has '2' at byte %d where ',' or ']' was expected" % at(t, "02", 1))
t = tensor_json(shape="[+2,2]")
bad("plus_sign", raw_header(t, WD),
    "header JSON has '+' at byte %d where a value was expected" % at(t, "+"))
t = '{"w":{"x":1.,' + GOOD[6:]
bad("bare_point", raw_header(t, WD),
    "header JSON has ',' at byte %d where a digit was expected" % at(t, "1.,", 2))
t = '{"a\\ud800b":1}'
bad("lone_high_surrogate", raw_header(t),
    "header JSON has a lone surrogate \\uD800 at byte 3")
t = '{"a\\udc00":1}'
bad("lone_low_surrogate", raw_header(t),
    "header JSON has a lone surrogate \\uDC00 at byte 3")
t = '{"a\nb":1}'
bad("raw_control_char", raw_header(t),
    "header JSON has byte 0x0a at byte 3 where an escaped control character "
    "was expected")
t = '{"a\\x":1}'
bad("bad_escape", raw_header(t),
    "header JSON has 'x' at byte 4 where an escape was expected")
t = '{"a\\u12g4":1}'
bad("bad_unicode_escape", raw_header(t),
    "header JSON has '1' at byte 5 where 4 hex digits was expected")
t = '{"w":{"dtype":"F32"'
bad("truncated_json", raw_header(t, pad=False),
    "header JSON ends at byte %d where ',' or '}' was expected" % len(t))
t = '{"w"'
bad("truncated_after_key", raw_header(t, pad=False),
    "header JSON ends at byte 4 where ':' was expected")
t = '{"w":{"dtype":"F32'
bad("unterminated_string", raw_header(t, pad=False),
    "header JSON ends at byte %d where the end of a string was expected" % len(t))
t = '{"w" 1}'
bad("missing_colon", raw_header(t), "header JSON has '1' at byte 5 where ':' was expected")
t = '{"w":{"x":tru,' + GOOD[6:]
bad("bad_literal", raw_header(t, WD),
    "header JSON has 't' at byte 10 where a value was expected")
# nesting: 62 arrays inside the header and the tensor object is 64 levels
t = '{"w":{"x":' + "[" * 62 + "]" * 62 + "," + GOOD[6:]
ok_blob = raw_header(t, WD)
CASES.append(("nesting_64", ok_blob,
              ("ok", [("w", "f32", [2, 2], len(ok_blob) - 16, 16)], [])))
t = '{"w":{"x":' + "[" * 63 + "]" * 63 + "," + GOOD[6:]
bad("nesting_65", raw_header(t, WD),
    "the header nests deeper than 64 levels at byte %d" % (10 + 62))
t = '{"w":{"x":' + "[" * 1000 + "]" * 1000 + "," + GOOD[6:]
bad("nesting_1000", raw_header(t, WD),
    "the header nests deeper than 64 levels at byte %d" % (10 + 62))

# dtype, shape, data_offsets
bad("dtype_unknown", raw_header(tensor_json(dtype='"F128"'), WD),
    "tensor 'w' has unknown dtype \"F128\" (expected F64, F32, F16, BF16, I64, "
    "I32, I16, I8, U64, U32, U16, U8, BOOL, F8_E4M3 or F8_E5M2)")
bad("dtype_lower_case", raw_header(tensor_json(dtype='"f32"'), WD),
    "tensor 'w' has unknown dtype \"f32\" (expected F64, F32, F16, BF16, I64, "
    "I32, I16, I8, U64, U32, U16, U8, BOOL, F8_E4M3 or F8_E5M2)")
bad("dtype_number", raw_header(tensor_json(dtype="32"), WD),
    "tensor 'w' dtype must be a string, not '32'")
bad("shape_negative", raw_header(tensor_json(shape="[-2,-2]"), WD),
    "tensor 'w' shape must be non-negative integers, not -2")
bad("shape_fraction", raw_header(tensor_json(shape="[2.0,2]"), WD),
    "tensor 'w' shape must be non-negative integers, not 2.0")
bad("shape_exponent", raw_header(tensor_json(shape="[2e0,2]"), WD),
    "tensor 'w' shape must be non-negative integers, not 2e0")
bad("shape_string", raw_header(tensor_json(shape='["2",2]'), WD),
    "tensor 'w' shape must be non-negative integers, not '\"2\"'")
bad("shape_not_array", raw_header(tensor_json(shape="4"), WD),
    "tensor 'w' shape must be an array, not '4'")
bad("shape_63_bits", raw_header(tensor_json(shape="[9223372036854775808]"), WD),
    "tensor 'w' shape value 9223372036854775808 is too large")
bad("shape_33_dims", raw_header(tensor_json(shape="[" + ",".join(["1"] * 33) + "]",
                                            dtype='"U8"', offsets="[0,1]"), b"\1"),
    "tensor 'w' shape has more than 32 entries")
bad("shape_overflow", raw_header(tensor_json(shape="[4294967296,4294967296]"), WD),
    "tensor 'w' shape [4294967296, 4294967296] holds more than 2^64 bytes")
bad("shape_overflow_by_size",
    raw_header(tensor_json(shape="[4611686018427387904]"), WD),
    "tensor 'w' shape [4611686018427387904] holds more than 2^64 bytes")
bad("size_mismatch", raw_header(tensor_json(offsets="[0,12]"), WD[:12]),
    "tensor 'w' data_offsets [0, 12] hold 12 bytes but its dtype and shape need 16")
bad("size_mismatch_scalar", raw_header(tensor_json(shape="[]", offsets="[0,8]"),
                                       WD[:8]),
    "tensor 'w' data_offsets [0, 8] hold 8 bytes but its dtype and shape need 4")
bad("offsets_reversed", raw_header(tensor_json(offsets="[16,0]"), WD),
    "tensor 'w' data_offsets [16, 0] end before they begin")
bad("offsets_three", raw_header(tensor_json(offsets="[0,8,16]"), WD),
    "tensor 'w' data_offsets has more than 2 entries")
bad("offsets_one", raw_header(tensor_json(offsets="[16]"), WD),
    "tensor 'w' data_offsets must be [begin, end], not 1 numbers")
bad("offsets_negative", raw_header(tensor_json(offsets="[-16,0]"), WD),
    "tensor 'w' data_offsets must be non-negative integers, not -16")
bad("offsets_over_u64",
    raw_header(tensor_json(offsets="[18446744073709551600,18446744073709551616]"), WD),
    "tensor 'w' data_offsets value 18446744073709551616 is too large")
bad("offsets_near_u64",
    raw_header(tensor_json(offsets="[18446744073709551599,18446744073709551615]"), WD),
    "tensor 'w' data_offsets [18446744073709551599, 18446744073709551615] leave a "
    "hole: bytes [0, 18446744073709551599) of the data belong to no tensor")
bad("missing_dtype", raw_header('{"w":{"shape":[2,2],"data_offsets":[0,16]}}', WD),
    "tensor 'w' has no dtype")
bad("missing_shape", raw_header('{"w":{"dtype":"F32","data_offsets":[0,16]}}', WD),
    "tensor 'w' has no shape")
bad("missing_offsets", raw_header('{"w":{"dtype":"F32","shape":[2,2]}}', WD),
    "tensor 'w' has no data_offsets")
bad("empty_entry", raw_header('{"w":{}}'), "tensor 'w' has no dtype")
bad("field_twice", raw_header(
    '{"w":{"dtype":"F32","shape":[2,2],"dtype":"F32","data_offsets":[0,16]}}', WD),
    "tensor 'w' has two 'dtype' fields")
bad("entry_not_object", raw_header('{"w":[1,2]}'),
    "tensor 'w' must be an object, not '[1,2]'")
bad("entry_null", raw_header('{"w":null}'), "tensor 'w' must be an object, not 'null'")

# names
t = '{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},' \
    '"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
bad("duplicate_name", raw_header(t, WD[:8]), "tensor 'w' appears twice")
t = '{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},' \
    '"\\u0077":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
bad("duplicate_name_escaped", raw_header(t, WD[:8]), "tensor 'w' appears twice")
t = '{"a\\u0000b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
bad("nul_in_name", raw_header(t, WD[:4]),
    "the tensor name at byte 1 contains a NUL character")
long_name = "n" * 300
bad("long_name_quoted_short", raw_header(tensor_json(name=long_name, offsets="[0,12]"),
                                         WD[:12]),
    "tensor '%s' data_offsets [0, 12] hold 12 bytes but its dtype and shape need 16"
    % ("n" * 48))
bad("long_utf8_name_cut_at_character",
    raw_header(tensor_json(name="\u00e9" * 40, offsets="[0,12]"), WD[:12]),
    "tensor '%s' data_offsets [0, 12] hold 12 bytes but its dtype and shape need 16"
    % ("\u00e9" * 24))

# metadata
bad("metadata_twice", raw_header('{"__metadata__":{},"__metadata__":{}}'),
    "__metadata__ appears twice")
bad("metadata_not_object", raw_header('{"__metadata__":"x"}'),
    "__metadata__ must be an object, not '\"x\"'")
bad("metadata_value_number", raw_header('{"__metadata__":{"k":1}}'),
    "__metadata__ value of 'k' must be a string, not '1'")
bad("metadata_value_object", raw_header('{"__metadata__":{"k":{"a":"b"}}}'),
    "__metadata__ value of 'k' must be a string, not '{\"a\":\"b\"}'")
bad("metadata_key_twice", raw_header('{"__metadata__":{"k":"a","k":"b"}}'),
    "__metadata__ key 'k' appears twice")
bad("metadata_nul_key", raw_header('{"__metadata__":{"\\u0000":"a"}}'),
    "__metadata__ key at byte 17 contains a NUL character")
bad("metadata_trailing_comma", raw_header('{"__metadata__":{"k":"a",}}'),
    "header JSON has '}' at byte 25 where a string was expected")

# layout of the data buffer
def two(a, b, data):
    return raw_header('{"a":{"dtype":"F32","shape":[1],"data_offsets":%s},'
                      '"b":{"dtype":"F32","shape":[1],"data_offsets":%s}}'
                      % (a, b), data)


bad("hole", two("[0,4]", "[8,12]", WD[:12]),
    "tensor 'b' data_offsets [8, 12] leave a hole: bytes [4, 8) of the data "
    "belong to no tensor")
bad("hole_at_start", two("[4,8]", "[8,12]", WD[:12]),
    "tensor 'a' data_offsets [4, 8] leave a hole: bytes [0, 4) of the data "
    "belong to no tensor")
bad("overlap", raw_header(
    '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
    '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', WD[:12]),
    "tensor 'b' data_offsets [4, 12] overlap tensor 'a' data_offsets [0, 8]")
bad("same_offsets", two("[0,4]", "[0,4]", WD[:4]),
    "tensor 'b' data_offsets [0, 4] overlap tensor 'a' data_offsets [0, 4]")
bad("past_end", two("[0,4]", "[4,8]", WD[:6]),
    "tensor 'b' data_offsets [4, 8] end past the 6-byte data buffer (is the file "
    "truncated?)")
bad("unused_tail", two("[0,4]", "[4,8]", WD[:12]),
    "the tensors' data ends at byte 8 of the 12-byte data buffer (4 bytes "
    "belong to no tensor)")
bad("no_tensors_but_data", raw_header("{}", b"\0\0\0\0"),
    "the tensors' data ends at byte 0 of the 4-byte data buffer (4 bytes belong "
    "to no tensor)")
bad("truncated_file", ok("_trunc", [W, B])[:-1],
    "tensor 'b' data_offsets [16, 19] end past the 18-byte data buffer (is the "
    "file truncated?)")
CASES[:] = [c for c in CASES if c[0] != "_trunc"]


# ---------------------------------------------------------------- outputs
def tcl_word(s):
    if s and all(c.isalnum() or c in "_-.:,/'<>=+()!?@%^&*|~`#" for c in s):
        return s
    out = []
    for c in s:
        o = ord(c)
        if c in '\\{}[]$"; ':
            out.append("\\" + c)
        elif o < 0x20 or o >= 0x7F:
            out.append("\\u%04x" % o if o < 0x10000 else "\\U%08x" % o)
        else:
            out.append(c)
    return '"' + "".join(out) + '"' if s else "{}"


def shape_json(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def tcl_output(path):
    lines = ["# safetensors_cases.tcl: generated by tests/gen_safetensors.py; do "
             "not edit.",
             "# One case per element: {name bytes_hex ok {tensors} {meta}} or "
             "{name bytes_hex error message}.",
             "# A tensor is {name_hex dtype shape_json offset nbytes data_hex}; a "
             "meta row {key_hex type value_hex}",
             "# (hex of the UTF-8 text; value is JSON).  The message has no SQL "
             "function prefix.",
             "set safetensors_cases {}"]
    for name, blob, exp in CASES:
        if exp[0] == "ok":
            ts = []
            for tname, dt, shape, off, nb in exp[1]:
                ts.append("{%s %s %s %d %d %s}" % (
                    tname.encode().hex().upper() or "{}", dt, shape_json(shape),
                    off, nb, blob[off:off + nb].hex().upper() or "{}"))
            ms = ["{%s %s %s}" % (k.encode().hex().upper() or "{}", ty,
                                  v.encode().hex().upper())
                  for k, ty, v in exp[2]]
            rest = "ok [list %s] [list %s]" % (" ".join(ts), " ".join(ms))
        else:
            rest = "error " + tcl_word(exp[1])
        lines.append("lappend safetensors_cases [list %s %s %s]" % (
            name, blob.hex().upper() or "{}", rest))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def c_string(b):
    out = []
    for c in b:
        if c in b'"\\':
            out.append("\\" + chr(c))
        elif 0x20 <= c < 0x7F and c != ord("?"):
            out.append(chr(c))
        else:
            out.append("\\%03o" % c)
    return '"' + "".join(out) + '"'


def c_output(path):
    out = ["/* safetensors_cases.h: generated by tests/gen_safetensors.py; do "
           "not edit. */"]
    for k, (name, blob, exp) in enumerate(CASES):
        data = ",".join(str(b) for b in blob) or "0"
        out.append("static const unsigned char st_case_%d[] = {%s};" % (k, data))
    out.append("static const struct st_case {\n  const char *name;\n"
               "  const unsigned char *bytes;\n  size_t n;\n"
               "  const char *error;  /* NULL when the file is valid */\n"
               "  const char *index;  /* sq_file_index in the test's text "
               "form */\n} st_cases[] = {")
    for k, (name, blob, exp) in enumerate(CASES):
        if exp[0] == "ok":
            text = b""
            for tname, dt, shape, off, nb in exp[1]:
                text += ("T %s %s %s %d %d\n" % (tname.encode().hex(), dt,
                                                 shape_json(shape), off,
                                                 nb)).encode()
            for key, ty, v in exp[2]:
                text += ("M %s %s %s\n" % (key.encode().hex(), ty,
                                           v.encode().hex())).encode()
            out.append("  {%s, st_case_%d, %d, NULL, %s}," % (
                c_string(name.encode()), k, len(blob), c_string(text)))
        else:
            out.append("  {%s, st_case_%d, %d, %s, NULL}," % (
                c_string(name.encode()), k, len(blob),
                c_string(exp[1].encode())))
    out.append("};")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


FILES = ["basic", "all_dtypes", "scalar", "names_escaped", "meta_values",
         "empty_tensor", "no_tensors"]

if __name__ == "__main__":
    data = os.path.join(HERE, "data")
    tcl_output(os.path.join(data, "safetensors_cases.tcl"))
    c_output(os.path.join(data, "safetensors_cases.h"))
    os.makedirs(os.path.join(data, "safetensors"), exist_ok=True)
    for name, blob, exp in CASES:
        if name in FILES:
            with open(os.path.join(data, "safetensors", name + ".safetensors"),
                      "wb") as f:
                f.write(blob)
