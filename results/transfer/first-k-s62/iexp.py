# Stop 62: the first design interleaved with the prior model's first plan (design[0], model[0], design[1], ...,
# 16 configs), instead of the design first and the model's plan after a refit on its outcomes. Monkeypatches in
# this process only (the interleaving was tried as a ModelBasedStrategy option and not committed): the loop's
# initial_configs emptied, and the strategy's first plan (made from the prior before any outcome) interleaved with
# the design. TT_K: the design's size (8). TT_KB: tuners.recipes.TRANSFER_KEEP_BEST (chameleon).
import os, runpy, sys
import tensortune.tuners as T
from tensortune.tuners import recipes
from tensortune.transfer import prior as P
recipes.TRANSFER_KEEP_BEST = int(os.environ.get('TT_KB', '0'))
K = int(os.environ.get('TT_K', '8'))
_orig = P.TransferPrior.initial_configs
P.TransferPrior.initial_configs = lambda self, k=8, per_source=None: []


def interleave(first, plan, n):
    out, seen = [], set()
    for i in range(max(len(first), len(plan))):
        for src in (first, plan):
            if i < len(src) and src[i] not in seen and len(out) < n:
                seen.add(src[i])
                out.append(src[i])
    return out


_create = recipes.create
def create(name, space, seed=0, **kw):
    s = _create(name, space, seed, **kw)
    if kw.get('transfer'):
        design = _orig(kw['transfer'], K)
        ask = s.ask
        def first_ask(n):
            if not s.rounds and not s._plan:
                s.replan()
                s._plan = interleave(design, s._plan, max(len(s._plan), 2 * len(design)))
            s.ask = ask
            return ask(n)
        s.ask = first_ask
    return s
T.create = create
sys.argv = [os.path.join(os.path.dirname(__file__), 'exp.py')] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name='__main__')
