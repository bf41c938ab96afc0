"""CTGAN and TVAE through SDV 1.x (non-DP, Section 6.3 of the paper).

Both wrap ``sdv.single_table`` synthesisers with metadata built from our schema (numerical ->
``numerical``, categorical and binary -> ``categorical``) so that SDV never guesses a type. SDV
seeds nothing by itself: we fix torch's and numpy's global generators from ``seed`` around
``fit`` and ``sample`` (restoring numpy's state afterwards) and run torch on the CPU with
``threads`` intra-op threads (default 1, restored afterwards). The thread count is part of the
determinism: torch's parallel reductions sum in another order with another count, and the
generated rows differ (only 0.4% of CTGAN's rows were equal between 1 and 2 threads),
so it is fixed by the synthesiser, never taken from the environment. Epochs and batch size come from the
run profile (:mod:`privmetrics.experiments.profiles`); the library defaults are SDV's (300 epochs, batch 500).
SDV makes no network call for these two models.

**joblib runs sequentially inside fit and sample.** ctgan's ``DataTransformer`` transforms the
columns of a table of 500 rows or more with ``joblib.Parallel(n_jobs=-1)``. Each continuous column's
RDT ``ClusterBasedNormalizer`` draws its mode per row from numpy's *global* generator, into which
RDT swaps the transformer's own state for the call. In a plain process joblib runs those calls in
separate processes, one global generator each, and the output is fixed by the seed. Inside a joblib
(loky) worker, though, joblib runs the nested calls on *threads*, which share one global
generator and swap their states in and out of it in whatever order they are scheduled: the same
fit then gave a different table in every worker task (measured: TVAE, 500 flchain rows, two worker
tasks, two tables, neither the plain process's). Run sequentially, each column's draws come from its own
state as in separate processes, so the table is the plain process's, in a worker or not.
For the same reason two fits must not run on two threads of one process (they would share torch's
and numpy's global generators): the grid, the games and the Dask workers run one fit per process.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from privmetrics.data.validation import check_count
from privmetrics.synthesisers.base import Synthesiser, register_synthesiser


@contextmanager
def seeded(seed: int, threads: int = 1):
    """torch and numpy's global generators seeded, torch on ``threads`` threads, and joblib
    sequential (module doc) in this block; numpy's state and torch's thread count restored after."""
    import torch
    from joblib import parallel_config

    state = np.random.get_state()  # noqa: NPY002  (SDV draws from the legacy global generator)
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002
    try:
        with parallel_config(backend="sequential"):
            yield
    finally:
        np.random.set_state(state)  # noqa: NPY002
        torch.set_num_threads(torch_threads)


class SDVSynthesiser(Synthesiser):
    min_rows = 2  # SDV's mode-specific normalisation fits a Gaussian mixture
    sdv_class = ""

    def __init__(self, seed: int = 0, epochs: int = 300, batch_size: int = 500, threads: int = 1):
        super().__init__(seed)
        self.epochs, self.batch_size = (
            check_count("epochs", epochs),
            check_count("batch_size", batch_size),
        )
        self.threads = check_count("threads", threads)

    def _metadata(self):
        from sdv.metadata import Metadata

        columns = {
            c: {"sdtype": "numerical" if c in self.schema_.numerical else "categorical"}
            for c in self.columns_
        }
        return Metadata.load_from_dict({"tables": {"table": {"columns": columns}}})

    def _model(self, metadata):
        import sdv.single_table

        return getattr(sdv.single_table, self.sdv_class)(
            metadata, epochs=self.epochs, batch_size=self.batch_size, enable_gpu=False
        )

    def _fit(self, frame):
        with seeded(self.seed, self.threads):
            self.model_ = self._model(self._metadata())
            self.model_.fit(frame)

    def _sample(self, n):
        with seeded(self.seed + 1, self.threads):
            self.model_.reset_sampling()
            out = self.model_.sample(n if n is not None else 100)
        for col in self.schema_.numerical:
            out[col] = out[col].astype("float64")
        for col in self.schema_.categorical:
            out[col] = out[col].astype(str).astype(object)
        return out


@register_synthesiser("ctgan")
class CTGAN(SDVSynthesiser):
    """Conditional tabular GAN (Xu et al. 2019) via ``sdv.single_table.CTGANSynthesizer``.

    ``batch_size`` is rounded down to a multiple of CTGAN's pac size (10), as SDV requires.
    """

    sdv_class = "CTGANSynthesizer"

    def __init__(self, seed: int = 0, epochs: int = 300, batch_size: int = 500, threads: int = 1):
        batch_size = check_count("batch_size", batch_size)
        super().__init__(seed, epochs, max(10, batch_size // 10 * 10), threads)


@register_synthesiser("tvae")
class TVAE(SDVSynthesiser):
    """Tabular variational autoencoder (Xu et al. 2019) via ``sdv.single_table.TVAESynthesizer``."""

    sdv_class = "TVAESynthesizer"
