"""strata-data-tile-conv: NCHW convolutions as `linalg.mmt4d` of tiled patches (passes/data_tile_conv.td).

IREE's im2col gathers a convolution's patches into a matrix and its data tiling then packs that
matrix; on a 2-core Zen 3 the gather-and-pack dispatch alone took a third of a small CNN's time.
Here the patches are gathered directly into the packed layout (pixels of one output row as the
tile's rows), in a form IREE vectorizes; the filter is packed like a matmul's B, and IREE's mmt4d
codegen computes the product in strata's tile shape, as strata-data-tile-matmul does for matmuls.
Stride-1 f32 convolutions with wide enough rows can go to strata's direct-convolution kernel
instead (`direct-min-width`; `strata.direct_conv`), and the others with output channels in whole
16s to its pixel-tile kernel (`pixel-tiles`; `strata.pixel_tile_conv`): neither needs patches.
"""

import math

from torch_mlir import ir

from strata import pixel_tile_conv, winograd_conv
from strata.conv_kernel import LANES
from strata.direct_conv import CHANNELS, DirectConv
from strata.errors import StrataError
from strata.ir_splice import splice_each, tensor_type
from strata.kernel_calls import declare_kernels
from strata.linalg_match import fill_constant

_OP = "linalg.conv_2d_nchw_fchw"
# IREE 3.13 inlines constants up to this size into the dispatches that use them.
_INLINED_CONSTANT_BYTES = 256


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _pair(op: ir.Operation, name: str) -> list[int]:
    if name not in op.attributes:
        return [1, 1]
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _row_tile(width: int, tile_m: int) -> int:
    """Pixels per tile for output rows of `width`: `tile_m`, or the next power of two if narrower."""
    if width >= tile_m:
        return tile_m
    tile = 1
    while tile < width:
        tile *= 2
    return tile


def _gathered_patches(x_name: str, x_type: str, elt, shape, steps) -> list[str]:
    """Lines defining `%patches` ([N][OH][OT][C][KH][KW][tm][1]) from input `x_name` as a gather:
    each element a `tensor.extract` at (n, c, oh * sh + kh * dh, (ot * tm + oi) * sw + kw * dw).

    Not an affine copy: its input map would not be a projected permutation, which IREE's
    vectorizer does not take, so it would copy element by element. IREE vectorizes the gather
    into loads along the tile's pixels if it keeps the dimensions apart; with only an output it
    collapses them into one and recomputes every index with div/mod. The `%lanes` input keeps
    them apart: it is indexed by every other dimension, innermost first (so no two neighbours can
    be collapsed), and by more of them if that is not larger than the 256 bytes up to which IREE
    inlines a constant into the dispatch: there reshape propagation gives it the tile's unit
    dimension, and IREE vectorizes along that (ResNet-18's layers 2-4). Its elements are +0.0 and
    -0.0 alternately (a splat would be folded away), and adding one leaves every value as it is
    (a -0.0 becomes +0.0)."""
    n, oh, row_tiles, c, kh, kw, tm = shape
    sh, sw, dh, dw = steps
    t = lambda *dims: tensor_type(dims, elt)  # noqa: E731
    size = elt.width // 8
    sizes = dict(zip("abcdefg", (n, oh, row_tiles, c, kh, kw, tm)))
    names = ["g", "e", "c", "a"]  # every other dimension: no two neighbours can be collapsed
    for more in "fbd":
        if math.prod(sizes[name] for name in names) * size > _INLINED_CONSTANT_BYTES:
            break
        names.append(more)
    lane_dims = sorted(((name, sizes[name]) for name in names), reverse=True)  # innermost first
    count = math.prod(d for _, d in lane_dims)
    p8, lanes_type = t(n, oh, row_tiles, c, kh, kw, tm, 1), t(*(d for _, d in lane_dims))
    zero, negative = "00" * size, "00" * (size - 1) + "80"  # little-endian: the sign bit is last
    lanes = "".join(negative if i % 2 else zero for i in range(count))
    dims = "(a, b, c, d, e, f, g, h)"
    parallel = ", ".join(['"parallel"'] * 8)
    return [
        f"  %lanes = arith.constant dense<\"0x{lanes}\"> : {lanes_type}",
        f"  %patches_dest = tensor.empty() : {p8}",
        f"  %patches = linalg.generic {{indexing_maps = [affine_map<{dims} -> ({', '.join(name for name, _ in lane_dims)})>,"
        f" affine_map<{dims} -> {dims}>], iterator_types = [{parallel}]}} ins(%lanes : {lanes_type}) outs(%patches_dest : {p8}) {{",
        f"  ^bb0(%lane: {elt}, %out: {elt}):",
        *[f"    %i{d} = linalg.index {d} : index" for d in range(7)],
        f"    %sh = arith.constant {sh} : index",
        f"    %dh = arith.constant {dh} : index",
        f"    %sw = arith.constant {sw} : index",
        f"    %dw = arith.constant {dw} : index",
        f"    %st = arith.constant {tm * sw} : index",
        "    %h0 = arith.muli %i1, %sh : index",
        "    %h1 = arith.muli %i4, %dh : index",
        "    %h = arith.addi %h0, %h1 : index",
        "    %w0 = arith.muli %i2, %st : index",
        "    %w1 = arith.muli %i6, %sw : index",
        "    %w2 = arith.muli %i5, %dw : index",
        "    %w3 = arith.addi %w0, %w1 : index",
        "    %col = arith.addi %w3, %w2 : index",
        f"    %v = tensor.extract {x_name}[%i0, %i3, %h, %col] : {x_type}",
        f"    %kept = arith.addf %v, %lane : {elt}",
        f"    linalg.yield %kept : {elt}",
        f"  }} -> {p8}",
    ]


def _add_init(lines: list[str], result: str, init: ir.Value, y_type: str, elt) -> str:
    """Appends the addition of the convolution's init (a bias) to `result`, unless it is zeros;
    returns the name of the sum."""
    init_fill = fill_constant(init)  # zeros: nothing to add
    if isinstance(init_fill, ir.FloatAttr) and ir.FloatAttr(init_fill).value == 0.0:
        return result
    identity = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    lines += [
        f"  %sum_dest = tensor.empty() : {y_type}",
        f"  %sum = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}],"
        f' iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}'
        f" ins({result}, %init : {y_type}, {y_type}) outs(%sum_dest : {y_type}) {{",
        f"  ^bb0(%a: {elt}, %b: {elt}, %o: {elt}):\n    %s = arith.addf %a, %b : {elt}\n    linalg.yield %s : {elt}",
        f"  }} -> {y_type}",
    ]
    return "%sum"


def _f32_static(op: ir.Operation) -> bool:
    types = [v.type for v in op.operands]
    return all(isinstance(t, ir.RankedTensorType) and t.has_static_shape and isinstance(t.element_type, ir.F32Type) for t in types)


def _direct(op: ir.Operation, min_width: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` by strata's direct-convolution kernel (`strata.direct_conv`), or
    None where it does not apply: stride 1, no dilation, rows of at least `min_width` pixels."""
    if not _f32_static(op) or _pair(op, "strides") != [1, 1] or _pair(op, "dilations") != [1, 1]:
        return None
    (n, c, h, width), (f, _, kh, kw) = (list(v.type.shape) for v in op.operands[:2])
    conv = DirectConv(n, c, h, width, f, kh, kw)
    return _kernel_call(op, conv, CHANNELS) if conv.ow >= min_width else None


def _pixel_tiles(op: ir.Operation, pixels: int, lanes: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` by strata's pixel-tile kernel (`strata.pixel_tile_conv`), or None
    where it does not apply: output channels not a multiple of 16."""
    if not _f32_static(op):
        return None
    (n, c, h, width), (f, _, kh, kw) = (list(v.type.shape) for v in op.operands[:2])
    if f % pixel_tile_conv.CHANNELS:
        return None
    (sh, sw), (dh, dw) = _pair(op, "strides"), _pair(op, "dilations")
    conv = pixel_tile_conv.PixelTileConv(n, c, h, width, f, kh, kw, sh, sw, dh, dw, pixels, lanes)
    return _kernel_call(op, conv, pixel_tile_conv.CHANNELS)


def _winograd(op: ir.Operation, min_channels: int, lanes: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` by strata's Winograd F(2x2, 3x3) kernels
    (`strata.winograd_conv`), or None where they do not apply: 3x3, stride 1, no dilation, output
    channels in whole 16s, input channels in whole 4s and at least `min_channels` of them, and
    at least `winograd_conv.MIN_TILES` tiles."""
    if not _f32_static(op) or _pair(op, "strides") != [1, 1] or _pair(op, "dilations") != [1, 1]:
        return None
    (n, c, h, width), (f, _, kh, kw) = (list(v.type.shape) for v in op.operands[:2])
    if (kh, kw) != (3, 3) or f % winograd_conv.CHANNELS or c % winograd_conv.UNROLL or c < min_channels:
        return None
    conv = winograd_conv.WinogradConv(n, c, h, width, f, kh, kw, lanes=lanes)
    th, tw = conv.tiles
    if th * tw < winograd_conv.MIN_TILES:
        return None
    hp, wp = winograd_conv.padded_input(th, tw)
    transform = winograd_conv.WinogradInput(n, c, hp, wp, th, tw)
    x, w, init = op.operands
    x_type, w_type = str(x.type), str(w.type)
    xp_type, v_type = transform.types()
    _, u_type, y_type = conv.types()
    groups = f // winograd_conv.CHANNELS
    u5_type = f"tensor<4x4x{groups}x{c}x{winograd_conv.CHANNELS}xf32>"
    g = ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in winograd_conv.G)
    loops = "(i, j, fg, c, fl, a, b)"
    iterators = ", ".join(['"parallel"'] * 5 + ['"reduction"'] * 2)
    lines = [
        f"func.func private @{transform.symbol}({xp_type}) -> {v_type}",
        f"func.func private @{conv.symbol}({v_type}, {u_type}) -> {y_type}",
        f"func.func @lowered(%x: {x_type}, %w: {w_type}, %init: {y_type}) -> {y_type} {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %xp = tensor.pad %x low[0, 0, 0, 0] high[0, 0, {hp - h}, {wp - width}] {{\n"
        f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n    tensor.yield %zero : f32\n"
        f"  }} : {x_type} to {xp_type}",
        f"  %v = func.call @{transform.symbol}(%xp) : ({xp_type}) -> {v_type}",
        f"  %g = arith.constant dense<[{g}]> : tensor<4x3xf32>",
        f"  %u_dest = tensor.empty() : {u5_type}",
        f"  %u_zero = linalg.fill ins(%zero : f32) outs(%u_dest : {u5_type}) -> {u5_type}",
        f"  %u5 = linalg.generic {{indexing_maps = [affine_map<{loops} -> (i, a)>,"
        f" affine_map<{loops} -> (fg * {winograd_conv.CHANNELS} + fl, c, a, b)>, affine_map<{loops} -> (j, b)>,"
        f" affine_map<{loops} -> (i, j, fg, c, fl)>], iterator_types = [{iterators}]}}"
        f" ins(%g, %w, %g : tensor<4x3xf32>, {w_type}, tensor<4x3xf32>) outs(%u_zero : {u5_type}) {{",
        "  ^bb0(%ga: f32, %wv: f32, %gb: f32, %acc: f32):",
        "    %p = arith.mulf %ga, %wv : f32",
        "    %q = arith.mulf %p, %gb : f32",
        "    %s = arith.addf %acc, %q : f32",
        "    linalg.yield %s : f32",
        f"  }} -> {u5_type}",
        f"  %u = tensor.collapse_shape %u5 [[0, 1], [2], [3], [4]] : {u5_type} into {u_type}",
        f"  %y = func.call @{conv.symbol}(%v, %u) : ({v_type}, {u_type}) -> {y_type}",
    ]
    result = _add_init(lines, "%y", init, y_type, "f32")
    lines += [f"  return {result} : {y_type}", "}"]
    return "\n".join(lines) + "\n", [x, w, init]


def _kernel_call(op: ir.Operation, conv, tile: int) -> tuple[str, list[ir.Value]]:
    """`@lowered` packing the filter into tiles of `tile` output channels (zeros past F) and
    calling the kernel `conv` names (which `run` declares), then adding the init."""
    x, w, init = op.operands
    x_type, packed_type, y_type = conv.types()
    w_type = str(w.type)
    padding = " padding_value(%zero : f32)" if conv.f % tile else ""
    lines = [
        f"func.func private @{conv.symbol}({x_type}, {packed_type}) -> {y_type}",
        f"func.func @lowered(%x: {x_type}, %w: {w_type}, %init: {y_type}) -> {y_type} {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %packed_dest = tensor.empty() : {packed_type}",
        f"  %packed = linalg.pack %w{padding} inner_dims_pos = [0] inner_tiles = [{tile}]"
        f" into %packed_dest : {w_type} -> {packed_type}",
        f"  %y = func.call @{conv.symbol}(%x, %packed) : ({x_type}, {packed_type}) -> {y_type}",
    ]
    result = _add_init(lines, "%y", init, y_type, "f32")
    lines += [f"  return {result} : {y_type}", "}"]
    return "\n".join(lines) + "\n", [x, w, init]


def _tiled(op: ir.Operation, tile_m: int, tile_n: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` as tiled patches, mmt4d and unpack, and the values its arguments
    stand for; None where the rewrite does not apply."""
    x, w, init = op.operands
    types = [v.type for v in (x, w, init)]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    elt = types[0].element_type
    if not isinstance(elt, ir.FloatType) or any(t.element_type != elt for t in types):
        return None
    (n, c, h, width), (f, _, kh, kw), (_, _, oh, ow) = (list(t.shape) for t in types)
    (sh, sw), (dh, dw) = _pair(op, "strides"), _pair(op, "dilations")
    tm = _row_tile(ow, tile_m)
    row = _ceil_div(ow, tm) * tm  # output pixels computed per row
    row_tiles, k, f_tiles = row // tm, c * kh * kw, _ceil_div(f, tile_n)
    pixels = n * oh * row
    # The last computed pixel of a row reads input column (row - 1) * sw + (kw - 1) * dw.
    wide = max(width, (row - 1) * sw + (kw - 1) * dw + 1)
    t = lambda *shape: tensor_type(shape, elt)  # noqa: E731
    x_type, w_type, y_type = t(n, c, h, width), t(f, c, kh, kw), t(n, f, oh, ow)
    patches = t(n, oh, row_tiles, c, kh, kw, tm, 1)
    lhs, rhs, acc = t(n * oh * row_tiles, k, tm, 1), t(f_tiles, k, tile_n, 1), t(n * oh * row_tiles, f_tiles, tm, tile_n)
    lines = [
        f"func.func @lowered(%x: {x_type}, %w: {w_type}, %init: {y_type}) -> {y_type} {{",
        f"  %zero = arith.constant 0.0 : {elt}",
    ]
    if wide > width:
        lines.append(
            f"  %xw = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, {wide - width}] {{\n"
            f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n    tensor.yield %zero : {elt}\n"
            f"  }} : {x_type} to {t(n, c, h, wide)}"
        )
        x_name, x_type = "%xw", t(n, c, h, wide)
    else:
        x_name = "%x"
    lines += _gathered_patches(x_name, x_type, elt, (n, oh, row_tiles, c, kh, kw, tm), (sh, sw, dh, dw))
    lines += [
        f"  %lhs = tensor.collapse_shape %patches [[0, 1, 2], [3, 4, 5], [6], [7]] : {patches} into {lhs}",
        f"  %w2 = tensor.collapse_shape %w [[0], [1, 2, 3]] : {w_type} into {t(f, k)}",
        f"  %rhs_dest = tensor.empty() : {rhs}",
        f"  %rhs = linalg.pack %w2 {f'padding_value(%zero : {elt}) ' if f % tile_n else ''}inner_dims_pos = [0, 1]"
        f" inner_tiles = [{tile_n}, 1] into %rhs_dest : {t(f, k)} -> {rhs}",
        f"  %acc_dest = tensor.empty() : {acc}",
        f"  %acc_zero = linalg.fill ins(%zero : {elt}) outs(%acc_dest : {acc}) -> {acc}",
        f"  %acc = linalg.mmt4d ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc_zero : {acc}) -> {acc}",
        f"  %out_dest = tensor.empty() : {t(f, pixels)}",
        f"  %out = linalg.unpack %acc outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [{tm}, {tile_n}]"
        f" into %out_dest : {acc} -> {t(f, pixels)}",
    ]
    if n == 1:  # [F][pixels] is already NCHW
        lines.append(
            f"  %rows = tensor.expand_shape %out [[0, 1], [2, 3]] output_shape [1, {f}, {oh}, {row}]"
            f" : {t(f, pixels)} into {t(1, f, oh, row)}"
        )
        result = "%rows"
        if row > ow:
            lines.append(f"  %cut = tensor.extract_slice %rows[0, 0, 0, 0] [1, {f}, {oh}, {ow}] [1, 1, 1, 1] : {t(1, f, oh, row)} to {y_type}")
            result = "%cut"
    else:
        lines += [
            f"  %rows = tensor.expand_shape %out [[0], [1, 2, 3]] output_shape [{f}, {n}, {oh}, {row}]"
            f" : {t(f, pixels)} into {t(f, n, oh, row)}",
            f"  %cut = tensor.extract_slice %rows[0, 0, 0, 0] [{f}, {n}, {oh}, {ow}] [1, 1, 1, 1] : {t(f, n, oh, row)} to {t(f, n, oh, ow)}",
            f"  %nchw_dest = tensor.empty() : {y_type}",
            f"  %nchw = linalg.transpose ins(%cut : {t(f, n, oh, ow)}) outs(%nchw_dest : {y_type}) permutation = [1, 0, 2, 3]",
        ]
        result = "%nchw"
    result = _add_init(lines, result, init, y_type, elt)
    lines += [f"  return {result} : {y_type}", "}"]
    return "\n".join(lines) + "\n", [x, w, init]


def run(op: ir.Operation, options) -> None:
    sizes = {"tile-m": options.tile_m, "tile-n": options.tile_n}
    bad = [f"{name}={value}" for name, value in sizes.items() if value < 1]
    if bad:
        raise StrataError(f"strata-data-tile-conv: tile-m and tile-n must be at least 1; got {', '.join(bad)}")
    for name, value in (("direct-min-width", options.direct_min_width), ("winograd-min-channels", options.winograd_min_channels)):
        if value < 0:
            raise StrataError(f"strata-data-tile-conv: {name} must be 0 (off) or more; got {value}")
    if options.tile_pixels not in pixel_tile_conv.PIXELS:
        choices = " or ".join(map(str, pixel_tile_conv.PIXELS))
        raise StrataError(f"strata-data-tile-conv: tile-pixels must be {choices}; got {options.tile_pixels}")
    if options.lanes not in LANES:
        choices = " or ".join(map(str, LANES))
        raise StrataError(f"strata-data-tile-conv: lanes must be {choices}; got {options.lanes}")

    def lower(conv: ir.Operation):
        winograd = _winograd(conv, options.winograd_min_channels, options.lanes) if options.winograd_min_channels else None
        if winograd:
            return winograd
        direct = _direct(conv, options.direct_min_width) if options.direct_min_width else None
        pixels = _pixel_tiles(conv, options.tile_pixels, options.lanes) if options.pixel_tiles and not direct else None
        return direct or pixels or _tiled(conv, options.tile_m, options.tile_n)

    splice_each(op, [_OP], lower)
    declare_kernels(op)
