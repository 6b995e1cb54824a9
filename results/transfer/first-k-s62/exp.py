# Stop 62: ../group-size-s61/exp.py (same arguments) with the first design's size from TT_K (default 8, the code's)
# by a monkeypatch of TransferPrior.initial_configs in this process only (nothing committed changes with it).
import os, runpy, sys
from tensortune.transfer import prior as P
K = int(os.environ.get('TT_K', '8'))
_orig = P.TransferPrior.initial_configs
P.TransferPrior.initial_configs = lambda self, k=8, per_source=None: _orig(self, K, per_source) if K > 0 else []
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'group-size-s61', 'exp.py')
sys.argv = [script] + sys.argv[1:]
runpy.run_path(script, run_name='__main__')
