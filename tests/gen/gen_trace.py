#!/usr/bin/env python3
"""Deterministic generator of a GLM-5-like SGLang decode trace in Kineto JSON.

The output copies what torch.profiler (Kineto) writes: the JSON Object Format
with schemaVersion / deviceProperties / distributedInfo / traceEvents /
traceName / displayTimeUnit / baseTimeNanoseconds, one multi-line event per
"  {" ... "  }" block, the odd spacing of Kineto's args, ts and dur as
fractional microseconds with three decimals relative to baseTimeNanoseconds.

The content is the story from DESIGN.md: N decode steps x L layers of an MoE
model with MLA attention on one CPU thread (pid P, tid P) that launches onto
one GPU stream (device 0, stream 7) and an NCCL stream (stream 20).  Every
layer also launches the FP8 -> BF16 cast of the whole KV cache pool
(grid [557496,1,1], ~828 us) under aten::to -> aten::_to_copy -> aten::copy_,
so that the casts take ~69% of kernel time.

Like Kineto, the file holds first all CPU-side events (ops, annotations,
python frames; per thread in start order), then the GPU activity records
(kernel + "f" flow, launch call + "s" flow, ...), then the "M" metadata, the
"Trace" span and the instants.  --layout interleaved writes each step's CPU
events followed by its GPU events instead (useful with --truncate-at).

Quirks of real traces that are reproduced on purpose: launch records follow
their kernel in the file, cudaEventRecord carries an "f" flow with no "s",
cudaStreamWaitEvent / cudaStreamSynchronize carry an "s" flow with no "f",
correlation ids skip numbers, python frames share "Ev Idx" with ops.

Variants for the rules of issue 8 (each off by default; with all of them off
the output is byte for byte what it was before they existed):
  --with-stack       profiler.step() frames and ProfilerStep#N overlapping as
                     Kineto writes them with with_stack=True;
  --graph            CUDA graph replays (cudaGraphLaunch), with --capture-out
                     the capture trace (--capture-batches, --capture-names
                     nvidia|rocm), --graph-extra-kernel, --graph-reorder;
  --two-processes    a merged trace of two processes with colliding ids;
  --pre-window N     GPU work launched before the profiler's CPU window.

A tensor-parallel run (issue 11), also off by default:
  --ranks N          N files, OUT-rank0.json ... (OUT's .json / .json.gz kept),
                     one per rank, each with distributedInfo {rank, world_size}
                     and the same steps and layers; every all-reduce (an NCCL
                     kernel per attention and per MoE block) ends on all ranks
                     together, when the last rank has arrived plus each rank's
                     own transfer time, so a rank that arrives early waits in
                     the kernel.  The ranks' clocks disagree by up to ~3 ms, as
                     hosts' clocks do.  --slow-rank K makes rank K late:
                     --slow-what compute (default) multiplies its compute
                     kernels' durations by --slow-factor F (default 1.3);
                     --slow-what cpu its CPU-side times (launch calls and the
                     gaps between ops), so that its GPU starves while its
                     compute stays the same.  --truth FILE gets per step x
                     rank the wall, GPU busy, compute (union of non-NCCL GPU
                     work) and comm (union of NCCL kernels) times, and per
                     step the skew (max - min comm) and the straggler (the
                     rank with the least comm).

Usage: gen_trace.py -o OUT[.gz] [--steps N] [--layers N] [--marker ...]
       [--python-frames] [--target-mb M] [--truncate-at F] [--seed S]
       [--bs N] [--prefill] [--truth FILE] [--gzip] [--layout ...]
       [--with-stack] [--graph [--capture-out FILE] ...] [--two-processes]
       [--pre-window N] [--ranks N [--slow-rank K] [--slow-factor F]
       [--slow-what compute|cpu]]
Only the Python standard library is used.
"""

import argparse
import gzip
import io
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

PID = 2817345           # the SGLang scheduler process, also its main thread
COMPUTE = 7             # GPU stream of the model
NCCL = 20               # GPU stream of NCCL
NUM_GPUS = 8            # TP8; this is rank 0
NUM_SMS = 148           # B200
BASE_TIME_NS = 1767189312000000000
T0_NS = 5043212345      # first step, relative to baseTimeNanoseconds

CAST_NAME = (
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"
    "(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()"
    "() const::{lambda(c10::Float8_e4m3fn)#1}, std::array<char*, 2ul>, 4, "
    "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
    "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()"
    "() const::{lambda()#7}::operator()() const::{lambda(c10::Float8_e4m3fn)#1}, "
    "std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1>)")
CAST_NS = 828000        # mean duration of one cast
OTHER_LAYER_NS = 370000  # mean total of the other kernels of a layer

KV_TOKENS = 495552      # KV cache pool: 495552 tokens x 1 x 576 FP8
# --fixed: the gather-then-cast patch casts only the tokens in use, 335,155
# of them: 193,049,280 elements in 377,050 blocks of 128 threads x 4, in
# proportionally less time (decode 29% faster, GPU busy ~94 -> ~73 ms).
FIXED_TOKENS = 335155
FIXED_GRID = 377050
FIXED = {"on": False}   # set by --fixed before the templates are built
KV_DIM = 576
HIDDEN = 6144
Q_LORA = 2048
KV_LORA = 512
ROPE = 64
HEADS = 16              # local heads at TP8
QK_NOPE = 128
V_DIM = 128
EXPERTS = 256
TOPK = 8
MOE_INTER = 256         # per-expert intermediate size at TP8
SHARED_INTER = 256
VOCAB_LOCAL = 19360     # 154880 / 8


def fmt_us(ns):
    """Integer nanoseconds -> Kineto's microseconds with three decimals."""
    return "%d.%03d" % divmod(ns, 1000)


def jstr(s):
    return json.dumps(s)


# ----------------------------------------------------------------------------
# Kernel names (long, as demangled by CUPTI)

def _cutlass_fp4_gemm(tile_n, grouped):
    shape = ("cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> >" if grouped
             else "cute::tuple<int, int, int, int>")
    stride_a = "cute::tuple<long, cute::C<1>, cute::C<0> >*" if grouped else "cute::tuple<long, cute::C<1>, long>"
    sf = ("cute::Layout<cute::tuple<cute::tuple<cute::tuple<cute::C<32>, cute::C<4> >, int>, "
          "cute::tuple<cute::tuple<cute::C<16>, cute::C<4> >, int>, cute::tuple<cute::C<1>, int> >, "
          "cute::tuple<cute::tuple<cute::tuple<cute::C<16>, cute::C<4> >, long>, "
          "cute::tuple<cute::tuple<cute::C<0>, cute::C<1> >, cute::C<512> >, cute::tuple<cute::C<0>, long> > >")
    tile = "cute::tuple<cute::C<128>, cute::C<%d>, cute::C<256> >" % tile_n
    k = ("cutlass::gemm::kernel::GemmUniversal<%s, cutlass::gemm::collective::CollectiveMma<"
         "cutlass::gemm::MainloopSm100TmaUmmaWarpSpecializedBlockScaled<%d, 4, 2, "
         "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > >, %s, "
         "cute::tuple<cutlass::nv_float4_t<cutlass::float_e2m1_t>, cutlass::float_ue4m3_t>, "
         "cute::tuple<%s, %s >, cute::tuple<cutlass::nv_float4_t<cutlass::float_e2m1_t>, "
         "cutlass::float_ue4m3_t>, cute::tuple<%s, %s >, cute::TiledMMA<cute::MMA_Atom<"
         "cute::SM100_MMA_MXF4_SS<cutlass::float_e2m1_t, cutlass::float_e2m1_t, float, "
         "cutlass::float_ue4m3_t, 128, %d, 16, (cute::UMMA::Major)0, (cute::UMMA::Major)0> >, "
         "cute::Layout<cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<0>, "
         "cute::C<0>, cute::C<0> > >, cute::tuple<cute::Underscore, cute::Underscore, "
         "cute::Underscore> >, cute::tuple<cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD>, "
         "cute::tuple<cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<4>, "
         "cute::Layout<cute::tuple<cute::C<8>, cute::C<256> >, cute::tuple<cute::C<256>, "
         "cute::C<1> > > >, cute::Layout<cute::tuple<cute::C<1> >, cute::tuple<cute::C<0> > > >, "
         "void, cute::identity, cute::tuple<cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD>, "
         "void, void, cute::identity>, cutlass::epilogue::collective::CollectiveEpilogue<"
         "cutlass::epilogue::Sm100TmaWarpSpecialized<4, 2, 64, true, false>, "
         "cute::tuple<cute::C<128>, cute::C<%d>, cute::C<256> >, cute::tuple<cute::C<128>, "
         "cute::C<64> >, cutlass::bfloat16_t, %s, cutlass::bfloat16_t, %s, "
         "cutlass::epilogue::fusion::FusionCallbacks<cutlass::epilogue::Sm100TmaWarpSpecialized"
         "<4, 2, 64, true, false>, cutlass::epilogue::fusion::LinearCombination<"
         "cutlass::bfloat16_t, float, cutlass::bfloat16_t, float, (cutlass::FloatRoundStyle)2>, "
         "cute::tuple<cute::C<128>, cute::C<%d>, cute::C<256> >, cute::tuple<cute::C<128>, "
         "cute::C<64> > >, cute::SM90_TMA_LOAD, cute::SM75_U32x4_LDSM_N, "
         "cute::SM100_TMA_2SM_STORE, cute::SM90_U32x4_STSM_N, void>, void, void>"
         % (shape, 5 if tile_n == 128 else 4, tile, stride_a, sf, stride_a, sf, tile_n,
            tile_n, stride_a, stride_a, tile_n))
    return "void cutlass::device_kernel<%s >(%s::Params)" % (k, k)


def _fa3_name():
    k = ("flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, "
         "cute::C<1>, cute::C<1> >, cute::tuple<cute::C<64>, cute::C<64>, cute::C<512> >, 512, "
         "cutlass::bfloat16_t, float, cutlass::arch::Sm90, true, false, false, true, true, true, "
         "false, true, true, true, true, false>, flash::CollectiveEpilogueFwd<cute::tuple<"
         "cute::C<64>, cute::C<512>, cute::C<64> >, cute::tuple<cute::C<1>, cute::C<1>, "
         "cute::C<1> >, cutlass::bfloat16_t, cutlass::arch::Sm90, 256, true, true, true, false>, "
         "flash::VarlenDynamicPersistentTileScheduler<64, 64, 256, 128, true, true, true, true, "
         "false, true> >")
    return "void cutlass::device_kernel<flash::enable_sm90_or_later<%s > >(%s::Params)" % (k, k)


def _fa3_combine_name():
    k = ("flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, cute::C<512> >, 7, 256, 1, false, "
         "true, cutlass::bfloat16_t, float, cutlass::arch::Sm90>")
    return "void cutlass::device_kernel<%s >(%s::Params)" % (k, k)


def _reduce_name(ops, out_t):
    r = "at::native::ReduceOp<c10::BFloat16, %s, unsigned int, %s, 4, 4>" % (ops, out_t)
    return "void at::native::reduce_kernel<512, 1, %s >(%s)" % (r, r)


KERNEL_NAMES = {
    "rms": "void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, "
           "__nv_bfloat16*, unsigned int, unsigned int, unsigned int, unsigned int, float, float)",
    "fadd": "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, "
            "__nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)",
    "quant": "void cvt_fp16_to_fp4<__nv_bfloat16, false>(int, int, __nv_bfloat16 const*, "
             "float const*, unsigned int*, unsigned int*, int)",
    "equant": "void cvt_fp16_to_fp4_expert<__nv_bfloat16, false>(int, int, __nv_bfloat16 const*, "
              "float const*, unsigned int*, unsigned int*, int*, int, int)",
    "gemm128": _cutlass_fp4_gemm(128, False),
    "gemm256": _cutlass_fp4_gemm(256, False),
    "ggemm128": _cutlass_fp4_gemm(128, True),
    "ggemm256": _cutlass_fp4_gemm(256, True),
    "bmm_qk": "nvjet_tst_64x8_64x16_4x1_v_bz_TNN",
    "bmm_v": "nvjet_tst_64x8_64x16_2x1_v_bz_NNT",
    "router": "nvjet_tst_32x64_64x16_2x1_v_bz_splitK_TNT",
    "lm_head": "nvjet_tst_128x64_64x12_2x1_v_bz_TNT",
    "rope": "void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel<false, 64u, "
            "8u, 16u, __nv_bfloat16, long>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, "
            "__nv_bfloat16*, float*, long*, unsigned int, unsigned int, unsigned int, unsigned int, "
            "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
            "unsigned int, unsigned int)",
    "index_put": "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<"
                 "at::native::index_put_kernel_impl<at::native::OpaqueType<1> >(at::TensorIterator&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
                 "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
                 "at::native::index_put_kernel_impl<at::native::OpaqueType<1> >(at::TensorIterator&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} "
                 "const&, bool)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<"
                 "at::native::index_put_kernel_impl<at::native::OpaqueType<1> >(at::TensorIterator&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
                 "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
                 "at::native::index_put_kernel_impl<at::native::OpaqueType<1> >(at::TensorIterator&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} "
                 "const&, bool)::{lambda(int)#1})",
    "cast": CAST_NAME,
    "fa3": _fa3_name(),
    "fa3_combine": _fa3_combine_name(),
    "nccl": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "topk": "void moe::topkGatingSoftmax<8, 256, 4, 16, 32, int, __nv_bfloat16, (moe::ScoringFunc)0>"
            "(__nv_bfloat16 const*, bool const*, float*, int, int*, int, int, int, bool)",
    "align": "void moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, "
             "int, unsigned long, int*, bool)",
    "silu": "void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &(float silu<float>"
            "(float const&))>(__nv_bfloat16*, __nv_bfloat16 const*, int)",
    "moe_sum": _reduce_name("at::native::func_wrapper_t<float, at::native::sum_functor<"
                            "c10::BFloat16, float, float>::operator()(at::TensorIterator&)::"
                            "{lambda(float, float)#1}>", "c10::BFloat16"),
    "argmax": _reduce_name("at::native::ArgMaxOps<c10::BFloat16>", "long"),
    "add": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
           "c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
           "std::array<char*, 3ul>)",
    "embed": "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, "
             "unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
             "at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
             "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long)",
}


# ----------------------------------------------------------------------------
# Templates of the trace tree.  Each node prebuilds the constant text of its
# event(s); emission only fills in ts, dur and the ids.

class Kernel:
    """A kernel launched by cudaLaunchKernel."""
    __slots__ = ("key", "name", "ns", "sigma", "stream", "head", "tail")

    def __init__(self, key, grid, block, regs, smem, ns, sigma=0.04, stream=COMPUTE):
        self.key = key
        self.name = KERNEL_NAMES[key]
        self.ns = ns
        self.sigma = sigma
        self.stream = stream
        blocks = grid[0] * grid[1] * grid[2]
        threads = block[0] * block[1] * block[2]
        warps = (threads + 31) // 32
        bps = blocks / NUM_SMS
        wps = bps * warps
        lim = min(32, 2048 // threads, 65536 // max(1, regs * 32 * warps),
                  233472 // smem if smem else 32)
        occ = int(100 * min(lim * warps / 64.0, wps / 64.0))
        self.head = ('  {\n    "ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": %d,\n'
                     '    "ts": ' % (jstr(self.name), stream))
        self.tail = ('      "registers per thread": %d,      "shared memory": %d,      '
                     '"blocks per SM": %f,      "warps per SM": %f,      "grid": [%d, %d, %d],      '
                     '"block": [%d, %d, %d],      "est. achieved occupancy %%": %d'
                     % (regs, smem, bps, wps, grid[0], grid[1], grid[2],
                        block[0], block[1], block[2], occ))


class Launch:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class Memcpy:
    """cudaMemcpyAsync + gpu_memcpy."""
    __slots__ = ("name", "nbytes", "ns", "head")

    def __init__(self, name, nbytes, ns):
        self.name = name
        self.nbytes = nbytes
        self.ns = ns
        self.head = ('  {\n    "ph": "X", "cat": "gpu_memcpy", "name": %s, "pid": 0, "tid": %d,\n'
                     '    "ts": ' % (jstr(name), COMPUTE))


class Runtime:
    """A runtime call that launches nothing (sync, events)."""
    __slots__ = ("name", "cbid", "ns", "flow", "waits")

    def __init__(self, name, cbid, ns, flow, waits=False):
        self.name, self.cbid, self.ns, self.flow, self.waits = name, cbid, ns, flow, waits


class Op:
    """A cpu_op / user_annotation with children, or a leaf op."""
    __slots__ = ("head", "argtail", "children", "leaf_ns")

    def __init__(self, name, inputs=None, children=(), cat="cpu_op", leaf_ns=2500, extra=""):
        self.head = ('  {\n    "ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d,\n'
                     '    "ts": ' % (cat, jstr(name), PID, PID))
        tail = extra
        if inputs is not None:
            dims, strides, types, conc = [], [], [], []
            for d, s, t, c in inputs:
                dims.append(d)
                strides.append(s)
                types.append(t)
                conc.append(c)
            tail += (', "Concrete Inputs": %s, "Input type": %s, "Input Strides": %s, '
                     '"Input Dims": %s' % (json.dumps(conc), json.dumps(types),
                                           json.dumps(strides), json.dumps(dims)))
        self.argtail = tail
        self.children = tuple(children)
        self.leaf_ns = leaf_ns


STACK_FRAMES = (
    "torch/nn/modules/module.py(1784): _call_impl",
    "torch/nn/modules/module.py(1773): _wrapped_call_impl",
    "torch/utils/_contextlib.py(120): decorate_context",
    "sglang/srt/utils.py(2410): wrapper",
)


class Py:
    """A python_function frame (emitted only with --python-frames)."""
    __slots__ = ("head", "children")

    def __init__(self, name, children):
        self.head = ('  {\n    "ph": "X", "cat": "python_function", "name": %s, "pid": %d, '
                     '"tid": %d,\n    "ts": ' % (jstr(name), PID, PID))
        self.children = tuple(children)


class GraphLaunch:
    """cudaGraphLaunch replaying the kernels of `children` (--graph)."""
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = tuple(children)


class Slot:
    """A CPU event whose text is written later (it outlives the step that
    opened it: --with-stack's ProfilerStep#N and outer frames)."""
    __slots__ = ("text", "ts", "pyid", "evi", "parent", "name")

    def __init__(self):
        self.text = None


STEP_CALL = "torch/profiler/profiler.py(822): step"
REC_EXIT = "torch/autograd/profiler.py(776): __exit__"
REC_ENTER = "torch/autograd/profiler.py(770): __enter__"
OPS_CALL = "torch/_ops.py(1147): __call__"
REC_NEW = "<built-in method _record_function_enter_new of PyCapsule object at 0x7f3a2c1d5e30>"
P2 = PID + 1000         # --two-processes: the second process (pid = its thread)
PRE_CORR_BELOW = 1250000


# Input descriptions: (dims, strides, type, concrete value)
def T(shape, dtype="c10::BFloat16"):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return (list(shape), strides[::-1], dtype, "")


def S(value, typ="Scalar"):
    return ([], [], typ, str(value))


NONE = ([], [], "", "")
BF16, FP8, U8, F32, I32, I64 = ("c10::BFloat16", "c10::Float8_e4m3fn", "unsigned char",
                                "float", "int", "long int")


def empty(shape, dtype=BF16):
    return Op("aten::empty", [S(list(shape), "ScalarList"), S(15 if dtype == BF16 else 6, "ScalarType"),
                              NONE, S("cuda:0", "Device"), S("False"), NONE], leaf_ns=2600)


def as_strided(n_leaf=2000):
    return Op("aten::as_strided", [T([1]), NONE, NONE, NONE], leaf_ns=n_leaf)


# ----------------------------------------------------------------------------

def build_templates(tokens, other_scale, rank=0, world=NUM_GPUS):
    """Return (head, layer, tail) node lists for a step that runs `tokens` tokens
    (on rank `rank` of `world`: the all-reduce's args)."""
    t = tokens
    big = 8 if t >= 256 else 1   # a prefill makes most kernels longer

    def k(key, grid, block, regs, smem, us, sigma=0.04, stream=COMPUTE, scale=True):
        ns = int(us * 1000 * (other_scale if scale else 1) * (big if key not in ("cast", "nccl") else 1))
        return Kernel(key, grid, block, regs, smem, ns, sigma, stream)

    K = {
        "fadd": k("fadd", [t, 1, 1], [32, 24, 1], 40, 0, 3.8),
        "rms": k("rms", [t, 1, 1], [32, 24, 1], 32, 0, 3.0),
        "quant": k("quant", [max(1, t // 4), 1, 1], [384, 1, 1], 28, 0, 2.4),
        "gemm_qkv": k("gemm128", [1, 5, 1], [384, 1, 1], 168, 232448, 11.5),
        "gemm_qb": k("gemm256", [1, 12, 1], [384, 1, 1], 168, 232448, 9.0),
        "gemm_o": k("gemm128", [1, 48, 1], [384, 1, 1], 168, 232448, 10.5),
        "gemm_sh_up": k("gemm128", [1, 4, 1], [384, 1, 1], 168, 232448, 9.5),
        "gemm_sh_down": k("gemm256", [1, 24, 1], [384, 1, 1], 168, 232448, 7.8),
        "bmm_qk": k("bmm_qk", [HEADS, 8, 1], [128, 1, 1], 96, 49152, 4.6),
        "bmm_v": k("bmm_v", [HEADS, 2, 1], [128, 1, 1], 96, 49152, 4.4),
        "rope": k("rope", [t, 1, 1], [64, 8, 1], 64, 0, 2.9),
        "index_put": k("index_put", [max(1, t * KV_DIM // 512), 1, 1], [128, 1, 1], 24, 0, 2.6),
        "cast": (k("cast", [FIXED_GRID, 1, 1], [128, 1, 1], 20, 0,
                   CAST_NS / 1000.0 * FIXED_GRID / 557496, 0.008, scale=False) if FIXED["on"] else
                 k("cast", [557496, 1, 1], [128, 1, 1], 20, 0, CAST_NS / 1000.0, 0.008, scale=False)),
        "fa3": k("fa3", [132, 1, 1], [384, 1, 1], 128, 200704, 38.0, 0.06),
        "fa3_combine": k("fa3_combine", [HEADS, t, 1], [256, 1, 1], 72, 16384, 3.4),
        "nccl": k("nccl", [8, 1, 1], [640, 1, 1], 96, 0, 24.0 * other_scale, 0.12, NCCL, scale=False),
        "router": k("router", [8, 1, 1], [128, 1, 1], 90, 65536, 5.8),
        "topk": k("topk", [max(1, t // 4), 1, 1], [32, 4, 1], 48, 0, 3.1),
        "align": k("align", [1, 1, 1], [1024, 1, 1], 38, 2080, 3.9),
        "equant": k("equant", [TOPK, 1, 1], [384, 1, 1], 30, 0, 3.2),
        "gg_up": k("ggemm256", [1, 16, 8], [384, 1, 1], 168, 232448, 68.0, 0.05),
        "gg_down": k("ggemm128", [1, 48, 8], [384, 1, 1], 168, 232448, 52.0, 0.05),
        "silu": k("silu", [t * TOPK, 1, 1], [512, 1, 1], 24, 0, 2.8),
        "sh_silu": k("silu", [t, 1, 1], [512, 1, 1], 24, 0, 2.2),
        "moe_sum": k("moe_sum", [t, 6, 1], [32, 16, 1], 40, 2048, 3.6),
        "add": k("add", [max(1, t * HIDDEN // 512), 1, 1], [128, 1, 1], 20, 0, 2.0),
        "embed": k("embed", [max(1, t * HIDDEN // 4096), 1, 1], [128, 1, 1], 28, 0, 3.1),
        "lm_head": k("lm_head", [76, 1, 1], [128, 1, 1], 168, 200704, 44.0),
        "argmax": k("argmax", [t, 1, 1], [32, 16, 1], 40, 2048, 4.8),
    }

    def L(key):
        return Launch(K[key])

    def fp4_linear(gemm_key, n, kdim):
        """sgl_kernel fp4 quant + cutlass_scaled_fp4_mm."""
        return Py("sglang/srt/layers/quantization/modelopt_quant.py(898): apply", [
            Op("sgl_kernel::scaled_fp4_quant",
               [T([t, kdim // 2], U8), T([t, kdim]), T([1], F32), T([128, kdim // 64], I32)],
               [empty([t, kdim // 2], U8), L("quant")]),
            Op("sgl_kernel::cutlass_scaled_fp4_mm",
               [T([t, kdim // 2], U8), T([n, kdim // 2], U8), T([128, kdim // 64], I32),
                T([n, kdim // 16], FP8), T([1], F32), S(15, "ScalarType")],
               [empty([t, n]), L(gemm_key)]),
        ])

    def rmsnorm(dim, key="rms"):
        return Py("sglang/srt/layers/layernorm.py(96): forward_cuda", [
            Op("sgl_kernel::rmsnorm", [T([t, dim]), T([t, dim]), T([dim]), S("9.9999999999999995e-07"),
                                       S("False")], [L(key)]),
        ])

    def fused_add_rmsnorm():
        return Py("sglang/srt/layers/layernorm.py(88): forward_cuda", [
            Op("sgl_kernel::fused_add_rmsnorm", [T([t, HIDDEN]), T([t, HIDDEN]), T([HIDDEN]),
                                                 S("9.9999999999999995e-07"), S("False")],
               [L("fadd")]),
        ])

    def all_reduce():
        comm = (', "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": %d, '
                '"Out msg nelems": %d, "Group size": %d, "In split size": "[]", '
                '"Out split size": "[]", "Global rank start": 0, "Global rank stride": 1, '
                '"Process Group Name": "0", "Process Group Description": "default_pg", '
                '"Process Group Ranks": "[%s]", "Rank": %d'
                % (t * HIDDEN, t * HIDDEN, world, ", ".join(str(r) for r in range(world)), rank))
        return Py("sglang/srt/distributed/parallel_state.py(517): all_reduce", [
            Op("c10d::allreduce_", [([[t, HIDDEN]], [[HIDDEN, 1]], "TensorList", ""), NONE, NONE,
                                    S(-1), S("False")], [
                Op("record_param_comms", [([[t, HIDDEN]], [[HIDDEN, 1]], "TensorList", ""),
                                          S(0), S("0"), S(0), S("allreduce"), NONE, NONE, S(0),
                                          S(1), S(8)], [
                    Runtime("cudaEventRecord", 135, 2200, "f"),
                    Runtime("cudaStreamWaitEvent", 147, 1800, "s"),
                    Op("nccl:all_reduce", None, [L("nccl")], cat="user_annotation"),
                ], extra=comm),
            ]),
        ])

    kv = FIXED_TOKENS if FIXED["on"] else KV_TOKENS
    cast = Op("aten::to", [T([kv, 1, KV_DIM], FP8), S(15, "ScalarType"), S("False"),
                           S("False"), NONE], [
        Op("aten::_to_copy", [T([kv, 1, KV_DIM], FP8), S(15, "ScalarType"), NONE, NONE,
                              NONE, S("False"), NONE], [
            Op("aten::empty_strided", [S([kv, 1, KV_DIM], "ScalarList"),
                                       S([KV_DIM, KV_DIM, 1], "ScalarList"), S(15, "ScalarType"),
                                       S(0), S("cuda:0", "Device"), S("False")], leaf_ns=4200),
            Op("aten::copy_", [T([kv, 1, KV_DIM], BF16), T([kv, 1, KV_DIM], FP8),
                               S("False")], [L("cast")]),
        ]),
    ])

    attention = Py("sglang/srt/models/deepseek_v2.py(1309): forward", [
        Py("sglang/srt/models/deepseek_v2.py(1411): forward_absorb_prepare", [
            fp4_linear("gemm_qkv", Q_LORA + KV_LORA + ROPE, HIDDEN),
            Op("aten::split_with_sizes", [T([t, Q_LORA + KV_LORA + ROPE]),
                                          S([Q_LORA, KV_LORA + ROPE], "ScalarList"), S(-1)],
               [Op("aten::slice", [T([t, Q_LORA + KV_LORA + ROPE]), S(1), S(0), S(Q_LORA), S(1)],
                   [as_strided()]),
                Op("aten::slice", [T([t, Q_LORA + KV_LORA + ROPE]), S(1), S(Q_LORA),
                                   S(Q_LORA + KV_LORA + ROPE), S(1)], [as_strided()])]),
            rmsnorm(Q_LORA),
            rmsnorm(KV_LORA),
            fp4_linear("gemm_qb", HEADS * (QK_NOPE + ROPE), Q_LORA),
            Op("aten::view", [T([t, HEADS * (QK_NOPE + ROPE)]), S([-1, HEADS, QK_NOPE + ROPE],
                                                                  "ScalarList")], leaf_ns=1800),
            Op("aten::bmm", [T([HEADS, t, QK_NOPE]), T([HEADS, QK_NOPE, KV_LORA])], [L("bmm_qk")]),
            Op("sgl_kernel::apply_rope_pos_ids_cos_sin_cache",
               [T([t, HEADS, ROPE]), T([t, 1, ROPE]), T([t, HEADS, ROPE]), T([t, 1, ROPE]),
                T([163840, ROPE], F32), T([t], I64), S("False"), NONE], [L("rope")]),
        ]),
        Py("sglang/srt/layers/attention/flashattention_backend.py(1123): forward_decode", [
            Op("aten::index_put_", [T([KV_TOKENS, 1, KV_DIM], FP8), ([[t]], [[1]], "TensorList", ""),
                                    T([t, 1, KV_DIM], FP8), S("False")], [
                Op("aten::_index_put_impl_", [T([KV_TOKENS, 1, KV_DIM], FP8),
                                              ([[t]], [[1]], "TensorList", ""),
                                              T([t, 1, KV_DIM], FP8), S("False"), S("False")],
                   [L("index_put")]),
            ]),
            cast,
            Op("sgl_kernel::fwd", [T([t, HEADS, ROPE]), T([KV_TOKENS, 1, ROPE]),
                                   T([KV_TOKENS, 1, KV_LORA]), NONE, T([t, HEADS, KV_LORA]),
                                   T([t + 1], I32), NONE, NONE, S(1), S(4096)],
               [empty([t, HEADS, KV_LORA]), empty([HEADS, t], F32), L("fa3"), L("fa3_combine")]),
        ]),
        Op("aten::bmm", [T([HEADS, t, KV_LORA]), T([HEADS, KV_LORA, V_DIM])], [L("bmm_v")]),
        Op("aten::reshape", [T([t, HEADS, V_DIM]), S([t, HEADS * V_DIM], "ScalarList")],
           [Op("aten::view", [T([t, HEADS, V_DIM]), S([t, HEADS * V_DIM], "ScalarList")],
               leaf_ns=1500)]),
        fp4_linear("gemm_o", HIDDEN, HEADS * V_DIM),
    ])

    moe = Py("sglang/srt/models/deepseek_v2.py(530): forward", [
        Py("sglang/srt/models/deepseek_v2.py(331): forward", [
            Op("aten::linear", [T([t, HIDDEN]), T([EXPERTS, HIDDEN]), NONE], [
                Op("aten::t", [T([EXPERTS, HIDDEN])],
                   [Op("aten::transpose", [T([EXPERTS, HIDDEN]), S(0), S(1)], [as_strided()])]),
                Op("aten::matmul", [T([t, HIDDEN]), T([HIDDEN, EXPERTS])], [
                    Op("aten::mm", [T([t, HIDDEN]), T([HIDDEN, EXPERTS])], [L("router")]),
                ]),
            ]),
        ]),
        Op("sgl_kernel::topk_softmax", [T([t, TOPK], F32), T([t, TOPK], I32), T([t, EXPERTS]),
                                        S("True")], [L("topk")]),
        Py("sglang/srt/layers/moe/cutlass_moe.py(212): cutlass_moe_fp4", [
            Op("sgl_kernel::moe_align_block_size", [T([t, TOPK], I32), S(EXPERTS), S(128),
                                                    T([t * TOPK + EXPERTS * 127], I32),
                                                    T([EXPERTS], I32), T([1], I32)],
               [empty([EXPERTS + 1], I32), L("align")]),
            Op("sgl_kernel::scaled_fp4_experts_quant", [T([t * TOPK, HIDDEN // 2], U8),
                                                        T([t * TOPK, HIDDEN]), T([EXPERTS], F32)],
               [L("equant")]),
            Op("sgl_kernel::cutlass_fp4_group_mm", [T([t * TOPK, 2 * MOE_INTER]), T([t * TOPK, HIDDEN // 2], U8),
                                                    T([EXPERTS, 2 * MOE_INTER, HIDDEN // 2], U8)],
               [L("gg_up")]),
            Op("sgl_kernel::silu_and_mul", [T([t * TOPK, MOE_INTER]), T([t * TOPK, 2 * MOE_INTER])],
               [L("silu")]),
            Op("sgl_kernel::scaled_fp4_experts_quant", [T([t * TOPK, MOE_INTER // 2], U8),
                                                        T([t * TOPK, MOE_INTER]), T([EXPERTS], F32)],
               [L("equant")]),
            Op("sgl_kernel::cutlass_fp4_group_mm", [T([t * TOPK, HIDDEN]), T([t * TOPK, MOE_INTER // 2], U8),
                                                    T([EXPERTS, HIDDEN, MOE_INTER // 2], U8)],
               [L("gg_down")]),
            Op("aten::view", [T([t * TOPK, HIDDEN]), S([t, TOPK, HIDDEN], "ScalarList")], leaf_ns=1600),
            Op("aten::sum", [T([t, TOPK, HIDDEN]), S([1], "ScalarList"), S("False"), NONE],
               [L("moe_sum")]),
        ]),
        Py("sglang/srt/models/deepseek_v2.py(208): forward", [
            fp4_linear("gemm_sh_up", 2 * SHARED_INTER, HIDDEN),
            Op("sgl_kernel::silu_and_mul", [T([t, SHARED_INTER]), T([t, 2 * SHARED_INTER])],
               [L("sh_silu")]),
            fp4_linear("gemm_sh_down", HIDDEN, SHARED_INTER),
        ]),
        Op("aten::add_", [T([t, HIDDEN]), T([t, HIDDEN]), S(1)], [L("add")]),
    ])

    layer = [
        Py("torch/nn/modules/module.py(1784): _call_impl", [
            Py("sglang/srt/models/deepseek_v2.py(2207): forward", [
                fused_add_rmsnorm(),
                attention,
                all_reduce(),
                fused_add_rmsnorm(),
                moe,
                all_reduce(),
            ]),
        ]),
    ]

    def h2d(nbytes, shape, dtype):
        return Op("aten::to", [T(shape, dtype), S("cuda:0", "Device"), S(4, "ScalarType"),
                               S("True"), S("False"), NONE], [
            Op("aten::_to_copy", [T(shape, dtype), S(4, "ScalarType"), NONE, S("cuda:0", "Device"),
                                  NONE, S("True"), NONE], [
                Op("aten::empty_strided", [S(shape, "ScalarList"), S([1], "ScalarList"),
                                           S(4, "ScalarType"), S(0), S("cuda:0", "Device"),
                                           S("False")], leaf_ns=3100),
                Op("aten::copy_", [T(shape, dtype), T(shape, dtype), S("True")],
                   [Memcpy("Memcpy HtoD (Pinned -> Device)", nbytes, 1400 + nbytes // 40)]),
            ]),
        ])

    head = [
        Py("sglang/srt/model_executor/forward_batch_info.py(318): init_new", [
            h2d(8 * t, [t], I64),
            h2d(8 * t, [t], I64),
            h2d(4 * t, [t], I32),
            h2d(8 * t, [t], I64),
        ]),
        Py("sglang/srt/models/deepseek_v2.py(2391): forward", [
            Op("aten::embedding", [T([VOCAB_LOCAL, HIDDEN]), T([t], I64), S(-1), S("False"),
                                   S("False")], [
                Op("aten::index_select", [T([VOCAB_LOCAL, HIDDEN]), S(0), T([t], I64)],
                   [L("embed")]),
            ]),
            rmsnorm(HIDDEN),
        ]),
    ]

    tail = [
        fused_add_rmsnorm(),
        Py("sglang/srt/layers/logits_processor.py(412): forward", [
            Op("aten::linear", [T([t, HIDDEN]), T([VOCAB_LOCAL, HIDDEN]), NONE], [
                Op("aten::t", [T([VOCAB_LOCAL, HIDDEN])],
                   [Op("aten::transpose", [T([VOCAB_LOCAL, HIDDEN]), S(0), S(1)], [as_strided()])]),
                Op("aten::matmul", [T([t, HIDDEN]), T([HIDDEN, VOCAB_LOCAL])], [
                    Op("aten::mm", [T([t, HIDDEN]), T([HIDDEN, VOCAB_LOCAL])], [L("lm_head")]),
                ]),
            ]),
        ]),
        Py("sglang/srt/layers/sampler.py(87): forward", [
            Op("aten::argmax", [T([t, VOCAB_LOCAL]), S(-1), S("False")], [L("argmax")]),
            Op("aten::item", [T([t], I64)], [
                Op("aten::_local_scalar_dense", [T([t], I64)], [
                    Memcpy("Memcpy DtoH (Device -> Pinned)", 8 * t, 1700),
                    Runtime("cudaStreamSynchronize", 131, 3000, "s", waits=True),
                ]),
            ]),
        ]),
    ]
    return head, layer, tail, K


KERNEL_NAMES["fill"] = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
                         "std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)")
EXTRA_KERNEL = Kernel("fill", [1, 1, 1], [256, 1, 1], 16, 0, 2100)   # --graph-extra-kernel


def nominal_other_ns():
    """Sum of the nominal (unscaled) non-cast kernel time of one decode layer."""
    _, layer, _, _ = build_templates(1, 1.0)
    total = 0

    def walk(nodes):
        nonlocal total
        for n in nodes:
            if isinstance(n, Launch):
                if n.k.key != "cast":
                    total += n.k.ns
            elif isinstance(n, (Op, Py)):
                walk(n.children)
    walk(layer)
    return total


# ----------------------------------------------------------------------------

class Generator:
    def __init__(self, args, other_scale):
        self.a = args
        self.rnd = random.Random(args.seed)
        self.other_scale = other_scale
        self.templates = {}
        self.py = args.python_frames
        # --stack-depth: every op outside another op sits under that many
        # more python frames, as torch.profiler(with_stack=True) records the
        # module calls (nn.Module._call_impl, ...) above each op.
        self.stack_depth = args.stack_depth if args.python_frames else 0
        self.wrapped = {}
        self.ext = 1            # External id
        self.evi = 0            # Ev Idx
        self.corr = 1250000     # correlation id
        self.pyid = 1           # Python id
        self.pystack = []
        self.cur_ext = 0
        self.stream_end = {COMPUTE: 0, NCCL: 0}
        self.t = T0_NS
        self.cpu = []
        self.gpu = []
        self.st = None          # per-step truth
        self.graph = None       # --graph: "replay" (this trace) or "capture" (--capture-out)
        self.pending = None     # --with-stack: the open ProfilerStep#N
        # --ranks: this rank, the all-reduces it meets the others in, its
        # clock's offset, and how much slower its compute / CPU side is
        self.rank = getattr(args, "rank", 0)
        self.world = getattr(args, "world", NUM_GPUS)
        self.sync = getattr(args, "sync", None)
        self.clock = getattr(args, "clock_ns", 0)
        self.slow = getattr(args, "compute_factor", 1.0)
        self.cpu_f = getattr(args, "cpu_factor", 1.0)

    def tmpl(self, tokens):
        if tokens not in self.templates:
            self.templates[tokens] = build_templates(tokens, self.other_scale, self.rank, self.world)
        return self.templates[tokens]

    # -- emission ------------------------------------------------------------

    def emit_nodes(self, nodes, t):
        rnd = self.rnd
        for n in nodes:
            end = self.emit(n, t)
            gap = 400 + int(rnd.random() * 1600)
            t = end + (gap if self.cpu_f == 1.0 else int(gap * self.cpu_f))
        return t

    def emit(self, n, t):
        rnd = self.rnd
        cls = type(n)
        if (cls is Op and self.stack_depth and not getattr(self, "in_op", False)
                and not getattr(self, "wrapping", False) and '"cat": "cpu_op"' in n.head):
            w = self.wrapped.get(id(n))
            if w is None:
                w = n
                for i in range(self.stack_depth):
                    w = Py(STACK_FRAMES[i % len(STACK_FRAMES)], [w])
                self.wrapped[id(n)] = w
            self.wrapping = True
            end = self.emit(w, t)
            self.wrapping = False
            return end
        if cls is Op:
            cpu = self.cpu
            slot = len(cpu)
            cpu.append(None)
            ext = self.ext
            self.ext += 1
            evi = self.evi
            self.evi += 1
            if n.children:
                saved = self.cur_ext
                self.cur_ext = ext
                saved_in = getattr(self, "in_op", False)
                self.in_op = self.in_op if saved_in else '"cat": "cpu_op"' in n.head
                end = self.emit_nodes(n.children, t + 900 + int(rnd.random() * 2600))
                end += 300 + int(rnd.random() * 1200)
                self.cur_ext = saved
                self.in_op = saved_in
            else:
                end = t + int(n.leaf_ns * (0.7 + 0.6 * rnd.random()) * self.cpu_f)
            cpu[slot] = ('%s%s, "dur": %s,\n    "args": {\n      "External id": %d,'
                         '"Record function id": 0%s, "Ev Idx": %d\n    }\n  }'
                         % (n.head, fmt_us(t), fmt_us(end - t), ext, n.argtail, evi))
            return end
        if cls is Launch:
            if self.graph == "capture":
                return self.capture_launch(n.k, t)
            return self.launch(n.k, t)
        if cls is GraphLaunch:
            return self.graph_launch(n, t)
        if cls is Py:
            if not self.py:
                return self.emit_nodes(n.children, t)
            cpu = self.cpu
            slot = len(cpu)
            cpu.append(None)
            pid = self.pyid
            self.pyid += 1
            evi = self.evi
            self.evi += 1
            parent = self.pystack[-1] if self.pystack else None
            self.pystack.append(pid)
            end = self.emit_nodes(n.children, t + 1500 + int(rnd.random() * 3000))
            end += 500 + int(rnd.random() * 1500)
            self.pystack.pop()
            par = '' if parent is None else ', "Python parent id": %d' % parent
            cpu[slot] = ('%s%s, "dur": %s,\n    "args": {\n      "Python id": %d%s, "Ev Idx": %d\n'
                         '    }\n  }' % (n.head, fmt_us(t), fmt_us(end - t), pid, par, evi))
            return end
        if cls is Memcpy:
            return self.memcpy(n, t)
        if cls is Runtime:
            return self.runtime(n, t)
        raise TypeError(cls)

    def next_corr(self):
        c = self.corr
        self.corr += 1 + (self.rnd.random() < 0.3) + (self.rnd.random() < 0.1)
        return c

    def launch(self, k, t):
        rnd = self.rnd
        c = self.next_corr()
        ext = self.cur_ext
        r = rnd.random()
        d = 2800 + int(r * 4200) if r < 0.99 else 18000 + int(rnd.random() * 25000)
        if self.cpu_f != 1.0:
            d = int(d * self.cpu_f)
        end = t + d
        s = k.stream
        se = self.stream_end
        start = max(end + 4500 + int(rnd.random() * 2000), se[s] + 300 + int(rnd.random() * 400))
        if s == NCCL:
            start = max(start, se[COMPUTE] + 800 + int(rnd.random() * 600))
        dur = int(k.ns * (1.0 + k.sigma * rnd.gauss(0.0, 1.0)))
        dur = max(dur, k.ns // 2, 1000)
        if self.sync is not None:
            dur = self.rank_dur(k, start, dur)
        kend = start + dur
        se[s] = kend
        if s == NCCL and se[COMPUTE] < kend:
            se[COMPUTE] = kend      # the compute stream waits for the all-reduce
        st = self.st
        if "spans" in st:
            st["spans"][s == NCCL].append((start, kend))
        st["kernels"] += 1
        st["kernel_ns"] += dur
        st["gpu_events"] += 1
        st["gpu_ns"] += dur
        if k.key == "cast":
            st["casts"] += 1
            st["cast_ns"] += dur
        if st["gpu_first"] is None:
            st["gpu_first"] = start
        st["gpu_last"] = max(st["gpu_last"], kend)
        ts, kts = fmt_us(t), fmt_us(start)
        self.gpu.append(
            '%s%s, "dur": %s,\n    "args": {\n      "External id": %d,      "queued": 0, '
            '"device": 0, "context": 1,      "stream": %d, "correlation": %d,%s\n    }\n  }'
            % (k.head, kts, fmt_us(dur), ext, s, c, k.tail))
        self.gpu.append('  {\n    "ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (c, s, kts))
        self.gpu.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
                        '"pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                        '      "External id": %d,      "cbid": 211, "correlation": %d\n    }\n  }'
                        % (PID, PID, ts, fmt_us(d), ext, c))
        self.gpu.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g"\n  }' % (c, PID, PID, ts))
        return end

    def memcpy(self, m, t):
        rnd = self.rnd
        c = self.next_corr()
        ext = self.cur_ext
        d = 5500 + int(rnd.random() * 5000)
        end = t + d
        se = self.stream_end
        start = max(t + 2500 + int(rnd.random() * 1500), se[COMPUTE] + 800 + int(rnd.random() * 800))
        dur = int(m.ns * (0.85 + 0.3 * rnd.random()))
        se[COMPUTE] = start + dur
        st = self.st
        if "spans" in st:
            st["spans"][0].append((start, start + dur))
        st["gpu_events"] += 1
        st["gpu_ns"] += dur
        st["memcpy_ns"] += dur
        if st["gpu_first"] is None:
            st["gpu_first"] = start
        st["gpu_last"] = max(st["gpu_last"], start + dur)
        ts, kts = fmt_us(t), fmt_us(start)
        self.gpu.append(
            '%s%s, "dur": %s,\n    "args": {\n      "External id": %d,      "device": 0, '
            '"context": 1,      "stream": %d, "correlation": %d,      "bytes": %d, '
            '"memory bandwidth (GB/s)": %r\n    }\n  }'
            % (m.head, kts, fmt_us(dur), ext, COMPUTE, c, m.nbytes, m.nbytes / dur))
        self.gpu.append('  {\n    "ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (c, COMPUTE, kts))
        self.gpu.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", '
                        '"pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                        '      "External id": %d,      "cbid": 41, "correlation": %d\n    }\n  }'
                        % (PID, PID, ts, fmt_us(d), ext, c))
        self.gpu.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g"\n  }' % (c, PID, PID, ts))
        return end

    def rank_dur(self, k, start, dur):
        """--ranks: the slow rank's compute kernels take longer; an
        all-reduce ends when the last rank has arrived (clocks compared
        without their offsets), plus this rank's own transfer time."""
        if k.stream == NCCL:
            last = self.sync.meet(self.rank, start - self.clock) + self.clock
            return max(last, start) - start + dur
        return dur if self.slow == 1.0 else int(dur * self.slow)

    def runtime(self, r, t):
        c = self.next_corr()
        d = int(r.ns * (0.6 + 0.8 * self.rnd.random()))
        if r.waits:
            d = max(d, max(self.stream_end.values()) + 1500 - t)
        ts = fmt_us(t)
        self.gpu.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "%s", '
                        '"pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                        '      "External id": %d,      "cbid": %d, "correlation": %d\n    }\n  }'
                        % (r.name, PID, PID, ts, fmt_us(d), self.cur_ext, r.cbid, c))
        if r.flow == "f":
            self.gpu.append('  {\n    "ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                            '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (c, PID, PID, ts))
        else:
            self.gpu.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                            '    "cat": "ac2g", "name": "ac2g"\n  }' % (c, PID, PID, ts))
        return t + d

    # -- CUDA graphs (--graph) -----------------------------------------------

    def capture_launch(self, k, t):
        """A launch call recorded while a graph is captured: nothing runs, so
        no GPU record; ROCm-like traces name the kernel in its args."""
        c = self.next_corr()
        d = 2800 + int(self.rnd.random() * 4200)
        named = ""
        if self.a.capture_names == "rocm":
            named = (',      "kernel": %s, "grid": %s, "block": %s'
                     % (jstr(k.name), k.tail.split('"grid": ')[1].split("]")[0] + "]",
                        k.tail.split('"block": ')[1].split("]")[0] + "]"))
        ts = fmt_us(t)
        self.gpu.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
                        '"pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                        '      "External id": %d,      "cbid": 211, "correlation": %d%s\n    }\n  }'
                        % (PID, PID, ts, fmt_us(d), self.cur_ext, c, named))
        self.gpu.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g"\n  }' % (c, PID, PID, ts))
        return t + d

    def graph_kernels(self, nodes, out):
        for n in nodes:
            if type(n) is Launch:
                out.append(n.k)
            elif type(n) in (Op, Py):
                self.graph_kernels(n.children, out)
        return out

    def graph_launch(self, n, t):
        """cudaGraphLaunch: one launch call; its kernels run back to back on
        the GPU with the launch's correlation id, no CPU op above them."""
        rnd = self.rnd
        a = self.a
        c = self.next_corr()
        d = 9000 + int(rnd.random() * 8000)
        ks = self.graph_kernels(n.children, [])
        if a.graph_reorder and len(ks) > 2:
            k = len(ks) // 3
            while k + 1 < len(ks) and ks[k].name == ks[k + 1].name:
                k += 1
            if k + 1 < len(ks):
                ks[k], ks[k + 1] = ks[k + 1], ks[k]
        if a.graph_extra_kernel:
            ks.insert(len(ks) // 2, EXTRA_KERNEL)
        st = self.st
        se = self.stream_end
        prev = t + d
        kts0 = None
        for node, k in enumerate(ks):
            s = k.stream
            start = max(prev + 900 + int(rnd.random() * 700), se[s] + 300 + int(rnd.random() * 400))
            dur = int(k.ns * (1.0 + k.sigma * rnd.gauss(0.0, 1.0)))
            dur = max(dur, k.ns // 2, 1000)
            if self.sync is not None:
                dur = self.rank_dur(k, start, dur)
            prev = start + dur
            se[s] = prev
            if "spans" in st:
                st["spans"][s == NCCL].append((start, prev))
            if s == NCCL and se[COMPUTE] < prev:
                se[COMPUTE] = prev
            st["kernels"] += 1
            st["kernel_ns"] += dur
            st["gpu_events"] += 1
            st["gpu_ns"] += dur
            st["graph_kernels"] = st.get("graph_kernels", 0) + 1
            if k.key == "cast":
                st["casts"] += 1
                st["cast_ns"] += dur
            if st["gpu_first"] is None:
                st["gpu_first"] = start
            st["gpu_last"] = max(st["gpu_last"], prev)
            kts = fmt_us(start)
            kts0 = kts0 or kts
            self.gpu.append(
                '%s%s, "dur": %s,\n    "args": {\n      "External id": %d,      "queued": 0, '
                '"device": 0, "context": 1,      "stream": %d, "correlation": %d,%s,      '
                '"graph id": %d, "graph node id": %d\n    }\n  }'
                % (k.head, kts, fmt_us(dur), self.cur_ext, s, c, k.tail, 1 + a.bs, 1000 + node))
            self.gpu.append('  {\n    "ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %s,\n'
                            '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (c, s, kts))
        ts = fmt_us(t)
        self.gpu.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", '
                        '"pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                        '      "External id": %d,      "cbid": 311, "correlation": %d\n    }\n  }'
                        % (PID, PID, ts, fmt_us(d), self.cur_ext, c))
        self.gpu.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                        '    "cat": "ac2g", "name": "ac2g"\n  }' % (c, PID, PID, ts))
        return t + d

    def capture(self, bs, t):
        """The capture of the graph for batch size bs (--capture-out)."""
        _, layer, _, _ = self.tmpl(bs)
        self.st = {"kernels": 0, "kernel_ns": 0, "gpu_events": 0, "gpu_ns": 0, "casts": 0,
                   "cast_ns": 0, "memcpy_ns": 0, "gpu_first": None, "gpu_last": 0}
        node = Op("capture_%d_DECODE" % bs, None, [
            Py("sglang/srt/model_executor/cuda_graph_runner.py(512): capture_one_batch_size", [
                Runtime("cudaStreamBeginCapture", 324, 3100, "s"),
                Py("sglang/srt/models/deepseek_v2.py(2503): forward", layer * self.a.layers),
                Runtime("cudaStreamEndCapture", 325, 5200, "s"),
                Runtime("cudaGraphInstantiateWithFlags", 481, 90000, "s"),
            ])], cat="user_annotation")
        return self.emit(node, t)

    # -- with_stack=True (--with-stack) --------------------------------------

    def py_open(self, name, t, listed=True):
        sl = Slot()
        sl.name, sl.ts = name, t
        sl.pyid = self.pyid
        self.pyid += 1
        sl.evi = self.evi
        self.evi += 1
        sl.parent = self.pystack[-1] if self.pystack else None
        self.pystack.append(sl.pyid)
        if listed:
            self.cpu.append(sl)
        return sl

    def py_close(self, sl, end):
        self.pystack.pop()
        par = '' if sl.parent is None else ', "Python parent id": %d' % sl.parent
        sl.text = ('%s%s, "dur": %s,\n    "args": {\n      "Python id": %d%s, "Ev Idx": %d\n'
                   '    }\n  }' % (Py(sl.name, ()).head, fmt_us(sl.ts), fmt_us(end - sl.ts), sl.pyid,
                                  par, sl.evi))
        return end

    def profiler_step_call(self, t, open_name, st):
        """profiler.step() as Kineto records it with with_stack=True: the call
        starts inside the step it ends (whose ProfilerStep#N ends inside its
        __exit__ frame) and the next ProfilerStep#N starts inside its
        _record_function_enter_new frame and outlives it.  Returns (end of
        the call, start of the new marker or None)."""
        rnd = self.rnd
        call = self.py_open(STEP_CALL, t)
        t1 = t + 700 + int(rnd.random() * 900)
        if self.pending is not None:
            ex = self.py_open(REC_EXIT, t1)
            close = t1 + 9000 + int(rnd.random() * 6000)
            sl, name, start, ext, pst = self.pending
            sl.text = ('%s%s, "dur": %s,\n    "args": {\n      "External id": %d,'
                       '"Record function id": 0, "Ev Idx": %d\n    }\n  }'
                       % (Op(name, cat="user_annotation").head, fmt_us(start), fmt_us(close - start),
                          ext, sl.evi))
            self.cpu.append(sl.text)
            pst["wall_ns"] = close - start
            self.pending = None
            t1 = self.py_close(ex, close + 300 + int(rnd.random() * 700)) + 1500 + int(rnd.random() * 2500)
        mstart = None
        if open_name is not None:
            en = self.py_open(REC_ENTER, t1)
            ca = self.py_open(OPS_CALL, t1 + 500 + int(rnd.random() * 400))
            bi = self.py_open(REC_NEW, ca.ts + 400 + int(rnd.random() * 300))
            mstart = bi.ts + 3000 + int(rnd.random() * 2000)
            sl = Slot()
            sl.evi = self.evi
            self.evi += 1
            self.pending = (sl, open_name, mstart, self.ext, st)
            self.ext += 1
            e = self.py_close(bi, mstart + 5000 + int(rnd.random() * 4000))
            e = self.py_close(ca, e + 100 + int(rnd.random() * 200))
            t1 = self.py_close(en, e + 150 + int(rnd.random() * 250))
        end = self.py_close(call, t1 + 300 + int(rnd.random() * 600))
        return end, mstart

    # -- steps ---------------------------------------------------------------

    def step(self, i):
        """Generate step i into self.cpu / self.gpu; return its truth record."""
        a = self.a
        prefill = a.prefill and i == 0
        tokens = 2048 if prefill else a.bs
        head, layer, tail, _ = self.tmpl(tokens)
        if a.marker == "profilerstep":
            name = "ProfilerStep#%d" % (i + 1)
        elif a.marker == "sglang":
            name = ("step[EXTEND bs=%d input_len=2048]" % a.bs if prefill
                    else "step[DECODE bs=%d]" % a.bs)
        elif a.marker == "vllm":
            name = "execute_model"
        else:
            name = None
        self.st = st = {"index": i, "name": name, "casts": 0, "cast_ns": 0, "kernels": 0,
                        "kernel_ns": 0, "gpu_events": 0, "gpu_ns": 0, "memcpy_ns": 0,
                        "gpu_first": None, "gpu_last": 0}
        if self.sync is not None:
            st["spans"] = ([], [])  # GPU work intervals: (compute, comm)
        if self.graph == "replay" and not prefill:
            model = head + [Py("sglang/srt/model_executor/cuda_graph_runner.py(735): replay", [
                Py("torch/cuda/graphs.py(104): replay", [GraphLaunch(layer * a.layers)])])] + tail
        else:
            model = head + [Py("sglang/srt/models/deepseek_v2.py(2503): forward",
                               layer * a.layers + tail)]
        body = [Py("sglang/srt/managers/scheduler.py(1905): run_batch", [
            Py("sglang/srt/managers/tp_worker.py(236): forward_batch_generation", [
                Py("sglang/srt/model_executor/model_runner.py(1698): forward", model)])])]
        t0 = self.t
        if a.with_stack:
            t, mstart = self.profiler_step_call(t0, name, st)
            ext = self.ext - 1
            saved, self.cur_ext = self.cur_ext, ext
            end = self.emit_nodes(body, t)
            self.cur_ext = saved
            t0 = mstart
        elif name is not None:
            marker = Op(name, None, body, cat="user_annotation")
            ext = self.ext
            end = self.emit(marker, t0)
        else:
            ext = 0
            end = self.emit_nodes(body, t0)
        st["start_ns"] = t0
        st["wall_ns"] = end - t0      # --with-stack: set when the next step() call ends it
        if a.marker == "profilerstep" and st["gpu_first"] is not None:
            g0 = st["gpu_first"]
            self.gpu.append('  {\n    "ph": "X", "cat": "gpu_user_annotation", "name": %s, '
                            '"pid": 0, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                            '      "External id": %d\n    }\n  }'
                            % (jstr(name), COMPUTE, fmt_us(g0), fmt_us(st["gpu_last"] - g0), ext))
        # scheduler overhead between steps
        self.t = max(end, max(self.stream_end.values())) + 250000 + int(self.rnd.random() * 350000)
        del st["gpu_first"], st["gpu_last"]
        if "spans" in st:
            comp, comm = st.pop("spans")
            st["compute_ns"] = union_ns(comp)
            st["comm_ns"] = union_ns(comm)
            st["gpu_busy_ns"] = union_ns(comp + comm)
            st["comm_kernels"] = len(comm)
        return st


def union_ns(spans):
    """Length of the union of (start, end) intervals."""
    total, cs, ce = 0, None, None
    for a, b in sorted(spans):
        if ce is None or a > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = a, b
        elif b > ce:
            ce = b
    return total + (ce - cs if ce is not None else 0)


class Collective:
    """--ranks: where the ranks' all-reduces meet.  Each rank runs in its
    own thread; meet() returns the latest arrival at this all-reduce (the
    k-th of every rank), in the common clock.  Deterministic: each rank's
    times depend only on its own random stream and these maxima."""

    def __init__(self, n):
        self.barrier = threading.Barrier(n, timeout=600)
        self.arrivals = [0] * n

    def meet(self, rank, arrival):
        self.arrivals[rank] = arrival
        self.barrier.wait()
        last = max(self.arrivals)
        self.barrier.wait()     # all have read before anyone writes the next
        return last


# ----------------------------------------------------------------------------
# File assembly

def device_properties():
    ents = []
    for i in range(NUM_GPUS):
        ents.append(
            '    {\n      "id": %d, "name": "NVIDIA B200", "totalGlobalMem": 191514279936,\n'
            '      "computeMajor": 10, "computeMinor": 0,\n'
            '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
            '      "regsPerBlock": 65536, "warpSize": 32,\n'
            '      "sharedMemPerBlock": 49152, "numSms": %d\n'
            '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, '
            '"sharedMemPerMultiprocessor": 233472\n    }' % (i, NUM_SMS))
    return ",\n".join(ents)


def header(with_stack, rank=0, world=NUM_GPUS):
    ranks = ", ".join(str(i) for i in range(world))
    return ('\n{\n  "schemaVersion": 1,\n  "deviceProperties": [\n%s\n  ],\n'
            '  "cupti_version": 26,\n  "cuda_runtime_version": 12080,\n'
            '  "cuda_driver_version": 12080,\n  "record_shapes": 1,\n  "with_stack": %d,\n'
            '  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d, "pg_count": 1, '
            '"pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", '
            '"pg_size": %d, "ranks": [%s]}], "nccl_version": "2.27.3"},\n'
            '  "traceEvents": [\n' % (device_properties(), int(with_stack), rank, world, world, ranks))


def trailer_events(trace_start, trace_end, rank=0):
    ts = fmt_us(trace_start)
    ev = []

    def meta(name, pid, tid, key, val):
        ev.append('  {\n    "name": "%s", "ph": "M", "ts": %s, "pid": %s, "tid": %s,\n'
                  '    "args": {\n      "%s": %s\n    }\n  }' % (name, ts, pid, tid, key, val))
    meta("process_name", PID, 0, "name", '"sglang::scheduler_TP%d"' % rank)
    meta("process_labels", PID, 0, "labels", '"CPU"')
    meta("process_sort_index", PID, 0, "sort_index", PID)
    for g in range(NUM_GPUS):
        meta("process_name", g, 0, "name", '"sglang::scheduler_TP%d"' % rank)
        meta("process_labels", g, 0, "labels", '"GPU %d"' % g)
        meta("process_sort_index", g, 0, "sort_index", 5000000 + g)
    for s in (COMPUTE, NCCL):
        meta("thread_name", 0, s, "name", '"stream %d "' % s)
        meta("thread_sort_index", 0, s, "sort_index", s)
    meta("thread_name", PID, PID, "name", '"thread %d (sglang::schedul)"' % PID)
    meta("thread_sort_index", PID, PID, "sort_index", PID)
    ev.append('  {\n    "ph": "X", "cat": "Trace", "ts": %s, "dur": %s,\n'
              '    "pid": "Spans", "tid": "PyTorch Profiler",\n    "name": "PyTorch Profiler (0)",\n'
              '    "args": {\n      "Op count": 0\n    }\n  }'
              % (ts, fmt_us(trace_end - trace_start)))
    ev.append('  {\n    "name": "process_sort_index", "ph": "M", "ts": %s,\n'
              '    "pid": "Spans", "tid": 0,\n    "args": {\n      "sort_index": 536870912\n'
              '    }\n  }' % ts)
    ev.append('  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
              '    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": %s\n  }' % ts)
    ev.append('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
              '    "pid": "", "tid": "", "ts": %s\n  }' % fmt_us(trace_end + 1234567))
    return ev


class EventSink:
    """Writes events separated by ',\\n', counting them."""

    def __init__(self, f):
        self.f = f
        self.n = 0

    def write(self, events):
        if not events:
            return
        if self.n:
            self.f.write(",\n")
        self.f.write(",\n".join(events))
        self.n += len(events)


def flush_cpu(g):
    """The CPU events of g written so far (the frames of --with-stack's
    profiler.step() calls are Slots, filled by the end of their step)."""
    out = [x.text if type(x) is Slot else x for x in g.cpu]
    g.cpu = []
    return out


def second_process(events):
    """--two-processes: the events of the second generator, moved to process
    P2 (its own thread) and GPU 1, keeping their correlation ids."""
    return [e.replace('"pid": %d, "tid": %d' % (PID, PID), '"pid": %d, "tid": %d' % (P2, P2))
             .replace('"pid": 0, "tid": ', '"pid": 1, "tid": ').replace('"device": 0,', '"device": 1,')
            for e in events]


def pre_window_events(n, trace_start):
    """--pre-window N: GPU work launched before the profiler started: no
    launch call in the trace, correlation ids below the first launch's; the
    first half starts before the CPU window, the rest inside step 0."""
    rnd = random.Random(7)
    ev = []
    tot = {"gpu_events": 0, "kernels": 0, "kernel_ns": 0, "gpu_ns": 0}
    nccl = KERNEL_NAMES["nccl"]
    t = trace_start - 40000000
    for k in range(n):
        if k == (n + 1) // 2:
            t = T0_NS + 20000
        corr = PRE_CORR_BELOW - 2 * n + 2 * k
        if k % 3 == 2:
            nbytes = 1 << (16 + k % 5)
            dur = 1500 + nbytes // 100
            ev.append('  {\n    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", '
                      '"pid": 0, "tid": 13,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": 0,'
                      '      "device": 0, "context": 1,      "stream": 13, "correlation": %d,      '
                      '"bytes": %d, "memory bandwidth (GB/s)": %r\n    }\n  }'
                      % (fmt_us(t), fmt_us(dur), corr, nbytes, nbytes / dur))
        else:
            dur = 18000 + int(rnd.random() * 9000)
            ev.append('  {\n    "ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": 13,\n'
                      '    "ts": %s, "dur": %s,\n    "args": {\n      "External id": 0,      "queued": 0, '
                      '"device": 0, "context": 1,      "stream": 13, "correlation": %d,      '
                      '"registers per thread": 96,      "shared memory": 0,      "grid": [8, 1, 1],      '
                      '"block": [640, 1, 1]\n    }\n  }' % (jstr(nccl), fmt_us(t), fmt_us(dur), corr))
            tot["kernels"] += 1
            tot["kernel_ns"] += dur
        tot["gpu_events"] += 1
        tot["gpu_ns"] += dur
        t += dur + 4000 + int(rnd.random() * 3000)
    return ev, tot


def generate(args, out, steps, other_scale):
    """Write the whole trace to the text stream `out`; return (truth, event
    count, truth of the options of issue 8 or {})."""
    g = Generator(args, other_scale)
    gens = [(g, None)]
    if args.two_processes:
        a2 = argparse.Namespace(**vars(args))
        a2.seed = args.seed + 1
        g2 = Generator(a2, other_scale)
        g2.t = T0_NS + 500000000
        gens.append((g2, second_process))
    for gg, _ in gens:
        gg.graph = "replay" if args.graph else None
    g.t += g.clock              # --ranks: this host's clock
    out.write(header(args.python_frames, g.rank, g.world))
    sink = EventSink(out)
    truth = []
    trace_start = T0_NS + g.clock - 187654321
    if args.layout == "kineto":
        tmp = tempfile.TemporaryFile("w+", encoding="ascii",
                                     dir=os.path.dirname(os.path.abspath(args.output)) or ".")
        gsink = EventSink(tmp)
    else:
        tmp, gsink = None, sink
    if args.pre_window:
        ev, g.pre_window = pre_window_events(args.pre_window, trace_start)
        gsink.write(ev)
    outer = {}
    if args.with_stack:
        for gg, _ in gens:
            outer[id(gg)] = [gg.py_open("example.py(121): <module>", gg.t - 3000000, False),
                             gg.py_open("example.py(103): main", gg.t - 2500000, False)]
    for i in range(steps):
        for gg, sub in gens:
            st = gg.step(i)
            if sub is not None:
                st["pid"] = P2
            truth.append(st)
            cpu, gpu = flush_cpu(gg), gg.gpu
            gg.gpu = []
            sink.write(sub(cpu) if sub else cpu)
            gsink.write(sub(gpu) if sub else gpu)
    if args.with_stack:
        for gg, sub in gens:
            end, _ = gg.profiler_step_call(gg.t, None, None)
            mod, main_ = outer[id(gg)]
            end = gg.py_close(main_, end + 2000)
            gg.t = gg.py_close(mod, end + 1500) + 1000
            gg.cpu += [main_.text, mod.text]
            cpu = flush_cpu(gg)
            sink.write(sub(cpu) if sub else cpu)
    trace_end = max(gg.t for gg, _ in gens)
    if tmp is not None:
        tmp.seek(0)
        if gsink.n:
            if sink.n:
                out.write(",\n")
            shutil.copyfileobj(tmp, out, 1 << 22)
            sink.n += gsink.n
        tmp.close()
    sink.write(trailer_events(trace_start, trace_end, g.rank))
    if args.two_processes:
        sink.write(['  {\n    "name": "process_name", "ph": "M", "ts": %s, "pid": %d, "tid": 0,\n'
                    '    "args": {\n      "name": "sglang::scheduler_TP1"\n    }\n  }' % (fmt_us(trace_start), P2),
                    '  {\n    "name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
                    '    "args": {\n      "name": "thread %d (sglang::schedul)"\n    }\n  }'
                    % (fmt_us(trace_start), P2, P2, P2)])
    out.write('\n  ],\n  "traceName": "/tmp/sglang_profile/%d-TP-%d.trace.json.gz",\n'
              '  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d\n}\n' % (PID, g.rank, BASE_TIME_NS))
    extra = {}
    if args.pre_window:
        extra["before_trace"] = dict(g.pre_window, name="(before the trace)")
    if args.graph:
        extra["graph"] = {"capture_batches": args.capture_batches, "capture_names": args.capture_names,
                          "reorder": args.graph_reorder, "extra_kernel": args.graph_extra_kernel,
                          "extra_kernel_name": EXTRA_KERNEL.name if args.graph_extra_kernel else None}
    if args.two_processes:
        extra["processes"] = [PID, P2]
    if args.with_stack:
        extra["with_stack"] = True
    return truth, sink.n, extra


def generate_capture(args, out, other_scale):
    """--capture-out: the profile of the same server while it captured its
    graphs: per batch size (--capture-batches, in that order) a
    capture_N_DECODE annotation holding cudaStreamBeginCapture, the launch
    calls of the layers (named in their args with --capture-names rocm) and
    cudaStreamEndCapture; no GPU activity (nothing runs during capture)."""
    g = Generator(args, other_scale)
    g.graph = "capture"
    t0 = g.t = T0_NS - 3000000000
    for bs in args.capture_batches:
        g.t = g.capture(bs, g.t) + 2000000
    out.write(header(args.python_frames))
    sink = EventSink(out)
    sink.write(flush_cpu(g))
    sink.write(g.gpu)
    sink.write(trailer_events(t0 - 1000000, g.t))
    out.write('\n  ],\n  "traceName": "/tmp/sglang_profile/capture-%d-TP-0.trace.json.gz",\n'
              '  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d\n}\n' % (PID, BASE_TIME_NS))
    return sink.n


def rank_path(out, r):
    """OUT-rankR with OUT's .json / .json.gz kept: tp.json -> tp-rank3.json."""
    for ext in (".json.gz", ".json", ".gz"):
        if out.endswith(ext):
            return "%s-rank%d%s" % (out[:-len(ext)], r, ext)
    return "%s-rank%d" % (out, r)


def generate_ranks(a, other_scale):
    """--ranks N: one thread and one file per rank, meeting in the
    all-reduces; the truth of the whole run in --truth."""
    t_start = time.time()
    n = a.ranks
    coll = Collective(n)
    paths = [rank_path(a.output, r) for r in range(n)]
    results, errors = [None] * n, []

    def work(r):
        ar = argparse.Namespace(**vars(a))
        ar.rank, ar.world, ar.sync, ar.output = r, n, coll, paths[r]
        ar.seed = a.seed + 1009 * r
        ar.clock_ns = (r * 7919 % 13) * 250000        # hosts' clocks disagree
        slow = r == a.slow_rank
        ar.compute_factor = a.slow_factor if slow and a.slow_what == "compute" else 1.0
        ar.cpu_factor = a.slow_factor if slow and a.slow_what == "cpu" else 1.0
        try:
            out, raw = open_text_out(paths[r], a.gzip or paths[r].endswith(".gz"), a.gzip_level)
            with out:
                results[r] = generate(ar, out, a.steps, other_scale)
            if raw is not None:
                raw.close()
        except BaseException as e:  # the others must not wait for this one forever
            errors.append(e)
            coll.barrier.abort()

    threads = [threading.Thread(target=work, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    real = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
    if errors:
        raise (real or errors)[0]
    if a.truth:
        ranks, steps = [], []
        keep = ("index", "name", "wall_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "comm_kernels",
                "kernels", "gpu_events")
        for r in range(n):
            ranks.append({"rank": r, "trace": paths[r],
                          "steps": [{k: st[k] for k in keep} for st in results[r][0]]})
        counts = {}
        for i in range(a.steps):
            cells = [ranks[r]["steps"][i] for r in range(n)]
            comm = [c["comm_ns"] for c in cells]
            comp = [c["compute_ns"] for c in cells]
            skew = max(comm) - min(comm)
            strag = comm.index(min(comm)) if n > 1 and skew > 0 else None
            if strag is not None:
                counts[strag] = counts.get(strag, 0) + 1
            steps.append({"index": i, "skew_ns": skew if n > 1 else None, "straggler": strag,
                          "slowest_compute": comp.index(max(comp)) if n > 1 else None,
                          "waits_ns": [c - min(comm) for c in comm]})
        best = min(counts.items(), key=lambda kv: (-kv[1], kv[0])) if counts else (None, 0)
        doc = {"generator": "tests/gen/gen_trace.py",
               "args": {"steps": a.steps, "layers": a.layers, "marker": a.marker, "seed": a.seed,
                        "bs": a.bs, "ranks": n, "slow_rank": a.slow_rank if a.slow_rank >= 0 else None,
                        "slow_factor": a.slow_factor, "slow_what": a.slow_what, "graph": a.graph},
               "comm_kernel": KERNEL_NAMES["nccl"], "files": paths, "ranks": ranks, "steps": steps,
               "straggler": {"rank": best[0], "steps": best[1], "of": sum(counts.values())}}
        with open(a.truth, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if not a.quiet:
        print("%s: %d ranks x %d steps x %d layers in %.1f s"
              % (", ".join(paths[:2]) + (", ..." if n > 2 else ""), n, a.steps, a.layers,
                 time.time() - t_start), file=sys.stderr)
    return 0


def open_text_out(path, gz, level):
    """(text stream, raw file or None): gzip with mtime 0 and no name, so
    that the same arguments give the same bytes."""
    if gz:
        raw = open(path, "wb")
        z = gzip.GzipFile(filename="", mode="wb", compresslevel=level, fileobj=raw, mtime=0)
        return io.TextIOWrapper(io.BufferedWriter(z, 1 << 22), encoding="ascii"), raw
    return open(path, "w", encoding="ascii", buffering=1 << 22), None


class CountingWriter:
    """Text sink that only counts bytes (for --target-mb calibration)."""

    def __init__(self):
        self.n = 0

    def write(self, s):
        self.n += len(s)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", required=True, help="output file (.gz => gzip)")
    p.add_argument("--steps", type=int, default=30, help="decode steps (default 30)")
    p.add_argument("--layers", type=int, default=78, help="layers per step (default 78)")
    p.add_argument("--marker", choices=["profilerstep", "sglang", "vllm", "none"],
                   default="profilerstep", help="step annotation (default profilerstep)")
    p.add_argument("--python-frames", action="store_true", help="add python_function frames")
    p.add_argument("--stack-depth", type=int, default=0, metavar="N",
                   help="with --python-frames: N more frames above every op, as with_stack=True "
                        "records module calls (the story trace: ~340 bytes an event)")
    p.add_argument("--target-mb", type=float, help="choose --steps to reach about M MB (1e6 B) of JSON")
    p.add_argument("--truncate-at", type=float, metavar="FRACTION",
                   help="cut the written file at this fraction of its bytes")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--fixed", action="store_true",
                   help="after the gather-then-cast fix: each layer casts only the 335,155 KV "
                        "tokens in use (grid [377050,1,1], shorter casts); with the same --seed "
                        "the rest of the trace is the same as without it")
    p.add_argument("--bs", type=int, default=1, help="batch size (default 1)")
    p.add_argument("--prefill", action="store_true", help="make the first step a prefill (EXTEND)")
    p.add_argument("--gzip", action="store_true", help="gzip even if OUT does not end in .gz")
    p.add_argument("--gzip-level", type=int, default=6, help="gzip compression level (default 6)")
    p.add_argument("--layout", choices=["kineto", "interleaved"], default="kineto",
                   help="kineto: all CPU events, then all GPU records (default); "
                        "interleaved: step by step")
    p.add_argument("--truth", metavar="FILE", help="write ground-truth numbers as JSON")
    p.add_argument("--with-stack", action="store_true",
                   help="with --python-frames and ProfilerStep#N markers: profiler.step() frames and "
                        "markers overlapping as Kineto writes them with with_stack=True (each "
                        "ProfilerStep#N starts inside the frames of a step() call and outlives them; "
                        "each step() call starts inside the previous step), under <module> > main")
    p.add_argument("--graph", action="store_true",
                   help="CUDA graph replay: each decode step's layers run as one cudaGraphLaunch "
                        "(kernels with its correlation id, graph id / node id, no CPU ops)")
    p.add_argument("--capture-out", metavar="FILE",
                   help="with --graph: also write the capture trace (.gz => gzip): one "
                        "StreamBeginCapture..StreamEndCapture window per --capture-batches size")
    p.add_argument("--capture-batches", metavar="N,N,...", default=None,
                   help="batch sizes captured, in capture order (default: --bs)")
    p.add_argument("--capture-names", choices=["nvidia", "rocm"], default="nvidia",
                   help="capture launch calls without the kernel's name (nvidia, as NVIDIA Kineto "
                        "writes them) or with args kernel/grid/block (rocm)")
    p.add_argument("--graph-extra-kernel", action="store_true",
                   help="with --graph: each replay runs one kernel more than was captured")
    p.add_argument("--graph-reorder", action="store_true",
                   help="with --graph: two neighbouring kernels of each replay swap places")
    p.add_argument("--two-processes", action="store_true",
                   help="a merged trace of two processes (pids %d and %d, GPUs 0 and 1) whose "
                        "correlation ids collide; the second starts 500 ms later" % (PID, P2))
    p.add_argument("--pre-window", type=int, default=0, metavar="N",
                   help="N GPU events launched before the profiler started: no launch call, "
                        "correlation ids below the first launch's, half of them before the CPU window")
    p.add_argument("--ranks", type=int, default=0, metavar="N",
                   help="a tensor-parallel run: N files OUT-rank0.json ... with distributedInfo, whose "
                        "all-reduces end together on every rank")
    p.add_argument("--slow-rank", type=int, default=-1, metavar="K",
                   help="with --ranks: rank K is late at every all-reduce (see --slow-what)")
    p.add_argument("--slow-factor", type=float, default=1.3, metavar="F",
                   help="how much slower the slow rank is (default 1.3)")
    p.add_argument("--slow-what", choices=["compute", "cpu"], default="compute",
                   help="compute: its compute kernels take F times longer (default); cpu: its CPU side "
                        "(launch calls, gaps between ops) takes F times longer and its GPU starves")
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    FIXED["on"] = a.fixed
    if a.steps < 1 or a.layers < 1 or a.bs < 1:
        p.error("--steps, --layers and --bs must be >= 1")
    if a.with_stack and (not a.python_frames or a.marker != "profilerstep"):
        p.error("--with-stack needs --python-frames and --marker profilerstep")
    if (a.capture_out or a.graph_extra_kernel or a.graph_reorder) and not a.graph:
        p.error("--capture-out, --graph-extra-kernel and --graph-reorder need --graph")
    try:
        a.capture_batches = ([int(x) for x in a.capture_batches.split(",")] if a.capture_batches
                             else [a.bs])
    except ValueError:
        p.error("--capture-batches: comma-separated integers")
    if a.pre_window < 0:
        p.error("--pre-window must be >= 0")
    if a.truncate_at is not None and not 0.0 < a.truncate_at < 1.0:
        p.error("--truncate-at must be in (0, 1)")
    if a.ranks:
        if a.ranks < 1 or not -1 <= a.slow_rank < a.ranks or a.slow_factor <= 0:
            p.error("--ranks N >= 1, --slow-rank K in 0..N-1, --slow-factor F > 0")
        if a.two_processes or a.target_mb or a.truncate_at or a.capture_out or a.pre_window:
            p.error("--ranks does not combine with --two-processes, --target-mb, --truncate-at, "
                    "--capture-out or --pre-window")
    elif a.slow_rank >= 0:
        p.error("--slow-rank needs --ranks")

    other_scale = OTHER_LAYER_NS / nominal_other_ns()
    if a.ranks:
        return generate_ranks(a, other_scale)
    t_start = time.time()
    steps = a.steps
    if a.target_mb:
        # Calibrate: the size of a 2-step and a 3-step trace gives bytes per step.
        sizes = []
        for n in (2, 3):
            cw = CountingWriter()
            save = a.layout
            a.layout = "interleaved"
            generate(a, cw, n, other_scale)
            a.layout = save
            sizes.append(cw.n)
        per_step = sizes[1] - sizes[0]
        fixed = sizes[0] - 2 * per_step
        steps = max(1, int(round((a.target_mb * 1e6 - fixed) / per_step)))

    use_gz = a.gzip or a.output.endswith(".gz")
    out, raw = open_text_out(a.output, use_gz, a.gzip_level)
    with out:
        truth, nev, extra = generate(a, out, steps, other_scale)
    if raw is not None:
        raw.close()
    if a.capture_out:
        out, raw = open_text_out(a.capture_out, a.gzip or a.capture_out.endswith(".gz"), a.gzip_level)
        with out:
            extra["graph"]["capture_events"] = generate_capture(a, out, other_scale)
        if raw is not None:
            raw.close()
    size = os.path.getsize(a.output)
    if a.truncate_at is not None:
        cut = int(size * a.truncate_at)
        os.truncate(a.output, cut)
    elapsed = time.time() - t_start

    if a.truth:
        tot = {k: sum(s[k] for s in truth) for k in
               ("casts", "cast_ns", "kernels", "kernel_ns", "gpu_events", "gpu_ns", "memcpy_ns")}
        doc = {
            "generator": "tests/gen/gen_trace.py",
            "args": {"steps": steps, "layers": a.layers, "marker": a.marker, "seed": a.seed,
                     "bs": a.bs, "prefill": a.prefill, "python_frames": a.python_frames,
                     "layout": a.layout, "truncate_at": a.truncate_at},
            "cast_kernel": CAST_NAME,
            "cast_grid": [557496, 1, 1], "cast_block": [128, 1, 1],
            "events": nev,
            "bytes": size,
            "totals": tot,
            "steps": truth,
        }
        doc.update(extra)
        with open(a.truth, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if not a.quiet:
        print("%s: %d steps x %d layers, %d events, %.1f MB%s in %.1f s"
              % (a.output, steps, a.layers, nev, size / 1e6, " (gzip)" if use_gz else "", elapsed),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
