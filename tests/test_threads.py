"""The thread budget's one threadpoolctl controller: kept while nothing new is imported, made again
after an import, and the pools it caps are restored after the block."""

import sys
import types

from privmetrics.threads import controller, limited, one_thread, thread_budget


def test_the_controller_is_kept_until_a_module_is_imported(monkeypatch):
    first = controller()
    assert controller() is first  # no scan of the loaded libraries again
    monkeypatch.setitem(sys.modules, "privmetrics_test_new_module", types.ModuleType("x"))
    assert controller() is not first  # an import may have brought a BLAS or OpenMP library


def test_a_cap_holds_in_its_block_and_the_pools_come_back_after_it():
    import numpy  # noqa: F401  (a BLAS pool to cap)

    with limited(2):  # whatever the session's own cap, two threads to start from
        assert thread_budget() == 2
        with limited(1):
            assert thread_budget() == 1
            assert {p["num_threads"] for p in controller().info()} == {1}
        assert thread_budget() == 2
        with one_thread():
            assert {p["num_threads"] for p in controller().info()} == {1}
        assert thread_budget() == 2
