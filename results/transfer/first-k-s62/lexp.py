# Stop 62: the prior model's TT_LEAD best picks (its plan before any outcome of the task's own) measured before the
# first design (of TT_K, default 8), all in the first batch; then the strategy plans as before (refit on those
# outcomes). Monkeypatches in this process only. TT_KB: tuners.recipes.TRANSFER_KEEP_BEST (chameleon).
import os, runpy, sys
import tensortune.tuners as T
from tensortune.tuners import recipes
from tensortune.transfer import prior as P
recipes.TRANSFER_KEEP_BEST = int(os.environ.get('TT_KB', '0'))
K = int(os.environ.get('TT_K', '8')); LEAD = int(os.environ.get('TT_LEAD', '2'))
_orig = P.TransferPrior.initial_configs
def initial(self, k=8, per_source=None):
    lead = getattr(self, '_lead', [])
    return lead + [c for c in _orig(self, K, per_source) if c not in lead]
P.TransferPrior.initial_configs = initial
_create = recipes.create
def create(name, space, seed=0, **kw):
    s = _create(name, space, seed, **kw)
    if kw.get('transfer') and LEAD:
        kw['transfer']._lead = s.ask(LEAD)
        s._plan = []
    return s
T.create = create
sys.argv = [os.path.join(os.path.dirname(__file__), 'exp.py')] + sys.argv[1:]
os.environ['TT_K'] = '8'  # exp.py's own patch then calls ours with k = 8
runpy.run_path(sys.argv[0], run_name='__main__')
