"""The benchmark commands: every metric on a Texas-sized pair (``bench``), the steward's audit at
scale (``bench_audit``), cost against rows (``bench_scale``), the synthesisers (``bench_synthesisers``),
and what the README's commands cost (``budgets``, ``command_costs``)."""
