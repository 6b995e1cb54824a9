"""Features of (task, config) that mean the same across shapes, so records of one layer teach another.

A config's own encoding (``SearchSpace.encode``: option indices and one-hots) changes meaning with the
shape: option 7 of a split knob is one tiling of 56 and another of 28. Here every split knob gives,
per factor, its log2 and its fraction of the knob's extent (the loop's length); every numeric
option knob its value (log2 for values above 1); a non-numeric option its position among the knob's
options. Shape features come first: log2 of batch, input channels, height, width, output channels,
the kernel size, stride, padding, groups and the FLOPs (a dense layer is a 1x1 convolution of its
M x K input, so convs and dense layers share the columns).

Two tasks can share a model only if their templates' knob layouts match (same knob names, split
factors per knob): :meth:`TransferFeatures.signature` says which.
"""

from __future__ import annotations

import itertools
import math
from functools import cached_property
from typing import Any

import numpy as np

from tensortune.core.values import Task

SHAPE_COLUMNS = ("log2_batch", "log2_c", "log2_h", "log2_w", "log2_k", "kernel_h", "kernel_w", "stride", "pad",
                 "groups", "log2_flops")


def template_family(name: str) -> str:
    """The template a variant's records share features with: the reduced (``-small``) and column-tail
    (``-tails``) spaces are subsets and supersets of the same knobs, so their records teach each other."""
    return name.removesuffix("-small").removesuffix("-tails")


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else -1.0


def shape_features(workload: Any) -> np.ndarray:
    """The shape columns of a workload (zeros where a workload kind has no such dimension)."""
    conv = _as_conv(workload)
    flops = float(getattr(workload, "flops", 0.0) or 0.0)
    if conv is not None:
        c, groups = conv
        return np.array([_log2(c.batch), _log2(c.in_channels), _log2(c.height), _log2(c.width),
                         _log2(c.out_channels), c.kernel[0], c.kernel[1], c.stride[0], c.padding[0], groups,
                         _log2(flops)], dtype=np.float64)
    dense = _as_dense(workload)
    if dense is not None:
        m, k, n = dense
        return np.array([0.0, _log2(k), _log2(m), 0.0, _log2(n), 1, 1, 1, 0, 1, _log2(flops)], dtype=np.float64)
    out = np.zeros(len(SHAPE_COLUMNS))
    out[-1] = _log2(flops)
    return out


def _as_dense(workload: Any) -> tuple[int, int, int] | None:
    """(M, K, N) of a dense workload: a single layer's, or a model's fused dense function (``dense_fused.llvm``)."""
    if getattr(workload, "op", "") == "dense":
        return int(workload.batch), int(workload.in_features), int(workload.out_features)
    if getattr(workload, "op", "") == "tir" and getattr(workload, "kind", "") == "dense":
        from tensortune.templates.cpu_dense_fused import dense_params

        try:
            return dense_params(workload)
        except Exception:
            return None
    return None


def conv_in_channels(workload: Any) -> int | None:
    """The input channels of a convolution workload (a TIR task's too), or None for anything else."""
    conv = _as_conv(workload)
    return int(conv[0].in_channels) if conv is not None else None


def _as_conv(workload: Any) -> tuple[Any, int] | None:
    if str(getattr(workload, "op", "")).startswith("conv2d"):
        return workload, 1
    if getattr(workload, "op", "") == "tir":
        from tensortune.templates.tir_schedules import blocked_conv_params, conv_params

        try:
            c = conv_params(workload)
            if c is None:
                b = blocked_conv_params(workload)
                c = b[0] if b else None
            if c is None:
                c = _winograd_conv(workload)
        except Exception:
            return None
        return (c, 1) if c is not None else None
    return None


def _winograd_conv(workload: Any) -> Any:
    """The 3x3 stride-1 conv (padding 1) a fused Winograd function computes (output size from its output
    argument), or None if it is not one: its shape columns are then the direct conv's it replaces, not only its
    FLOPs."""
    from tensortune.templates.cpu_winograd import winograd_shape
    from tensortune.workloads import Conv2d

    shp = winograd_shape(workload)
    out = workload.arg_specs[-1][0]  # the blocked output, N K/x H W x
    if shp is None or len(out) != 5:
        return None
    return Conv2d.make(1, shp["c"], int(out[2]), int(out[3]), shp["kb"] * shp["x"], 3, 1, 1)


def _factor_distance(option: tuple[int, ...], cur: tuple[int, ...], skip: tuple[int, ...]) -> float:
    """How far a split option's factors lie from ``cur``'s, the factors at ``skip`` left out: log2 distance, factor
    i weighing 2**i (the inner ones are sized by the hardware, as in ``TransferFeatures.nearest_config``)."""
    return sum(2.0 ** f * (math.log2(option[f]) - math.log2(cur[f])) ** 2 for f in range(len(option)) if f not in skip)


class TransferFeatures:
    """The transferable encoding of one task's configs."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.space = task.space

    @cached_property
    def shape(self) -> np.ndarray:
        return shape_features(self.task.workload)

    @cached_property
    def signature(self) -> tuple:
        """What must match for two tasks' features to share columns: the template family and, per knob,
        its name and kind (and the number of factors of a split)."""
        family = template_family(self.task.template)
        parts = []
        for k in self.space.knobs:
            if k.kind == "split":
                parts.append((k.name, "split", len(k.options[0])))
            else:
                parts.append((k.name, "option"))
        return (family, tuple(parts))

    def _knob_columns(self, knob: Any) -> tuple[np.ndarray, int]:
        """Per option of the knob, its feature row (a table, so encoding is a gather)."""
        if knob.kind == "split":
            ext = float(np.prod(knob.options[0]))
            rows = [[v for f in opt for v in (_log2(f), f / ext)] for opt in knob.options]
        elif all(isinstance(o, int | float) and not isinstance(o, bool) for o in knob.options):
            rows = [[_log2(float(o)) if o > 1 else float(o)] for o in knob.options]
        else:
            n = max(len(knob.options) - 1, 1)
            rows = [[i / n] for i in range(len(knob.options))]
        table = np.array(rows, dtype=np.float64)
        return table, table.shape[1]

    @cached_property
    def _tables(self) -> list[np.ndarray]:
        return [self._knob_columns(k)[0] for k in self.space.knobs]

    @cached_property
    def _mapping_weights(self) -> list[np.ndarray]:
        """Per knob, the weight of each feature column when a config of another shape is mapped onto this
        space (:meth:`nearest_config`). A split's factors run from the outer loop (what is left of the
        extent) to the innermost (register tile, vector lanes): the inner ones are sized by the hardware,
        not by the shape, so their absolute size (log2 column) weighs 2**j for factor j; fractions weigh 1.
        Unweighted, a 512-channel conv's best [16, 1, 2, 16] mapped onto 256 channels as [16, 1, 2, 8]
        (half the vector width; fraction and log2 tied) at 0.32-0.41 of AlexNet conv3's optimum."""
        out = []
        for knob, table in zip(self.space.knobs, self._tables, strict=True):
            if knob.kind == "split":
                w = [v for j in range(table.shape[1] // 2) for v in (2.0 ** j, 1.0)]
            else:
                w = [1.0] * table.shape[1]
            out.append(np.array(w, dtype=np.float64))
        return out

    @cached_property
    def _template(self) -> Any:
        """The task's template (its ``register_block``, ``vector_lanes``, ``spatial_axes``), or None where the name
        is not a registered template."""
        from tensortune.templates import get_template

        try:
            return get_template(self.task.template)
        except ValueError:
            return None

    @cached_property
    def _register_block(self) -> list[tuple[int, list[int]]]:
        """(knob position, its log2 columns) of the factors whose product is the template's register block
        (``Template.register_block``); empty where the template names none."""
        if self._template is None:
            return []
        named = self._template.register_block
        pos = {k.name: i for i, k in enumerate(self.space.knobs)}
        if not all(k in pos and self.space.knobs[pos[k]].kind == "split" for k in named):
            return []
        return [(pos[k], [2 * j for j in js]) for k, js in named.items()]

    def nearest_config(self, knob_features: np.ndarray, candidates: int = 4) -> Any:
        """The config of this space nearest to ``knob_features`` (another task's config in this encoding,
        shape columns left out). Knob by knob (weighted by :attr:`_mapping_weights`), except that the knobs
        of the template's register block are chosen together among each one's ``candidates`` nearest
        options, so that the block keeps its size in floats (log2 distance, weight 4): a 7-column block
        of two 16-lane vectors (14 accumulators) maps onto 13 columns as one vector, not as 26
        accumulators that spill (240 against 412 GFLOP/s on AlexNet conv3). A split factor this space
        holds at 1 in every option (the reduced ``-small`` spaces have no middle tile) is folded into the
        outer factor first (:meth:`_fold`). The first valid combination wins; where none is valid, the
        knob-by-knob choice is returned (callers check validity)."""
        from tensortune.space import Config

        dists, wants, col = [], [], 0
        for table, w, fixed in zip(self._tables, self._mapping_weights, self._fixed_factors, strict=True):
            want = self._fold(np.array(knob_features[col: col + table.shape[1]], dtype=np.float64), table, fixed)
            dists.append(np.sum(w * (table - want) ** 2, axis=1))
            wants.append(want)
            col += table.shape[1]
        base = [int(np.argmin(d)) for d in dists]
        if not self._register_block:
            return Config(tuple(base))
        target = sum(float(wants[i][c]) for i, cs in self._register_block for c in cs)
        options = [(i, np.argsort(dists[i], kind="stable")[:candidates]) for i, _ in self._register_block]
        scored = []
        for pick in itertools.product(*(opts for _, opts in options)):
            size = sum(float(self._tables[i][o][c]) for (i, cs), o in zip(self._register_block, pick, strict=True)
                       for c in cs)
            d = sum(float(dists[i][o]) for (i, _), o in zip(options, pick, strict=True))
            scored.append((d + 4.0 * (size - target) ** 2, pick))
        for _, pick in sorted(scored, key=lambda t: t[0]):
            idx = list(base)
            for (i, _), o in zip(options, pick, strict=True):
                idx[i] = int(o)
            cfg = Config(tuple(idx))
            if self.space.is_valid(cfg):
                return cfg
        return Config(tuple(base))

    @cached_property
    def _lanes(self) -> tuple[int, int, tuple[int, ...]] | None:
        """(knob position, lane factor, the knob's register-block factors) of the template's vector lanes
        (``Template.vector_lanes``); None where the template names none or this space fixes them."""
        tpl = self._template
        if tpl is None or not tpl.vector_lanes or tpl.vector_lanes[0] not in self.space.names:
            return None
        name, j = tpl.vector_lanes
        pos = self.space.names.index(name)
        knob = self.space.knobs[pos]
        if knob.kind != "split" or len({o[j] for o in knob.options}) < 2:
            return None
        return pos, j, tuple(sorted({j, *tpl.register_block.get(name, ())}))

    def lanes_of(self, cfg: Any) -> int | None:
        """``cfg``'s vector lane count; None where the template names none or this space fixes it."""
        if self._lanes is None:
            return None
        pos, j, _block = self._lanes
        return int(self.space.knobs[pos].options[cfg.indices[pos]][j])

    def lane_variants(self, cfg: Any) -> list[Any]:
        """``cfg`` with its vector lanes doubled, then halved: the valid ones of the two. The lanes are the
        factor sized by the hardware and the shape's divisors, not by the source's shape: a source that runs
        best on 8 lanes says little about whether this task wants 8 or 16 (held-out L1 on the Zen 3 tables:
        its one source, the corpus's 48-filter stem, is best at 8 lanes; L1's configs within 95% of its
        optimum all have 16). The knob's other factors are chosen again: its register-block factors keep
        their product as nearly as they can, then each factor its size (log2, the inner ones weighing
        2**i, as in :meth:`nearest_config`); the other knobs stay as they are."""
        from tensortune.space import Config

        if self._lanes is None:
            return []
        pos, j, block = self._lanes
        knob = self.space.knobs[pos]
        cur = knob.options[cfg.indices[pos]]
        out = []
        for lanes in (cur[j] * 2, cur[j] // 2):
            scored = []
            for i, o in enumerate(knob.options):
                if o[j] != lanes:
                    continue
                size = sum(math.log2(o[b]) - math.log2(cur[b]) for b in block)
                scored.append((4.0 * size ** 2 + _factor_distance(o, cur, block), i))
            for _, i in sorted(scored):
                c = Config(cfg.indices[:pos] + (i,) + cfg.indices[pos + 1:])
                if self.space.is_valid(c):
                    out.append(c)
                    break
        return out

    @cached_property
    def _axes(self) -> tuple[tuple[int, tuple[int, ...]], tuple[int, tuple[int, ...]]] | None:
        """((knob position, register-block factors) of the rows, the same of the columns) of the template's
        ``spatial_axes``; None where the template names none or the two are not register-blocked splits here."""
        tpl = self._template
        if tpl is None or not tpl.spatial_axes or not all(a in self.space.names for a in tpl.spatial_axes):
            return None
        out = []
        for name in tpl.spatial_axes:
            pos = self.space.names.index(name)
            block = tuple(tpl.register_block.get(name, ()))
            if self.space.knobs[pos].kind != "split" or not block:
                return None
            out.append((pos, block))
        return out[0], out[1]

    def _tile(self, pos: int, block: tuple[int, ...], option: int) -> int:
        return int(np.prod([self.space.knobs[pos].options[option][j] for j in block]))

    def _with_tile(self, pos: int, block: tuple[int, ...], cfg: Any, tile: int) -> list[tuple[float, int]]:
        """(distance, option) of knob ``pos``'s options whose register factors ``block`` make ``tile``, nearest first
        to ``cfg``'s option in their other factors (``_factor_distance``)."""
        options = self.space.knobs[pos].options
        cur = options[cfg.indices[pos]]
        return sorted((_factor_distance(o, cur, block), i) for i, o in enumerate(options)
                      if self._tile(pos, block, i) == tile)

    def orientation(self, cfg: Any) -> int | None:
        """Which axis of the output plane ``cfg``'s register tile is longer on: 1 rows, -1 columns, 0 neither;
        None where the template names no ``spatial_axes``."""
        if self._axes is None:
            return None
        (py, by), (px, bx) = self._axes
        ry, rx = self._tile(py, by, cfg.indices[py]), self._tile(px, bx, cfg.indices[px])
        return (ry > rx) - (ry < rx)

    def axis_variant(self, cfg: Any) -> Any:
        """``cfg`` with its register tile's rows and columns exchanged (a 5-row, 1-column tile becomes 1 row by 5
        columns), or None where this space holds no valid such config. The register tile's orientation is set by
        how the output's rows and columns factor and by the machine, not carried by the shape features: held-out L1
        (55 x 55) on the Zen 4 tables maps the corpus stem's taller-than-wide best tiles onto 5 x 1, where 23 of the
        27 configs within 95% of its optimum are 1 x 5 (stop 91, results/transfer/znver4-s91/l1diag.txt). Each of the
        two knobs takes, among its options whose register factors make the other axis's tile, the one whose other
        factors are nearest to its own (log2, the inner ones weighing 2**i as in :meth:`nearest_config`); the other
        knobs stay as they are."""
        from tensortune.space import Config

        if self._axes is None:
            return None
        (py, by), (px, bx) = self._axes
        want = {py: self._tile(px, bx, cfg.indices[px]), px: self._tile(py, by, cfg.indices[py])}
        if want[py] == want[px]:
            return None
        ranked = {pos: self._with_tile(pos, block, cfg, want[pos]) for pos, block in ((py, by), (px, bx))}
        pairs = sorted(((dy + dx, iy, ix) for dy, iy in ranked[py] for dx, ix in ranked[px]))
        for _, iy, ix in pairs:
            idx = list(cfg.indices)
            idx[py], idx[px] = iy, ix
            c = Config(tuple(idx))
            if self.space.is_valid(c):
                return c
        return None

    def budget_variants(self, cfg: Any) -> list[Any]:
        """``cfg`` with its register budget moved from one axis of the output plane to the output channels: per
        spatial axis (rows, then columns) whose register tile is longer than 1 while the other axis's is too (a 1 x 1
        tile would use each weight vector once), that axis's tile set to 1 and the channels' register factor raised
        as far as the accumulators (rows x columns x channel vectors) stay within ``cfg``'s; the valid ones. A lone
        source of another shape says how many accumulators the machine holds, not how this task's output plane and
        channels should share them: on the emeraldrapids tables held-out L1's one source maps onto a 5 x 5 x 1 tile
        (0.35-0.87 of L1's optimum), where the optimum is 1 x 5 x 4 (stop 94). Each changed knob takes, among its
        options with the wanted register factors, the one whose other factors are nearest to its own (as
        :meth:`axis_variant`); the other knobs stay as they are."""
        from tensortune.space import Config

        if self._axes is None or self._lanes is None:
            return []
        (py, by), (px, bx) = self._axes
        pf, lane, fblock = self._lanes
        chan = tuple(f for f in fblock if f != lane)
        if pf in (py, px) or not chan:
            return []
        fknob = self.space.knobs[pf]
        fcur = fknob.options[cfg.indices[pf]]
        c_now = int(np.prod([fcur[f] for f in chan]))
        ry, rx = self._tile(py, by, cfg.indices[py]), self._tile(px, bx, cfg.indices[px])
        budget = ry * rx * c_now
        out = []
        for pos, block, other in ((py, by, rx), (px, bx, ry)):
            if self._tile(pos, block, cfg.indices[pos]) == 1 or other == 1:
                continue  # nothing to give, or the tile would shrink to 1 x 1 (each weight vector used once)
            ones = self._with_tile(pos, block, cfg, 1)
            fits = {}
            for i, o in enumerate(fknob.options):
                c = int(np.prod([o[f] for f in chan]))
                if o[lane] == fcur[lane] and c_now < c and other * c <= budget:
                    fits.setdefault(c, []).append((_factor_distance(o, fcur, fblock), i))
            if not ones or not fits:
                continue
            for _, fi in sorted(fits[max(fits)]):
                idx = list(cfg.indices)
                idx[pos], idx[pf] = ones[0][1], fi
                c = Config(tuple(idx))
                if self.space.is_valid(c):
                    out.append(c)
                    break
        return out

    @cached_property
    def _fixed_factors(self) -> list[list[int]]:
        """Per knob, the inner factors (after the outer one) of a split that are 1 in every option."""
        out = []
        for knob in self.space.knobs:
            if knob.kind != "split":
                out.append([])
                continue
            out.append([j for j in range(1, len(knob.options[0])) if all(o[j] == 1 for o in knob.options)])
        return out

    @staticmethod
    def _fold(want: np.ndarray, table: np.ndarray, fixed: list[int]) -> np.ndarray:
        """Another space's split (log2 and fraction per factor) with its factors at the ``fixed`` positions
        multiplied into the outer one, where this space's loop nest runs them: a 128-column tile [1, 16, 8]
        (16 middle blocks of an 8-column register tile) becomes [16, 1, 8], so that a space without a middle
        tile maps it onto [28, 1, 8] of 224 columns rather than [16, 1, 14], which kept the outer count and
        lost the register tile (on L4, 128.6 and 138.5 GFLOP/s against 282.0 and 348.4 folded, stop 52)."""
        for j in fixed:
            lg = want[2 * j]
            if lg > 0:
                want[0] += lg
                want[1] *= 2.0 ** lg
            want[2 * j], want[2 * j + 1] = table[0, 2 * j], table[0, 2 * j + 1]
        return want

    @property
    def width(self) -> int:
        return len(self.shape) + sum(t.shape[1] for t in self._tables)

    def encode_indices(self, idx: np.ndarray) -> np.ndarray:
        """Features of configs given as option-index rows (n, knobs) or flat config indices (n,)."""
        idx = np.asarray(idx)
        if idx.ndim == 1:
            idx = np.array([self.space.config(int(i)).indices for i in idx], dtype=np.int64).reshape(len(idx), -1)
        n = len(idx)
        cols = [np.repeat(self.shape[None, :], n, axis=0)]
        cols += [t[idx[:, j]] for j, t in enumerate(self._tables)]
        return np.concatenate(cols, axis=1) if n else np.zeros((0, self.width))

    def encode_values(self, values: list[dict[str, Any]]) -> np.ndarray:
        """Features of configs given as knob values (as stored in records); a value not among the
        knob's options raises ValueError."""
        rows = [self.space.from_json(v).indices for v in values]
        return self.encode_indices(np.array(rows, dtype=np.int64).reshape(len(rows), len(self.space.knobs)))
