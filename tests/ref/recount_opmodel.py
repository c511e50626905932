"""The op model of docs/FINDINGS.md section 3, recounted from the page alone.

    model(name, args) -> None (not modelled) or
                         {"class", "flops" (int or None), "bytes" (int or None)}

One CPU op instance's FLOPs and bytes from its args "Input Dims", "Input
type" and (attention, convolution, reductions) "Concrete Inputs".  It shares
no code with tix (index/perf_model.c) and is read only by recount_findings.py.
Every choice the page leaves open is said where it is made ("Reading:").

Reading (tensors): an input is a tensor when its "Input type" is not one of
NON_TENSOR (the tags Kineto writes for non-tensor arguments: "Scalar",
"ScalarList", "", and the old IValue tags "Int", "Double", "Bool",
"GenericList" of 2021 traces); its Input Dims must then be a list of integers
(a 0-d tensor is [] and has one element).  A tensor whose dtype is not in
DTYPE_BYTES (the page's table, exactly: "long" and "Float" are not in it) has
unknown bytes, so the op's bytes are None; its FLOPs are still counted.  An
op whose inputs do not have the shapes its formula needs is not modelled.
An op whose FLOPs and bytes are both None is not modelled either.
"""

import re

# section 3, "dtype sizes (Kineto's Input type spellings)"
DTYPE_BYTES = {
    "double": 8, "long int": 8, "long": 8, "int64_t": 8, "unsigned long": 8, "c10::complex<float>": 8,
    "float": 4, "int": 4, "unsigned int": 4, "c10::qint32": 4, "c10::complex<c10::Half>": 4,
    "c10::Half": 2, "c10::BFloat16": 2, "short int": 2, "short": 2, "unsigned short": 2,
    "Half": 2, "BFloat16": 2, "Float8_e4m3fn": 1, "Float8_e5m2": 1,
    "char": 1, "int8_t": 1, "uint8_t": 1, "c10::qint8": 1, "c10::quint8": 1,
    "c10::Float8_e4m3fn": 1, "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2": 1,
    "c10::Float8_e5m2fnuz": 1, "c10::Float8_e8m0fnu": 1, "c10::Float4_e2m1fn_x2": 1,
    "unsigned char": 1, "signed char": 1, "bool": 1,
    "c10::complex<double>": 16,
}
FP4_PACKED = "c10::Float4_e2m1fn_x2"
NON_TENSOR = {"", "Scalar", "ScalarList", "TensorList", "GenericList", "Int", "Double", "Bool",
              "None", "String", "Device"}

GEMM = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm",
        "aten::linear", "aten::matmul"}
# Reading: the page says "is_causal 'True' in Concrete Inputs" without the
# position; it is each op's own argument (PyTorch's signatures), and the
# layout is the page's: [B,H,N,d] for the first four, [B,N,H,d] for the last two.
ATTENTION = {  # name: (layout, index of is_causal in Concrete Inputs)
    "aten::scaled_dot_product_attention": ("BHNd", 5),
    "aten::_scaled_dot_product_flash_attention": ("BHNd", 4),
    "aten::_scaled_dot_product_efficient_attention": ("BHNd", 6),
    "aten::_scaled_dot_product_cudnn_attention": ("BHNd", 6),
    "aten::_flash_attention_forward": ("BNHd", 8),
    "flash_attn::_flash_attn_forward": ("BNHd", 5),
}
# Concrete Inputs positions of stride, padding, dilation, transposed,
# output_padding, groups (None: the signature has no such argument).
# Reading: aten::cudnn_convolution(self, weight, padding, stride, dilation,
# groups, ...) orders them differently from aten::convolution; each is read
# from its own signature.
CONV = {
    "aten::convolution": (3, 4, 5, 6, 7, 8),
    "aten::_convolution": (3, 4, 5, 6, 7, 8),
    "aten::cudnn_convolution": (3, 2, 4, None, None, 5),
    # conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)
    "aten::conv1d": (3, 4, 5, None, None, 6),
    "aten::conv2d": (3, 4, 5, None, None, 6),
    "aten::conv3d": (3, 4, 5, None, None, 6),
}
COPY = {"aten::copy_", "aten::clone", "aten::contiguous"}
# Section 3: each unary op and its in-place form (name_).
_UNARY = ("silu", "gelu", "relu", "sigmoid", "tanh", "exp", "neg", "rsqrt", "sqrt", "pow", "clamp",
          "clamp_min", "clamp_max", "abs", "reciprocal")
UNARY = {"aten::" + n for n in _UNARY} | {"aten::" + n + "_" for n in _UNARY}
BINARY = {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_",
          "aten::div", "aten::div_", "aten::maximum", "aten::minimum"}
TERNARY = {"aten::where"}
SOFTMAX = {"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"}
# Reading: the reduced dims come from the op's `dim` argument: position 2 for
# norm(self, p, dim, ...) and linalg_vector_norm(self, ord, dim, ...), 1 for
# the others; an entry that is not an integer or a list of them (None, a
# bool of std(self, unbiased)) reduces everything (1 element).
REDUCTION = {"aten::sum": 1, "aten::mean": 1, "aten::amax": 1, "aten::amin": 1, "aten::max": 1,
             "aten::min": 1, "aten::norm": 2, "aten::linalg_vector_norm": 2, "aten::std": 1,
             "aten::var": 1, "aten::logsumexp": 1}
NORM = {"aten::layer_norm", "aten::native_layer_norm", "aten::rms_norm", "aten::_fused_rms_norm",
        "aten::group_norm", "aten::native_group_norm", "aten::batch_norm",
        "aten::native_batch_norm"}

MODELLED_NAMES = (GEMM | set(ATTENTION) | set(CONV) | COPY | UNARY | BINARY | TERNARY | SOFTMAX
                  | set(REDUCTION) | NORM)


class NotModelled(Exception):
    pass


def _int(v):
    if isinstance(v, bool):
        raise NotModelled
    if isinstance(v, int):
        return v
    try:
        if int(v) == v:
            return int(v)
    except (TypeError, ValueError):
        pass
    raise NotModelled


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Inputs:
    """An op instance's inputs: shapes, dtypes and concrete values by position."""

    def __init__(self, args):
        dims, types = args.get("Input Dims"), args.get("Input type")
        if not isinstance(dims, list) or not isinstance(types, list):
            raise NotModelled
        self.dims, self.types = dims, types
        ci = args.get("Concrete Inputs")
        self.concrete = ci if isinstance(ci, list) else None

    def is_tensor(self, i):
        return (i < len(self.types) and isinstance(self.types[i], str)
                and self.types[i] not in NON_TENSOR)

    def shape(self, i):
        """The shape of tensor input i (NotModelled when it is not one)."""
        if not self.is_tensor(i) or i >= len(self.dims) or not isinstance(self.dims[i], list):
            raise NotModelled
        return [_int(d) for d in self.dims[i]]

    def shape_nd(self, i, n):
        s = self.shape(i)
        if len(s) != n:
            raise NotModelled
        return s

    def bpe(self, i):
        """Bytes per element of tensor input i, None when its dtype is unknown."""
        return DTYPE_BYTES.get(self.types[i]) if self.is_tensor(i) else None

    def conc(self, i):
        """Concrete Inputs[i] as a string, or None."""
        if self.concrete is None or i is None or i >= len(self.concrete):
            return None
        v = self.concrete[i]
        return v if isinstance(v, str) else None


def _bytes(bpe, elements):
    return None if bpe is None else elements * bpe


def _ints(text, n):
    """"[1, 2]" or "3" as n integers (one value broadcast); NotModelled else."""
    if text is None:
        raise NotModelled
    t = text.strip()
    if re.fullmatch(r"-?[0-9]+", t):
        return [int(t)] * n
    m = re.fullmatch(r"\[\s*(-?[0-9]+(\s*,\s*-?[0-9]+)*)?\s*\]", t)
    if not m:
        raise NotModelled
    vals = [int(x) for x in re.findall(r"-?[0-9]+", t)]
    if len(vals) == 1:
        return vals * n
    if len(vals) != n:
        raise NotModelled
    return vals


def _bool(text):
    if text in ("True", "true", "1"):
        return True
    if text in ("False", "false", "0"):
        return False
    raise NotModelled


# ---------------------------------------------------------------------------
# GEMM

def _k_factor(inp, i):
    """Packed FP4 holds two values per element: K is twice the packed dimension."""
    return 2 if inp.types[i] == FP4_PACKED else 1


def _mm(inp, a, b, batched):
    n = 3 if batched else 2
    A, B = inp.shape_nd(a, n), inp.shape_nd(b, n)
    if batched and A[0] != B[0]:
        raise NotModelled
    if A[-1] != B[-2]:
        raise NotModelled
    nb = A[0] if batched else 1
    M, K, N = A[-2], A[-1], B[-1]
    return nb, M, N, K


def gemm(name, inp):
    if name in ("aten::mm", "aten::bmm"):
        a, b = 0, 1
        nb, M, N, K = _mm(inp, a, b, name == "aten::bmm")
        flops = nb * 2 * M * N * K * _k_factor(inp, a)
        return flops, _bytes(inp.bpe(a), nb * (M * K + K * N + M * N))
    if name in ("aten::addmm", "aten::baddbmm"):
        a, b = 1, 2
        nb, M, N, K = _mm(inp, a, b, name == "aten::baddbmm")
        flops = nb * (2 * M * N * K * _k_factor(inp, a) + M * N)
        return flops, _bytes(inp.bpe(a), nb * (M * K + K * N + M * N + N))
    if name == "aten::_scaled_mm":
        _, M, N, K = _mm(inp, 0, 1, False)
        flops = 2 * M * N * K * _k_factor(inp, 0)
        bpe = inp.bpe(0)
        if bpe is None:
            return flops, None
        out = 2 if bpe == 1 else bpe
        return flops, M * K * bpe + K * N * bpe + M * N * out
    if name == "aten::linear":
        x, W = inp.shape(0), inp.shape_nd(1, 2)
        if not x or x[-1] != W[1]:
            raise NotModelled
        K, N = W[1], W[0]
        rows = prod(x) // K
        # Reading: a bias is a third tensor input of one or more dims
        bias = inp.is_tensor(2) and len(inp.shape(2)) >= 1
        flops = 2 * rows * N * K * _k_factor(inp, 0) + (rows * N if bias else 0)
        # section 3: as addmm, the bias's N elements read too
        return flops, _bytes(inp.bpe(0), prod(x) + N * K + rows * N + (N if bias else 0))
    if name == "aten::matmul":
        return matmul(inp)
    raise NotModelled


def matmul(inp):
    """Reading: PyTorch's matmul semantics: a 1-D first operand is one row
    ([1, K]), a 1-D second one is one column ([K, 1]); the batch is the
    broadcast of the leading dims, b its element count."""
    A, B = inp.shape(0), inp.shape(1)
    if not A or not B:
        raise NotModelled
    if len(A) == 1:
        A = [1] + A
    if len(B) == 1:
        B = B + [1]
    if A[-1] != B[-2]:
        raise NotModelled
    batch = broadcast([A[:-2], B[:-2]])
    nb, M, K, N = prod(batch), A[-2], A[-1], B[-1]
    flops = 2 * nb * M * N * K * _k_factor(inp, 0)
    return flops, _bytes(inp.bpe(0), nb * (M * K + K * N + M * N))


def broadcast(shapes):
    n = max(len(s) for s in shapes)
    out = []
    for k in range(n):
        vals = {s[len(s) - n + k] for s in shapes if len(s) - n + k >= 0}
        vals.discard(1)
        if len(vals) > 1:
            raise NotModelled
        out.append(vals.pop() if vals else 1)
    return out


# ---------------------------------------------------------------------------
# attention, convolution

def causal_pairs(nq, nkv):
    """Σ_{i<N_q} min(i+1, N_kv): the (query, key) pairs PyTorch's causal mask keeps."""
    m = min(nq, nkv)
    return m * (m + 1) // 2 + (nq - m) * nkv


def attention(name, inp):
    layout, ci = ATTENTION[name]
    q, k, v = inp.shape_nd(0, 4), inp.shape_nd(1, 4), inp.shape_nd(2, 4)
    if layout == "BHNd":
        (B, H, Nq, dqk), (Bk, Hkv, Nkv, dk), (Bv, Hv, Nv, dv) = q, k, v
    else:
        (B, Nq, H, dqk), (Bk, Nkv, Hkv, dk), (Bv, Nv, Hv, dv) = q, k, v
    if not (B == Bk == Bv and dqk == dk and Nkv == Nv and Hkv == Hv):
        raise NotModelled
    # Reading: without Concrete Inputs the mask is unknown, so the op is not
    # modelled (the page lists Concrete Inputs among attention's inputs)
    causal = _bool(inp.conc(ci))
    pairs = causal_pairs(Nq, Nkv) if causal else Nq * Nkv
    flops = 2 * B * H * pairs * (dqk + dv)
    elems = B * H * Nq * dqk + B * Hkv * Nkv * (dqk + dv) + B * H * Nq * dv
    return flops, _bytes(inp.bpe(0), elems)


def convolution(name, inp):
    i_stride, i_pad, i_dil, i_tr, i_opad, i_groups = CONV[name]
    x, w = inp.shape(0), inp.shape(1)
    sp = len(x) - 2
    if sp < 1 or len(w) != len(x):
        raise NotModelled
    stride, pad, dil = _ints(inp.conc(i_stride), sp), _ints(inp.conc(i_pad), sp), _ints(inp.conc(i_dil), sp)
    transposed = _bool(inp.conc(i_tr)) if i_tr is not None else False
    opad = _ints(inp.conc(i_opad), sp) if i_opad is not None else [0] * sp
    groups = _ints(inp.conc(i_groups), 1)[0]
    if groups < 1:
        raise NotModelled
    ks = w[2:]
    if transposed:
        cout = w[1] * groups
        osp = [(x[2 + j] - 1) * stride[j] - 2 * pad[j] + dil[j] * (ks[j] - 1) + opad[j] + 1
               for j in range(sp)]
    else:
        cout = w[0]
        if any(s <= 0 for s in stride):
            raise NotModelled
        osp = [(x[2 + j] + 2 * pad[j] - dil[j] * (ks[j] - 1) - 1) // stride[j] + 1 for j in range(sp)]
    if any(o <= 0 for o in osp):
        raise NotModelled
    out = [x[0], cout] + osp
    flops = 2 * prod(w[1:]) * (prod(x) if transposed else prod(out))
    return flops, _bytes(inp.bpe(0), prod(x) + prod(w) + prod(out))


# ---------------------------------------------------------------------------
# memory-class ops

def copy(name, inp):
    dst = inp.shape(0)
    src = 1 if name == "aten::copy_" else 0    # clone / contiguous: dst is the input's copy
    if src == 1:
        inp.shape(1)
    a, b = inp.bpe(0), inp.bpe(src)
    return None, (None if a is None or b is None else prod(dst) * (a + b))


def elementwise(name, inp):
    # Reading: the inputs are the op's operands by arity (unary: 0; binary:
    # 0, 1; where: 0, 1, 2), so an alpha or an out= tensor is not an input
    arity = 1 if name in UNARY else 3 if name in TERNARY else 2
    if not inp.is_tensor(0):
        raise NotModelled
    ins = [i for i in range(arity) if inp.is_tensor(i)]
    shapes = [inp.shape(i) for i in ins]
    out = broadcast(shapes)
    n_out = prod(out)
    sizes = [inp.bpe(i) for i in ins]
    if any(s is None for s in sizes):
        return n_out, None
    return n_out, sum(prod(s) * b for s, b in zip(shapes, sizes)) + n_out * max(sizes)


def _dims(text):
    """A `dim` argument as a list of integers; None (everything reduced) when
    it is absent, empty, or not integers."""
    if text is None:
        return None
    t = text.strip()
    if re.fullmatch(r"-?[0-9]+", t):
        return [int(t)]
    if re.fullmatch(r"\[\s*-?[0-9]+(\s*,\s*-?[0-9]+)*\s*\]", t):
        return [int(v) for v in re.findall(r"-?[0-9]+", t)]
    return None


def reduction(name, inp):
    x = inp.shape(0)
    n_in = prod(x)
    if name in SOFTMAX:
        n_out = n_in
    else:
        if name in ("aten::max", "aten::min") and inp.is_tensor(1):
            raise NotModelled     # max(self, other) is elementwise, not a reduction
        dims = _dims(inp.conc(REDUCTION[name]))
        n_out = 1
        if dims:
            r = len(x)
            keep = set(range(r))
            for d in dims:
                if not -r <= d < r:
                    raise NotModelled
                keep.discard(d % r)
            n_out = prod([x[k] for k in sorted(keep)])
    bpe = inp.bpe(0)
    return n_in, _bytes(bpe, n_in + n_out)


def normalisation(name, inp):
    x = inp.shape(0)
    n = prod(x)
    # Reading: "(weights)" is every tensor input after x (weight, bias, and
    # batch norm's running mean and variance), at x's dtype size
    weights = sum(prod(inp.shape(i)) for i in range(1, len(inp.types)) if inp.is_tensor(i)
                  and i < len(inp.dims) and isinstance(inp.dims[i], list))
    return 5 * n, _bytes(inp.bpe(0), 2 * n + weights)


CLASSES = [(GEMM, "gemm", gemm), (set(ATTENTION), "attention", attention),
           (set(CONV), "convolution", convolution), (COPY, "copy", copy),
           (UNARY | BINARY | TERNARY, "elementwise", elementwise),
           (SOFTMAX | set(REDUCTION), "reduction", reduction), (NORM, "norm", normalisation)]


def model(name, args):
    """One instance's model, or None when the op is not modelled."""
    if name not in MODELLED_NAMES or not isinstance(args, dict):
        return None
    for names, cls, fn in CLASSES:
        if name in names:
            try:
                flops, nbytes = fn(name, Inputs(args))
            except NotModelled:
                return None
            if flops is None and nbytes is None:
                return None
            return {"class": cls, "flops": flops, "bytes": nbytes}
    return None
