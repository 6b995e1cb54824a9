"""Sharing one measurement budget among a model's tasks: round-robin, or Ansor's gradient allocator
(Zheng et al., OSDI 2020, section 6): spend the next round where the model's latency is expected to
drop most."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# below this many FLOPs per byte of its arguments a task is bound by memory bandwidth: a 2-core Zen 4 does about
# 230 GFLOP/s and streams 30-50 GB/s (AlexNet's dense layers: 0.5 FLOP/byte; ResNet-18's convs: 30-300)
MEMORY_BOUND_FLOP_PER_BYTE = 4.0
# at most this many FLOPs per byte of its arguments, a task reads each byte about once (a dense layer at batch 1: 0.5;
# a pool, a copy, a global mean): nothing to reuse from the caches, so inside a model it runs at the pace memory
# streams, whatever its schedule, as long as the schedule vectorizes and uses every core. Stop 98 (Zen 5 VM): each of
# six VGG-16 runs' picks for its three dense layers, measured cold (as they run in the model) in 8 interleaved rounds:
# no pick of the runs at 1,000 without transfer (22-160 measurements each) ran faster than those of the runs at 200
# with (4-24): fc6 8.81-9.70 against 8.76-9.33 ms, fc7 1.01-1.31 against 0.99-1.02, fc8 0.32-0.33 for all, while
# the runs' own readings of them spread 2-3.5x (fc7: 0.36-1.26 ms). A 3x3 depthwise conv (about 2 FLOPs a byte)
# reuses each input 9 times, and its schedule decides how well: not streaming.
STREAMING_FLOP_PER_BYTE = 1.0


@dataclass
class TaskProgress:
    """What an allocator knows of one task: its weight (calls per inference), FLOPs, kind, the best
    latency after each round and the trials spent so far, and the bytes of its arguments (0: unknown)."""

    weight: int
    flops: float
    kind: str
    space_size: int
    trials: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)  # (trials, best seconds) per round
    arg_bytes: int = 0

    @property
    def work(self) -> float:
        """What the task's time is expected to follow, in FLOPs: its FLOPs, or for a memory-bound task
        (under :data:`MEMORY_BOUND_FLOP_PER_BYTE` FLOPs a byte) its argument bytes at that rate. VGG-16's fc6
        (205 MFLOP, 411 MB of weights) is 1.3% of the model's FLOPs and 11% of its tuned latency (Zen 3,
        stop 77): by FLOPs its first round was a quarter round (4 of 200 measurements); by bytes, 1.64
        GFLOP-equivalents, it is a full one. Stop 79 measured such runs' fc6 picks side by side and found the
        readings' gaps mostly fast phases of the host's memory (results/transfer/znver3-s79/fc6), and since
        stop 98 a streaming task such as fc6 gets the smallest first round whatever its work
        (``first_round_size``): the work still orders the first rounds, heaviest first."""
        return max(self.flops, MEMORY_BOUND_FLOP_PER_BYTE * self.arg_bytes)

    @property
    def streaming(self) -> bool:
        """At most :data:`STREAMING_FLOP_PER_BYTE` FLOPs per byte of its (known) arguments: its time follows the
        memory's pace, not its schedule, so it gets the smallest first round and its later rounds come after the
        other tasks'."""
        return self.arg_bytes > 0 and self.flops <= STREAMING_FLOP_PER_BYTE * self.arg_bytes

    @property
    def best(self) -> float:
        return self.history[-1][1] if self.history else math.inf

    @property
    def exhausted(self) -> bool:
        return self.trials >= self.space_size

    def stale_rounds(self, rel: float = 0.005) -> int:
        """This task's rounds since its best last dropped by more than ``rel``."""
        n = 0
        for k in range(len(self.history) - 1, 0, -1):
            if self.history[k][1] < self.history[k - 1][1] * (1 - rel):
                break
            n += 1
        return n


class RoundRobin:
    name = "round-robin"

    def __init__(self, seed: int = 0) -> None:
        self._next = 0

    def pick(self, tasks: list[TaskProgress]) -> int | None:
        for k in range(len(tasks)):
            i = (self._next + k) % len(tasks)
            if not tasks[i].exhausted:
                self._next = i + 1
                return i
        return None


class GradientAllocator:
    """Ansor's task scheduler. Every task is first tuned for one round, the heaviest (calls x work: FLOPs, or
    bytes for a memory-bound task) first; afterwards the next round goes to the task whose latency gradient, weighted by its calls per
    inference, promises the largest drop of the model's latency f = sum_i w_i g_i:

        dg_i/dt ~ alpha * (g_i(t_i) - g_i(t_i - dt)) / dt
                  + (1 - alpha) * min(-g_i(t_i) / t_i, beta * C_i / max_k V_k - g_i(t_i))

    with g_i the task's best latency after t_i trials, C_i its FLOPs and V_k the best throughput of a
    task of the same kind (what this task might reach). With probability ``epsilon`` a random task is
    chosen instead. Ansor's defaults: alpha = 0.2, beta = 2, window dt = the last round, epsilon = 0.05.

    A streaming task (:attr:`TaskProgress.streaming`: a dense layer at batch 1, a pool, a copy) gets no round
    after its first while a task that is not streaming can take one (but for the ``epsilon`` picks): its promise
    -g_i / t_i is large for a task of long time and few measurements, and what it gains between rounds is the
    host's memory bandwidth moving. Stop 98: VGG-16 runs at 1,000 gave their three dense layers 150-222
    measurements (22-160 each) for picks that ran no faster in the model than those of runs that gave them 4-24,
    and at 200 with transfer fc6 took a 16-measurement round of the 75 left after the first rounds (seeds 0-2
    alike). Where every live task streams (a batch-1 MLP) they share the budget by the gradient.

    The optimistic term alone starves the model: a task whose shape cannot reach half its peers'
    throughput keeps the largest promised gain however often it fails (a 2,000-measurement ResNet-18
    run gave 1,088 measurements to one such conv while it stayed at 115 GFLOP/s). So, as Ansor's
    per-task early stopping does, a task rests after ``patience`` rounds of its own without a 0.5%
    gain: it loses the peer term (``beta``), and its promise -g_i / t_i halves with every further round
    without a gain. A resting task still competes with the others on that promise, so it is tried
    again when the tasks still improving promise less.

    Until stop 46 a resting task kept only its observed gain and was set aside while any task still
    improved. Both halves starved the model (stop 42's runs on Zen 5, read back from their databases):
    a light task "improves" by the noise of a 1 us kernel, so ResNet-18 at 2,000 gave 100 measurements
    to its global mean while each 512-channel conv (7% of the latency, at 78% of the other convs'
    throughput in the model) rested after 56 and never came back; and once every task rested, the
    observed gains (zero, or noise under 0.5%) decided, so VGG-16 at 2,000 gave its first big conv 51
    rounds in a row (814 measurements, none gaining 0.5%) while the other big convs stayed at 56-88.
    """

    name = "gradient"

    def __init__(self, seed: int = 0, alpha: float = 0.2, beta: float = 2.0, epsilon: float = 0.05,
                 patience: int | None = 3) -> None:
        self.alpha, self.beta, self.epsilon, self.patience = alpha, beta, epsilon, patience
        self.rng = np.random.default_rng(seed)
        self.last_gradients: list[float] = []

    def gradient(self, i: int, tasks: list[TaskProgress]) -> float:
        t = tasks[i]
        g = t.best
        if not math.isfinite(g):
            return -math.inf  # nothing runs yet: any valid schedule is an unbounded gain
        if len(t.history) >= 2:
            (t0, g0), (t1, g1) = t.history[-2], t.history[-1]
            backward = (g1 - g0) / max(t1 - t0, 1) if math.isfinite(g0) else -g1 / max(t1, 1)
        else:
            backward = -g / max(t.trials, 1)
        optimistic = -g / max(t.trials, 1)
        stale = t.stale_rounds()
        if self.patience is not None and stale >= self.patience:  # resting: no peer term, a fading promise
            optimistic *= 0.5 ** (stale - self.patience + 1)
        else:
            peers = [k.flops / k.best for k in tasks if k.kind == t.kind and math.isfinite(k.best) and k.best > 0]
            v_max = max(peers) if peers and t.flops > 0 else 0.0
            if v_max > 0:
                optimistic = min(optimistic, self.beta * t.flops / v_max - g)
        return t.weight * (self.alpha * backward + (1 - self.alpha) * optimistic)

    def pick(self, tasks: list[TaskProgress]) -> int | None:
        live = [i for i, t in enumerate(tasks) if not t.exhausted]
        if not live:
            return None
        fresh = [i for i in live if not tasks[i].history]
        if fresh:  # the heaviest first (calls x work): if the budget ends in the first rounds, light tasks miss it
            return max(fresh, key=lambda i: (tasks[i].weight * tasks[i].work, -i))
        if self.rng.random() < self.epsilon:
            return int(self.rng.choice(live))
        live = [i for i in live if not tasks[i].streaming] or live  # streaming tasks: after the others
        grads = [self.gradient(i, tasks) for i in live]
        self.last_gradients = grads
        return live[int(np.argmin(grads))]


def first_round_size(tasks: list[TaskProgress], i: int, budget: int, left: int, round_size: int,
                     transferred: bool) -> int:
    """How many measurements task ``i``'s first round gets, with ``left`` of the model's ``budget`` still to
    spend.

    Its share of the budget by calls x work (FLOPs, or for a memory-bound task its bytes: ``TaskProgress.work``)
    among all the model's tasks, at least a quarter round and at
    most a round (half a round when it starts from transferred schedules: its curve starts higher), and
    never so many that the tasks still without a round cannot get their quarter rounds.

    Why shares and not equal parts: a VGG-16 run at 200 measurements with transfer (stop 37, Zen 3) gave
    its five max pools, two layout transforms and the average pool 8-16 measurements each (under 1% of
    its latency together) and 113 of the 200 to the tasks outside its 13 convolutions (92% of the latency).
    The share is of the whole model, not of the tasks still waiting: the light tasks come last (heaviest
    first), and among themselves each would look heavy. Why a quarter round at least: calls x FLOPs misjudge
    a task far below its peers' throughput, such as VGG-16's 3-channel first conv (at 2 measurements, in
    stop 39, it ran at 56 GFLOP/s, 2.5 times its time after 32).

    A streaming task (:attr:`TaskProgress.streaming`) gets the quarter round whatever its work, an eighth with
    transferred schedules (a similar task's best, measured): its schedule decides little of its time in the model.
    Until stop 98 VGG-16's fc6 took a full round by its bytes (half with transfer), and at 200 with transfer the
    model's streaming tasks (three dense layers, five max pools, a mean, two copies) took 65 of the 200
    measurements, 49 of them in first rounds."""
    t = tasks[i]
    waiting = [k for k, q in enumerate(tasks) if (q.trials == 0 and not q.exhausted) or k == i]
    floor = max(1, round_size // 4)
    if t.streaming:  # the floor whatever its work; an eighth of a round when it starts from transferred schedules
        n = max(1, round_size // 8) if transferred else floor
    else:
        cap = max(1, round_size // 2) if transferred else round_size
        mass = sum(q.weight * q.work for q in tasks)  # all of them: a light task last in line is still light
        fair = budget * t.weight * t.work / mass if mass > 0 else left / len(waiting)
        n = min(cap, max(floor, int(round(fair))))
    n = min(n, left - floor * (len(waiting) - 1))  # the tasks still waiting keep their quarter rounds
    return max(1, min(n, left, t.space_size - t.trials))


ALLOCATORS = {"round-robin": RoundRobin, "gradient": GradientAllocator}


def make_allocator(name: str, seed: int = 0) -> RoundRobin | GradientAllocator:
    if name not in ALLOCATORS:
        raise ValueError(f"unknown task allocator {name!r}; known: {', '.join(ALLOCATORS)}")
    return ALLOCATORS[name](seed)
