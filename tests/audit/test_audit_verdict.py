"""The steward's audit (issue 27): verdict first, exit rule, row-level evidence, utility, missing
values end to end, and the holdout as the ALC's control set."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from privmetrics.__main__ import main
from privmetrics.audit import audit
from privmetrics.audit.evidence import copied_rows, row_evidence
from privmetrics.audit.verdict import band_of, decide, fails, parse_threshold
from privmetrics.data.datasets import load_dataset
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import evaluate, get_metric


def verdict_table(positions, lows=None, categories=None):
    n = len(positions)
    return pd.DataFrame(
        {
            "metric": [f"M{i}" for i in range(n)],
            "category": categories or ["tracing"] * n,
            "score": [0.5] * n,
            "position": positions,
            "position low": lows if lows is not None else positions,
        }
    )


def test_the_verdict_levels_by_hand():
    assert decide(verdict_table([0.9, 0.8, 0.1])).level == "high risk"
    # one attack measure alone near Real against Random: some risk, and the advice to use a
    # holdout; against a holdout the same one is enough
    alone = decide(verdict_table([0.9, 0.1]))
    assert alone.level == "some risk" and "audit with a holdout" in alone.headline
    assert decide(verdict_table([0.9, 0.1]), anchor="holdout").level == "high risk"
    some = decide(verdict_table([0.5, 0.1, 0.2]))
    assert some.level == "some risk" and some.flagged == ["M0"]
    assert "1 of 3 informative attack measures" in some.headline
    low = decide(verdict_table([0.1, -0.2]))
    assert low.level == "low risk" and "not safe" in low.headline  # Random as the lower end
    assert "not safe" not in decide(verdict_table([0.1]), anchor="holdout").headline
    assert decide(verdict_table([np.nan, np.nan])).level == "cannot tell"
    assert decide(verdict_table([0.9]).drop(columns="position")).level == "cannot tell"
    # a position many spans below the lower end reads as "below", not as -1024%
    assert "M0 (below -100%)" in decide(verdict_table([-10.24])).headline


def test_against_a_holdout_positions_read_in_a_stewards_words():
    """Issue 43, item 4: "as close as a copy", "no closer than unseen people", "further than
    unseen people", with the number after; a position of -0.3% reads 0%, never -0%."""
    from privmetrics.audit.positions import relative_reading

    said = {where: relative_reading(where, 0.0, 1.0, anchor="holdout")
            for where in (-0.5, -0.003, 0.5, 0.9)}  # fmt: skip
    assert said[-0.5].startswith("further than unseen people (-50% of the way from holdout")
    assert said[-0.003].startswith("no closer than unseen people (0% of the way")
    assert said[0.5].startswith("closer than unseen people (50%")
    assert said[0.9].startswith("as close as a copy (90%")
    assert relative_reading(0.9, 0.0, 1.0).startswith("near Real (90% of the way from Random")
    high = decide(verdict_table([0.9, 0.1]), anchor="holdout")
    assert "place the release as close to its members as a copy" in high.headline
    low = decide(verdict_table([0.1, -0.2]), anchor="holdout")
    assert "no closer to its members than to unseen people (the holdout)" in low.headline
    assert "(no closer than unseen people)" in low.categories[0]


def test_against_random_a_high_risk_also_needs_copies_beyond_the_twins():
    """Against Random, new people of the same population place distance measures near Real too:
    without a holdout two measures near Real make a high risk only with COPY_EXCESS of the real
    rows copied beyond the twins' baseline; a holdout decides on its own."""
    from privmetrics.audit.evidence import excess_copies, twin_share
    from privmetrics.audit.verdict import COPY_EXCESS

    table = verdict_table([0.9, 0.8, 0.1])
    assert decide(table).level == "high risk"  # copies not measured: the positions alone
    fresh = decide(table, copies=0.0)
    assert fresh.level == "some risk" and "no more exact copies" in fresh.headline
    assert "audit with a holdout" in fresh.headline and fresh.flagged == ["M0", "M1"]
    assert decide(table, copies=COPY_EXCESS).level == "high risk"  # the boundary, with tolerance
    assert decide(table, anchor="holdout", copies=0.0).level == "high risk"
    # the baseline by hand: rows a, a, b, c (two of four have a twin); a release holding a and d
    real = pd.DataFrame({"x": ["a", "a", "b", "c"], "n": [1, 1, 2, 3]})
    release = pd.DataFrame({"x": ["a", "d"], "n": [1, 4]})
    assert twin_share(real) == 0.5 and excess_copies(real, release) == 0.0
    assert excess_copies(real, real.iloc[[2, 3]]) == 0.0 and excess_copies(real, real) == 0.5


def test_on_a_table_the_project_never_used_the_verdicts_hold():
    """Issue 43's done-when on scikit-learn's diabetes table (442 rows, numbers and a binary sex),
    split at random in halves: with the holdout a copy and a 5%-perturbed copy read high risk, a
    column-shuffled and a GaussianCopula release low risk; without it neither new people of the
    same population (the other half) nor the shuffled release reads high risk (both did, on MDCR
    and MemInf near Real against Random), and the copy still does."""
    from sklearn.datasets import load_diabetes

    from privmetrics.compendium.book.examples import (
        gaussian_copula_release,
        leaky_release,
        shuffled_release,
    )

    frame = load_diabetes(as_frame=True).frame
    frame["sex"] = np.where(frame["sex"] > 0, "F", "M")
    frame = frame.sample(frac=1, random_state=0).reset_index(drop=True)
    real, holdout = frame.iloc[:221].reset_index(drop=True), frame.iloc[221:].reset_index(drop=True)
    level = lambda release, **kw: quiet(audit, real, release, report=True, **kw).verdict.level  # noqa: E731
    assert level(real.copy(), holdout=holdout) == "high risk"
    assert level(leaky_release(real, 0.05), holdout=holdout) == "high risk"
    assert level(shuffled_release(real), holdout=holdout) == "low risk"
    assert level(gaussian_copula_release(real, len(real)), holdout=holdout) == "low risk"
    assert level(holdout) != "high risk" and level(shuffled_release(real)) != "high risk"
    assert level(real.copy()) == "high risk"


def test_a_measure_of_resemblance_alone_is_a_fidelity_remark_never_a_risk():
    """Issue 43: DetectionMLP near Real on a shuffled release read "High risk" on one metric."""
    table = verdict_table([1.0, 0.95, 0.1, 0.05])
    table["metric"] = ["DetectionMLP", "KSTest", "DCR", "MDCR"]
    verdict = decide(table, anchor="holdout")
    assert verdict.level == "low risk" and "DCR" in verdict.flagged
    assert "DetectionMLP, KSTest place(s) the release near Real" in verdict.headline
    assert "fidelity reading, not an exposure" in verdict.headline
    assert fails(table, "near-real", "holdout") == [] and fails(table, "0.5", "holdout") == []
    only = table.iloc[:2]
    assert decide(only, anchor="holdout").level == "cannot tell"


def test_the_three_criteria_enter_the_verdict_as_attack_measures_by_hand():
    """With a holdout a criterion's risk is a position from the holdout (0) to a copy (1): one
    whose whole interval lies in the top third makes a high risk on its own; a weak attack (no
    better than its naive baseline) is uninformative, whatever its risk."""
    from privmetrics.audit.verdict import CRITERIA, criteria_rows

    metrics = verdict_table([0.1, 0.05])
    criteria = pd.DataFrame({"attack": ["linkability", "inference (x)", "singling out (m)"],
                             "value": [0.9, 0.5, 0.95], "low": [0.8, 0.35, 0.9],
                             "high": [1.0, 0.65, 1.0], "weak attack": [False, False, True]})  # fmt: skip
    rows = criteria_rows(criteria)
    assert list(rows.category) == [CRITERIA] * 3 and rows.position.iloc[2] != rows.position.iloc[2]
    verdict = decide(pd.concat([metrics, rows], ignore_index=True), anchor="holdout")
    assert verdict.level == "high risk" and verdict.flagged == ["linkability"]
    assert "1 metric(s) were uninformative" in verdict.headline
    assert any(line.startswith(f"{CRITERIA}: strongest linkability") for line in verdict.categories)
    # the inference alone is between the ends (its interval above the bottom third): some risk
    between = pd.concat([metrics, rows.iloc[1:2]], ignore_index=True)
    assert decide(between, anchor="holdout").level == "some risk"
    assert fails(pd.concat([metrics, rows], ignore_index=True), "near-real", "holdout") == [
        "linkability"
    ]
    assert criteria_rows(pd.DataFrame()).empty


def test_a_band_needs_the_whole_interval_and_the_boundary_has_a_tolerance():
    # position 0.8 whose interval reaches down to 0.5: between, not near Real
    assert band_of(verdict_table([0.8], lows=[0.5]).iloc[0]) == "between"
    # exactly two thirds, as it computes
    assert band_of(verdict_table([1 - 1 / 3]).iloc[0]) == "near Real"
    assert band_of(verdict_table([(2 / 3) * (1 - 1e-12)]).iloc[0]) == "near Real"
    assert band_of(verdict_table([0.3]).iloc[0]) == "near low"
    # an interval from the bottom third into the top one cannot place the release: uninformative
    row = verdict_table([0.46]).iloc[0].copy()
    row["position low"], row["position high"] = 0.0, 0.95
    assert band_of(row) is None
    row["position high"] = 0.6  # into the middle third only: the point decides
    assert band_of(row) == "between"


def test_uninformative_metrics_stay_out_of_the_verdict_and_are_counted():
    table = verdict_table([np.nan, 0.1])
    verdict = decide(table)
    assert verdict.level == "low risk" and "1 metric(s) were uninformative" in verdict.headline
    assert "M0" not in verdict.flagged


def test_category_lines_name_the_strongest_metric():
    table = verdict_table([0.2, 0.9, 0.1], categories=["tracing", "tracing", "reconstruction"])
    lines = decide(table).categories
    assert lines[0].startswith("tracing: strongest M1, 90%") and "(near Real)" in lines[0]
    assert lines[1].startswith("reconstruction: strongest M2")


def test_fail_on_rules():
    table = verdict_table([0.9, 0.5, 0.1])
    # near Real fails as the verdict reads it: one attack measure against Random is not enough
    assert fails(table, "near-real") == [] and fails(table, "near-real", "holdout") == ["M0"]
    assert fails(verdict_table([0.9, 0.8, 0.1]), "near-real") == ["M0", "M1"]
    assert fails(table, "between") == ["M0", "M1"]
    assert fails(table, "0.5") == ["M0", "M1"]  # >= with a tolerance
    assert fails(table, "0.95") == []
    for bad in ("high", "1.5", "-0.1"):
        with pytest.raises(ValueError, match="--fail-on takes"):
            parse_threshold(bad)


def test_the_gate_says_what_it_cannot_decide_without_a_holdout():
    """Issue 62, item 3: without a holdout, a rule met at a level new people reach too exits 3
    and asks for a holdout; met at a high risk (copies proven) or against a holdout it exits 1;
    not met, 0."""
    from privmetrics.audit.verdict import FAILED, UNDECIDED, gate

    near = verdict_table([0.9, 0.8, 0.1])
    assert gate(near, "near-real", "Random", "high risk") == (
        FAILED,
        "--fail-on near-real: met by M0, M1",
    )
    code, said = gate(near, "near-real", "Random", "some risk")
    assert code == UNDECIDED == 3 and "cannot decide without a holdout" in said
    assert gate(near, "near-real", "holdout", "high risk")[0] == FAILED
    assert gate(near, "0.85", "holdout", "some risk")[0] == FAILED
    assert gate(verdict_table([0.1, 0.2]), "between", "Random", "low risk") == (0, "")
    # the headline's words for a "some risk" of near-Real measures are the category lines' words
    verdict = decide(near, copies=0.0)
    assert (
        verdict.level == "some risk" and "place the release near Real (a copy)" in verdict.headline
    )
    assert "(near Real)" in verdict.categories[0]


@pytest.fixture(scope="module")
def texas():
    frame, schema = load_dataset("texas", n=600, seed=0)
    frame = frame.sample(frac=1, random_state=0).reset_index(drop=True)  # a random split
    real, holdout = frame.iloc[:300].reset_index(drop=True), frame.iloc[300:].reset_index(drop=True)
    rng = np.random.default_rng(0)
    shuffled = real.apply(lambda column: column.to_numpy()[rng.permutation(len(column))])
    perturbed = real.copy()
    for j, col in enumerate(real.columns):  # 5% of the cells take another row's value
        rows = np.flatnonzero(rng.random(len(real)) < 0.05)
        perturbed.loc[rows, col] = real[col].sample(len(rows), random_state=j).to_numpy()
    return real, holdout, shuffled, perturbed, schema


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_the_alc_with_a_holdout_control_set_flags_a_perturbed_copy_and_not_a_shuffle(texas):
    """The ALC paper's control set: a 5%-perturbed copy leaks (above 0.5); a shuffled release,
    which carries no row of anyone, does not."""
    real, holdout, shuffled, perturbed, schema = texas
    alc = get_metric("ALC")
    leaky = quiet(alc, Pair(real, perturbed, schema, control=holdout))
    safe = quiet(alc, Pair(real, shuffled, schema, control=holdout))
    assert leaky > 0.5 and safe < 0.3, (leaky, safe)


def test_evidence_finds_the_copied_rows_first(texas):
    real, holdout, shuffled, _, schema = texas
    release = pd.concat([real.iloc[:10], shuffled.iloc[10:]], ignore_index=True)
    assert copied_rows(real, release)[:10].all() and copied_rows(real, shuffled).sum() == 0
    evidence, lines = quiet(row_evidence, Pair(real, release, schema), holdout)
    top = evidence.head(10)
    assert set(top["real row"]) == set(range(10)) and top.copied.all()
    assert (top["distance to release"] == 0).all()
    # the CSV carries the row's values and the release row nearest to it
    first = top.iloc[0]
    assert all(first[f"real: {c}"] == first[f"release: {c}"] for c in real.columns)
    assert lines[0].startswith("copied: 10 of 300 real rows (3.3%); holdout rows")


def test_a_release_of_new_people_names_no_more_rows_than_chance(texas):
    """Issue 43: a shuffled release listed 3,461 people "closer than a neighbour". Against a
    holdout, a release of fresh rows of the same population (another half of the data) and the
    shuffled one name about the 5% chance gives, and a copy names nearly every row."""
    real, holdout, shuffled, _, schema = texas
    population = load_dataset("texas", n=1500, seed=1)[0].iloc[600:900].reset_index(drop=True)
    for release in (population, shuffled):
        evidence, lines = quiet(row_evidence, Pair(real, release, schema), holdout)
        closer = int(evidence["closer than a non-member"].sum())
        assert closer <= 0.05 * len(real) * 2, (closer, lines[1])  # within twice the chance rate
        assert "by chance, as a release of new people would: 5%" in lines[1]
    copy, _ = quiet(row_evidence, Pair(real, real.copy(), schema), holdout)
    assert copy["closer than a non-member"].sum() >= 0.9 * len(real)


def test_a_missing_secret_is_not_recovered_and_the_population_baseline_subtracts(texas):
    real, holdout, _, _, schema = texas
    secret = schema.sensitive[0]
    gappy = real.assign(**{secret: ["(missing)"] * 30 + list(real[secret].iloc[30:])})
    evidence, lines = quiet(row_evidence, Pair(gappy, gappy.copy(), schema), holdout)
    assert "30 rows have no secret to recover (a missing value), left out" in lines[2]
    recovered_rows = set(evidence.loc[evidence["sensitive recovered"], "real row"])
    assert not recovered_rows & set(range(30))
    # without a holdout: a count beside its expectation, and no row named for closeness
    evidence, lines = quiet(row_evidence, Pair(real, real.copy(), schema))
    assert not evidence["closer than a non-member"].any() and "would put about 50%" in lines[1]


def test_evidence_reuses_the_holdout_pairs_searches_and_follows_sampled_targets(texas):
    """The audit hands the evidence its scored (real, holdout) pair: the result is the one the
    evidence finds by its own searches. With sampled target rows (``--targets``) only those rows
    are checked, the holdout's baseline included (this used to fail on a sensitive attribute)."""
    from privmetrics.metrics.sampled import SampledPair

    real, holdout, shuffled, _, schema = texas
    release = pd.concat([real.iloc[:10], shuffled.iloc[10:]], ignore_index=True)
    alone, lines = quiet(row_evidence, Pair(real, release, schema), holdout)
    held = Pair(real, holdout, schema, name="holdout")
    held.neighbours("real", "synthetic")  # as the metrics leave it
    reused, reused_lines = quiet(row_evidence, Pair(real, release, schema), holdout, None, held)
    pd.testing.assert_frame_equal(alone, reused)
    assert lines == reused_lines
    sampled = SampledPair(real, release, schema, targets=100)
    evidence, lines = quiet(row_evidence, sampled, holdout, None,
                            SampledPair(real, holdout, schema, targets=100, name="holdout"))  # fmt: skip
    assert set(evidence["real row"]) <= set(sampled.target_positions("real"))
    assert "of 100 real rows" in lines[0] and "of 100 real rows" in lines[2]


def test_the_report_puts_the_verdict_first_and_flags_a_useless_release(texas):
    real, holdout, _, _, schema = texas
    noise = quiet(audit, real, real.copy(), schema=schema, random_runs=2, report=True,
                  metrics=["DCR", "MemInf"])  # fmt: skip
    assert noise.verdict.level == "high risk"
    assert noise.utility.loc["detection AUC", "release"] < 0.6
    from privmetrics.synthesisers import make_synthesiser

    random_release = make_synthesiser("random", seed=99).fit_sample(real, schema)
    useless = quiet(audit, real, random_release, schema=schema, random_runs=2, report=True,
                    metrics=["DCR", "MemInf"], holdout=holdout)  # fmt: skip
    assert useless.utility.loc["detection AUC", "release"] >= 0.9
    assert "easy to tell from the real data" in useless.verdict.headline
    page = useless.to_html({"real": "r.csv"})
    assert page.index(useless.verdict.headline[:40]) < page.index("<h2>Scores</h2>")
    assert "<summary>formula</summary>" in page
    data = json.loads(useless.to_json())
    assert data["verdict"]["level"] == useless.verdict.level and data["lower end"] == "holdout"


def test_the_report_reads_plainly(texas, capsys):
    """Issue 43: a green box for a low risk, "uninformative" rather than "not run", formulas
    without the code's notes, the columns of the user's files, and nothing printed by the API."""
    from privmetrics.audit.report import LEVEL_COLOURS, plain_formula

    real, holdout, shuffled, _, schema = texas
    gappy = real.assign(LENGTH_OF_STAY=real.LENGTH_OF_STAY.where(real.index % 7 > 0))
    report = quiet(audit, gappy, shuffled, random_runs=2, report=True, holdout=holdout,
                   metrics=["DCR", "CGeneralizedCAP", "PPrivacy"])  # fmt: skip
    assert capsys.readouterr().out == ""  # the inferred schema is the command's to print
    page = report.to_html()
    assert f"solid {LEVEL_COLOURS[report.verdict.level]}" in page
    assert (
        report.verdict.level == "low risk"
        and LEVEL_COLOURS["low risk"] != LEVEL_COLOURS["high risk"]
    )
    assert (
        f"real rows x columns</th><td>{len(real)} x {real.shape[1]}</td>" in page
    )  # no flag columns
    cap = plain_formula(get_metric("CGeneralizedCAP").doc)
    assert "erratum" not in cap and "`" not in cap and "TILE" not in cap and "Algorithm 3" in cap
    uninformative = report.table[report.table.position.isna() & report.table.score.notna()]
    assert uninformative.empty or "<td>uninformative</td>" in page


def test_sharing_the_real_side_changes_no_score(texas):
    real, holdout, shuffled, _, schema = texas
    first = quiet(Pair, real, holdout, schema)
    quiet(evaluate, first, metrics="all")
    shared = quiet(Pair, first.side, shuffled)
    fresh = quiet(Pair, real, shuffled, schema)
    assert shared.side is first.side and fresh.side is not first.side
    before = {name: model for name, (model, _) in first.side.fitted.items()}
    a = quiet(evaluate, shared, metrics="all").score.to_numpy()
    b = quiet(evaluate, fresh, metrics="all").score.to_numpy()
    np.testing.assert_array_equal(a, b)
    # nothing refitted, and the real rows' own searches taken, not made again
    assert {name: model for name, (model, _) in shared.side.fitted.items()} == before
    own = [key for key in shared._knn if key[0] == key[1] == "real"]
    assert own and all(shared._knn[key] is first._knn[key] for key in own)
    # a shared coordinate array is read-only: a metric that wrote into it would change the
    # scores of every other pair of the real table
    with pytest.raises(ValueError, match="read-only"):
        shared.space("mixed")[0][0, 0] = 1.0


def test_one_audit_checks_and_encodes_its_real_table_once(texas, monkeypatch):
    """Issue 60, item 1: the release, the holdout, Random's draws and Real are scored on one
    real side; the real table is checked once for scoring and once more as Random's training
    input (a fit checks its input; Random is fitted once for its draws), and every encoding is
    fitted on it once. A second audit of another release of the same real table does neither."""
    from privmetrics.audit.references import KEPT
    from privmetrics.data import validation
    from privmetrics.geometry.encoding import MixedEncoder
    from privmetrics.geometry.projection import FAMD
    from privmetrics.synthesisers.base import Synthesiser

    real, holdout, shuffled, _, schema = texas
    checked, fitted, fitting = [], [], []
    check, fit_mixed, fit_famd, fit_synth = (validation.validate_frame, MixedEncoder.fit,
                                             FAMD.fit, Synthesiser.fit)  # fmt: skip

    def is_real(frame):  # the real table, not another of its size (the holdout, a draw)
        same = len(frame) == len(real) and set(frame.columns) <= set(real.columns)
        return same and (frame.reset_index(drop=True).astype(object)
                         == real[frame.columns].astype(object)).all(axis=None)  # fmt: skip

    def counted_check(frame, schema, name="data"):
        if name == "real data" and is_real(frame):  # not Real's copy, checked as a release
            checked.append("synthesiser" if fitting else "audit")
        return check(frame, schema, name)

    def counted(fit, label):
        def wrapper(self, frame):
            if is_real(frame):
                fitted.append((label, self.weights is not None if label == "mixed" else None,
                               tuple(frame.columns)))  # fmt: skip
            return fit(self, frame)

        return wrapper

    def synthesiser_fit(self, frame, schema):
        fitting.append(True)
        try:
            return fit_synth(self, frame, schema)
        finally:
            fitting.pop()

    monkeypatch.setattr(validation, "validate_frame", counted_check)
    monkeypatch.setattr(MixedEncoder, "fit", counted(fit_mixed, "mixed"))
    monkeypatch.setattr(FAMD, "fit", counted(fit_famd, "famd"))
    monkeypatch.setattr(Synthesiser, "fit", synthesiser_fit)
    KEPT.clear()
    quiet(audit, real, shuffled, schema, metrics="all", random_runs=3, holdout=holdout,
          report=True)  # fmt: skip
    assert checked == ["audit", "synthesiser"], checked
    assert fitted and len(fitted) == len(set(fitted)), fitted  # each encoding once
    assert {label for label, *_ in fitted} == {"mixed", "famd"}
    checked.clear(), fitted.clear()
    quiet(audit, real, shuffled.sample(frac=1, random_state=1), schema, metrics="all",
          random_runs=3, holdout=holdout)  # fmt: skip
    assert checked == [] and fitted == []
    KEPT.clear()


def test_cli_audits_a_table_with_missing_values_end_to_end(texas, tmp_path, capsys):
    """Gaps in a numerical and a categorical column of every file: audited, reported, JSON and
    evidence written, --fail-on sets the exit code."""
    real, holdout, shuffled, _, schema = texas
    rng = np.random.default_rng(1)

    def gappy(frame):
        frame = frame.copy()
        frame.loc[rng.random(len(frame)) < 0.1, "TOTAL_CHARGES"] = np.nan
        frame.loc[rng.random(len(frame)) < 0.1, "RACE"] = np.nan
        return frame

    for name, frame in (("real", gappy(real)), ("holdout", gappy(holdout)),
                        ("shuffled", gappy(shuffled))):  # fmt: skip
        frame.to_csv(tmp_path / f"{name}.csv.gz", index=False)
    (tmp_path / "schema.yml").write_text(schema.to_yaml())
    base = [tmp_path / "real.csv.gz", tmp_path / "shuffled.csv.gz", "--schema",
            tmp_path / "schema.yml", "--holdout", tmp_path / "holdout.csv.gz", "--random-runs",
            "2"]  # fmt: skip
    code = main(["audit", *map(str, base), "--out", str(tmp_path / "r.html"), "--json",
                 str(tmp_path / "r.json"), "--evidence", str(tmp_path / "e.csv"),
                 "--fail-on", "near-real"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "TOTAL_CHARGES (missing)" in out and "(missing='indicator')" in out
    # the cost, said before the scoring starts
    assert "scoring 7 metrics on 5 tables (release, Holdout, Random 1, Random 2, Real)" in out
    verdict = out.split("\n\n")[1]  # the verdict comes right after the warnings
    assert verdict.startswith(("Low risk", "Some risk")), out
    data = json.loads((tmp_path / "r.json").read_text())
    assert len(data["scores"]) == 7 and any("missing values" in r for r in data["remarks"])
    assert pd.read_csv(tmp_path / "e.csv").columns[0] == "real row"
    # the real table audited against itself meets --fail-on near-real: exit 1
    code = main(["audit", str(tmp_path / "real.csv.gz"), str(tmp_path / "real.csv.gz"),
                 "--schema", str(tmp_path / "schema.yml"), "--metrics", "DCR,MemInf",
                 "--random-runs", "2", "--fail-on", "near-real"])  # fmt: skip
    assert code == 1 and "--fail-on near-real: met by DCR, MemInf" in capsys.readouterr().out
    assert main(["audit", *map(str, base), "--fail-on", "often"]) == 2
    assert "--fail-on takes" in capsys.readouterr().err


def test_large_tables_score_random_from_sampled_targets_and_the_rest_exactly(texas, monkeypatch):
    """From SAMPLED_RANDOM_ROWS rows on, each Random draw is scored from target rows of its own
    for the metrics that are averages over rows; the release and Real stay exact, and a metric
    that is not an average (NNDR) still runs on every row of the draw."""
    from privmetrics.audit import run

    real, holdout, shuffled, _, schema = texas
    metrics = ["DCR", "MemInf", "NNDR"]
    exact = quiet(audit, real, shuffled, schema=schema, metrics=metrics, random_runs=2)
    from privmetrics.audit import references

    monkeypatch.setattr(references, "SAMPLED_RANDOM_ROWS", 100)
    monkeypatch.setattr(references, "RANDOM_TARGETS", 150)
    sampled = quiet(audit, real, shuffled, schema=schema, metrics=metrics, random_runs=2)
    run.KEPT.clear()  # a fresh draw, not the references kept from the audit above
    again = quiet(audit, real, shuffled, schema=schema, metrics=metrics, random_runs=2)
    pd.testing.assert_frame_equal(sampled, again)  # seeded
    exact, sampled = exact.set_index("metric"), sampled.set_index("metric")
    pd.testing.assert_series_equal(exact.score, sampled.score)  # the release is exact
    pd.testing.assert_series_equal(exact.Real, sampled.Real)
    assert sampled.loc["NNDR", "Random"] == exact.loc["NNDR", "Random"]  # not an average: exact
    assert sampled.loc["DCR", "Random"] != exact.loc["DCR", "Random"]  # from 150 of 300 rows
    assert abs(sampled.loc["DCR", "Random"] - exact.loc["DCR", "Random"]) < 0.05


def test_list_counts_what_metrics_all_runs(capsys):
    from privmetrics.metrics import REGISTRY, select

    assert main(["list"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(
        f"{len(select('all'))} measures: the paper's 21 and {len(REGISTRY) - 21} added"
    )


def test_the_cost_estimate_is_said_as_a_range_and_adds_up_over_tables(texas):
    from privmetrics.audit.cost import Table, estimate, probe, say
    from privmetrics.geometry.real_side import RealSide
    from privmetrics.metrics import select

    assert say(30) == "about 30 s (15 s to 60 s)"
    assert say(600) == "about 10 min (5 min to 20 min)"
    real, _, shuffled, _, schema = texas
    # per-row metrics, one searching among real rows alone (Authenticity), and one that is not
    specs = select(["DCR", "Authenticity", "NNDR"])
    side = quiet(RealSide, real, schema)
    costs = quiet(probe, side, shuffled, specs, 0)
    assert costs.own > 0 and costs.cross > 0 and costs.sample[1] > 0
    assert costs.directions == 1  # DCR and Authenticity search from the real rows only
    assert quiet(probe, side, shuffled, select(["DCR"]), 0).own == 0
    one = costs.seconds([Table(300, 300)])
    bigger = costs.seconds([Table(300, 300), Table(30_000, 30_000)])
    assert 0 < one < bigger
    n = costs.rows[0]
    # a table that takes the real side's searches from an earlier one costs less, by just them
    # (a full table's pass over the real rows visits each pair once)
    shared = costs.seconds([Table(300, 300), Table(30_000, 30_000, own_search=False)])
    assert bigger - shared == pytest.approx(costs.own * 30_000 * n / 2)
    # a copy needs no search between the tables; a sampled pair searches each direction apart
    copy = costs.seconds([Table(30_000, 30_000, own_search=False, copy=True)])
    assert costs.seconds([Table(30_000, 30_000, own_search=False)]) - copy == pytest.approx(
        costs.cross * 30_000**2
    )
    sampled = costs.seconds([Table(1_000, 30_000, sampled=True)])
    assert sampled == pytest.approx(
        costs.seconds([Table(1_000, 30_000, own_search=False)])
        + costs.own * 1_000 * n
        + costs.cross * 1_000 * 30_000 * (costs.directions - 1)
    )
    assert 0 < quiet(estimate, side, shuffled, specs, 0, [Table(300, 300)])


def test_recovery_searched_for_some_rows_equals_the_full_search_there(texas):
    """The evidence searches the holdout only for the rows recovered from the release: the same
    answers as the full search on those rows, False elsewhere."""
    from privmetrics.audit.evidence import recovered
    from privmetrics.geometry.pair import Pair

    real, holdout, _, perturbed, schema = texas
    held = quiet(Pair, real, holdout, schema)
    positions = np.arange(len(real))
    among = quiet(recovered, quiet(Pair, real, perturbed, schema), positions)
    assert 0 < among.sum() < len(real)
    full = recovered(held, positions)
    assert (full & among).any() and (full & ~among).any()  # else the comparison could not fail
    np.testing.assert_array_equal(recovered(held, positions, among=among), full & among)


def test_the_estimate_reads_how_each_reference_searches(texas):
    """Real is a copy (no search between the tables), only the first table pays the real rows'
    own search, and with target rows every pair is sampled."""
    from privmetrics.audit.references import reference_pairs, table_size
    from privmetrics.geometry.real_side import RealSide

    real, _, _, _, schema = texas
    side = quiet(RealSide, real, schema)
    pairs = quiet(reference_pairs, side, None, 0, None, 1, True)
    first, copy = table_size(pairs["Random 1"], True), table_size(pairs["Real"], False)
    assert (first.own_search, first.copy, first.sampled) == (True, False, False)
    assert (copy.own_search, copy.copy, copy.scored) == (False, True, len(real))
    sampled = quiet(reference_pairs, side, None, 0, 50, 1, True)
    assert table_size(sampled["Real"], False)[:3] == (50, len(real), True)
    assert not table_size(sampled["Real"], False).copy  # a sampled pair searches even a copy


def test_a_large_audit_says_its_cost_before_it_starts(texas, monkeypatch, capsys):
    """The audit's lines go to the ``progress`` callable (the command prints them); with
    ``progress=True`` to stderr beside the bar, never to stdout: the library does not print."""
    from privmetrics.audit import run

    real, _, shuffled, _, schema = texas
    said = []
    quiet(audit, real, shuffled, schema=schema, metrics=["DCR"], random_runs=2,
          progress=said.append)  # fmt: skip
    assert said[0].startswith("scoring 1 metrics on 4 tables") and "about" not in said[0]
    monkeypatch.setattr(run, "ESTIMATE_ROWS", 100)  # as if 300 rows were many
    quiet(audit, real, shuffled, schema=schema, metrics=["DCR"], random_runs=2, progress=True)
    out, err = capsys.readouterr()
    line = next(x for x in err.splitlines() if x.startswith("scoring 1 metrics"))
    assert ": about " in line and " to " in line and "scoring" not in out


def test_a_holdout_that_is_not_a_random_split_is_called_out(texas):
    """A holdout of other people (here: the older half) is told apart from the real table, so
    positions measured from it mislead: the headline says so; a random split says nothing."""
    real, holdout, shuffled, _, schema = texas
    both = pd.concat([real, holdout], ignore_index=True)
    order = both.sort_values("TOTAL_CHARGES").reset_index(drop=True)
    low, high = order.iloc[:300], order.iloc[300:].reset_index(drop=True)
    biased = quiet(audit, low, shuffled_release_of(low), schema=schema, holdout=high,
                   metrics=["DCR"], random_runs=2, report=True)  # fmt: skip
    assert "Caution: the holdout is easy to tell from the real table" in biased.verdict.headline
    assert any("random split" in r for r in biased.remarks)
    fair = quiet(audit, real, shuffled, schema=schema, holdout=holdout, metrics=["DCR"],
                 random_runs=2, report=True)  # fmt: skip
    assert "Caution" not in fair.verdict.headline


def shuffled_release_of(frame):
    from privmetrics.compendium.book.examples import shuffled_release

    return shuffled_release(frame, seed=0)


def test_the_three_criteria_with_the_holdout_flag_a_copy_and_not_a_shuffle(texas):
    """Issue 43, item 3: with a holdout the report measures singling out, linkability (the key
    attributes in two halves) and inference (each sensitive attribute from the key attributes), each beside the same
    attack on the holdout; a copy is linked and inferred, a shuffled release is not. Without a
    holdout they are not run, and the report says why."""
    from privmetrics.audit.criteria import NOT_RUN, criteria_panel

    real, holdout, shuffled, _, schema = texas
    copy, lines = criteria_panel(real, real.copy(), holdout, schema)
    assert list(copy.attack) == ["singling out (multivariate)", "linkability"] + [
        f"inference ({s})" for s in schema.sensitive
    ]
    assert (copy.low > 0.5).all() and copy["beyond baseline"].all(), copy
    assert lines[0].startswith("Predicates written from the release (three columns each)")
    assert lines[1].startswith(f"Holding {', '.join(schema.key[:4])} and 4 more in one table")
    assert "of unseen people" in lines[2] and ": risk " in lines[2]
    # a shuffle links no one; its inference rates on members and on the holdout differ by chance
    # only (on twelve shuffles of these 300 rows, by up to 0.09 either way), so the risk stays
    # low though a 95% interval of one attack may miss 0
    safe, _ = criteria_panel(real, shuffled, holdout, schema)
    assert safe.value.iloc[1] == 0 and (safe.value < 0.2).all(), safe
    assert (safe["main rate"] - safe["control rate"]).abs().max() < 0.1, safe
    panel, lines = criteria_panel(real, shuffled, None, schema)
    assert panel.empty and lines == [NOT_RUN]
    # a holdout far smaller than the real table: singling out is not measured, and says why
    small, lines = criteria_panel(real, shuffled, holdout.iloc[:100], schema)
    assert "singling out (multivariate)" not in set(small.attack) and "linkability" in set(
        small.attack
    )
    assert lines[0].startswith(
        "singling out was not measured: it compares counts in the real table"
    )
    report = quiet(audit, real, shuffled, schema, holdout=holdout, report=True)
    assert report.criteria_lines and "Singling out, linkability and inference" in report.to_html()
    # they are attack measures of the verdict, and the shuffle stays low
    assert len(report.judged) == len(report.table) + len(report.criteria)
    # with a holdout the position runs from it: one Random draw by default, three without
    assert [k for k in report.costs if k.startswith("Random")] == ["Random 1"]
    alone = quiet(audit, real, shuffled, schema, metrics=["DCR"], report=True)
    assert [k for k in alone.costs if k.startswith("Random")] == [f"Random {k}" for k in (1, 2, 3)]
    assert report.verdict.level == "low risk"
    assert any(line.startswith("singling out, linkability and inference: strongest")
               for line in report.verdict.categories)  # fmt: skip
    found = json.loads(report.to_json())["singling out, linkability and inference"]
    assert found["summary"] == report.criteria_lines


def twin_population(n: int, share: float, seed: int = 0) -> pd.DataFrame:
    """Texas rows of which about ``share`` are exact twins of another row, in random order."""
    rows, _ = load_dataset("texas", n=n, seed=seed)
    rng = np.random.default_rng(seed)
    pairs = int(share * n / 2)
    twins = rows.iloc[: n - pairs].copy()
    doubled = pd.concat([twins, twins.iloc[:pairs]], ignore_index=True)
    return doubled.iloc[rng.permutation(len(doubled))].reset_index(drop=True)


def test_twins_a_copy_reads_copied_and_closer_and_fresh_rows_read_chance():
    """Issue 62, item 2: with 17% twins the cut-off became 0 (0 / 0 scored 0), so an exact copy
    read "closer than a non-member: 0 of 3,654". A tie at zero is "as close as": the copy reads
    closer for nearly all of its rows, fresh rows of the same population at chance."""
    population = twin_population(1800, 0.3)
    _, schema = load_dataset("texas", n=10)
    real, holdout, fresh = (population.iloc[k * 600:(k + 1) * 600].reset_index(drop=True)
                            for k in range(3))  # fmt: skip
    from privmetrics.audit.evidence import twin_share

    assert twin_share(population) >= 0.25 and twin_share(real) > 0.05
    copy, lines = quiet(row_evidence, Pair(real, real.copy(), schema), holdout)
    assert copy.copied.sum() == len(real) and "real rows with a twin in the real table" in lines[0]
    # rows whose twin is in the holdout are as close to it as to the release: not counted
    assert copy["closer than a non-member"].sum() >= 0.75 * len(real), lines[1]
    evidence, lines = quiet(row_evidence, Pair(real, fresh, schema), holdout)
    assert evidence["closer than a non-member"].sum() <= 0.1 * len(real), lines[1]


def test_twins_against_a_smaller_holdout_a_copy_still_reads_closer():
    """A copy of a table with twins against a holdout half its size: the non-members whose twin
    the copy holds and the searched real rows lack sit at closeness 0, the cut became 0 and
    "less than the cut" flagged no one (statsmodels' fair survey, 14% twins: "closer: 0 of
    2,122"). At a cut of 0 a real row at 0 counts and chance is the non-members' share there:
    the copy reads closer, fresh rows within that chance."""
    population = twin_population(1800, 0.3)
    _, schema = load_dataset("texas", n=10)
    real, fresh = population.iloc[:600].reset_index(drop=True), population.iloc[600:1200]
    holdout = population.iloc[1200:1500].reset_index(drop=True)
    copy, lines = quiet(row_evidence, Pair(real, real.copy(), schema), holdout)
    share = float(re.search(r"new people would: (\d+)%", lines[1])[1]) / 100
    assert share > 0.05, lines[1]  # the cut sat at 0: the strict rule flagged no one here
    assert copy["closer than a non-member"].sum() >= 0.75 * len(real), lines[1]
    evidence, lines = quiet(row_evidence, Pair(real, fresh.reset_index(drop=True), schema), holdout)
    share = float(re.search(r"new people would: (\d+)%", lines[1])[1]) / 100
    rate = evidence["closer than a non-member"].sum() / len(real)
    assert rate <= share + 2.6 * np.sqrt(share * (1 - share) / len(real)), lines[1]


@pytest.mark.parametrize("size", [0.2, 0.5, 1.0, 2.0])
def test_closer_stays_at_chance_for_a_holdout_of_any_size(size):
    """Issue 62, item 1: a holdout a fifth of the real table's size put 8.3% of the real rows
    "closer than a non-member" for a release that holds none of them. Searched at equal sizes, a
    release of fresh rows reads within the binomial chance interval of 5% at every size, and a
    copy still reads nearly every row."""
    rows, schema = load_dataset("texas", n=3000, seed=3)
    real, fresh = rows.iloc[:600].reset_index(drop=True), rows.iloc[600:1200]
    holdout = rows.iloc[1200 : 1200 + int(size * 600)].reset_index(drop=True)
    evidence, lines = quiet(row_evidence, Pair(real, fresh.reset_index(drop=True), schema), holdout)
    rate = evidence["closer than a non-member"].sum() / len(real)
    assert rate <= 0.05 + 2.6 * np.sqrt(0.05 * 0.95 / len(real)), lines[1]  # 99% upper end
    assert ("equal-size draws" in lines[1]) == (size != 1.0)
    copy, lines = quiet(row_evidence, Pair(real, real.copy(), schema), holdout)
    assert copy["closer than a non-member"].mean() >= 0.9, lines[1]


def test_flag_columns_never_enter_the_attacks_keys(texas, monkeypatch):
    """Issue 62, item 7: a key column's missing-value flag takes the key role in the schema, but
    linkability and inference keep to the attributes the user named."""
    from privmetrics.audit import criteria
    from privmetrics.data.missing import flag_columns, treat_missing

    real, holdout, shuffled, _, schema = texas
    column = next(c for c in schema.key if c in schema.numerical)
    gappy = {name: frame.assign(**{column: frame[column].where(np.arange(len(frame)) % 7 > 0)})
             for name, frame in (("real data", real), ("synthetic data", shuffled),
                                 ("holdout data", holdout))}  # fmt: skip
    tables, treated, _ = quiet(treat_missing, gappy, schema, "indicator")
    assert flag_columns(treated) == {f"{column} (missing)"} <= set(treated.key)
    seen = {}

    class Spy(criteria.Linkability):
        def evaluate(self, seed: int = 0):
            seen["halves"] = self.known
            return super().evaluate(seed)

    monkeypatch.setattr(criteria, "Linkability", Spy)
    quiet(criteria.criteria_panel, tables["real data"], tables["synthetic data"],
          tables["holdout data"], treated)  # fmt: skip
    used = [c for half in seen["halves"] for c in half]
    assert sorted(used) == sorted(schema.key) and f"{column} (missing)" not in used


def test_evidence_lists_rows_only_beyond_their_baseline():
    """Issue 62, item 4: a release of new people named 3,572 people. Each count now carries its
    excess with an interval, and a signal lists rows only where the excess is above zero: fresh
    rows list no one and say so; a copy lists its rows with an excess far above zero."""
    rows, schema = load_dataset("texas", n=3000, seed=4)
    real, fresh, holdout = (rows.iloc[k * 600:(k + 1) * 600].reset_index(drop=True)
                            for k in range(3))  # fmt: skip
    evidence, lines = quiet(row_evidence, Pair(real, fresh, schema), holdout)
    assert evidence.empty, lines
    assert all("excess" in line for line in lines), lines
    assert sum("within chance: no row listed" in line for line in lines) == 3, lines
    copy, lines = quiet(row_evidence, Pair(real, real.copy(), schema), holdout)
    assert copy.copied.all() and len(copy) == len(real)
    assert "within chance" not in lines[0] and "excess +" in lines[0]
    # without a holdout the recovered secrets have no baseline: no row listed for them
    alone, lines = quiet(row_evidence, Pair(real, fresh, schema))
    assert not alone["sensitive recovered"].any() and "no row is listed for it" in lines[2]


def test_a_second_release_of_one_real_table_reuses_the_references_and_reads_as_if_fresh(
    texas, monkeypatch
):
    """The references are kept by content (privmetrics.audit.references): a second release of
    the same real table and holdout scores only the release, and its report equals one made
    without anything kept; another holdout or seed builds references of its own."""
    from privmetrics.audit import run

    real, holdout, shuffled, perturbed, schema = texas
    metrics = ["DCR", "MemInf", "Authenticity"]
    built = []
    original = run.reference_pairs
    monkeypatch.setattr(
        run, "reference_pairs", lambda *a, **k: built.append(1) or original(*a, **k)
    )
    first = quiet(
        audit, real, shuffled, schema=schema, metrics=metrics, holdout=holdout, report=True
    )
    second = quiet(
        audit, real, perturbed, schema=schema, metrics=metrics, holdout=holdout, report=True
    )
    assert len(built) == 1  # the references of the first audit served the second
    assert list(second.costs) == ["release", "Holdout", "Random 1", "Real"]
    assert second.costs["Holdout"] == first.costs["Holdout"]  # not scored again
    run.KEPT.clear()
    fresh = quiet(
        audit, real, perturbed, schema=schema, metrics=metrics, holdout=holdout, report=True
    )
    assert len(built) == 2
    pd.testing.assert_frame_equal(second.table, fresh.table)
    pd.testing.assert_frame_equal(second.evidence, fresh.evidence)
    assert second.verdict.lines() == fresh.verdict.lines()
    assert second.criteria_lines == fresh.criteria_lines
    # another holdout, or another seed, is another set of references
    quiet(audit, real, perturbed, schema=schema, metrics=metrics, holdout=holdout.iloc[::-1])
    quiet(audit, real, perturbed, schema=schema, metrics=metrics, holdout=holdout, seed=1)
    assert len(built) == 4
    # a metric not scored on the kept references before is scored on them now
    more = quiet(audit, real, perturbed, schema=schema, metrics=[*metrics, "NNAA"], holdout=holdout,
                 seed=1)  # fmt: skip
    assert len(built) == 4 and more.set_index("metric").loc["NNAA", "Real"] == pytest.approx(
        get_metric("NNAA")(Pair(real, real.copy(), schema, seed=1)), abs=1e-12
    )


def test_each_level_ends_with_the_next_step_with_and_without_a_holdout():
    """Issue 62, item 8: do not publish, publish, or audit with a holdout first."""
    from privmetrics.audit.verdict import LEVELS, NEXT_STEPS

    assert {k[0] for k in NEXT_STEPS} == set(LEVELS) and len(NEXT_STEPS) == 2 * len(LEVELS)
    high = decide(verdict_table([0.9, 0.8, 0.1]))
    assert high.next_step.startswith("Do not publish") and high.lines()[-1].startswith("Next step:")
    low = decide(verdict_table([0.1, 0.05]), anchor="holdout")
    assert low.level == "low risk" and low.next_step.startswith("Publish")
    unguarded = decide(verdict_table([0.1, 0.05]))
    assert unguarded.level == "low risk" and "Audit with a holdout" in unguarded.next_step
    some = decide(verdict_table([0.5, 0.1, 0.2]))
    assert some.level == "some risk" and "holdout first" in some.next_step
    assert "holdout" in decide(verdict_table([0.5]).drop(columns="position")).next_step


def test_the_chart_holds_every_bar_and_whisker_on_its_axis():
    import matplotlib.pyplot as plt

    from privmetrics.audit.report import chart_figure

    table = verdict_table([1.4, -0.3, 0.5], lows=[1.2, -0.5, 0.4]).assign(
        **{"position high": [1.6, -0.1, 0.6]}
    )
    fig = chart_figure(table, "holdout")
    left, right = fig.axes[0].get_xlim()
    plt.close(fig)
    assert left <= -0.5 and right >= 1.6 + 0.15  # the whiskers and the label beside the longest
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert not [t for t in labels if "off the axis" in t]
    assert min(t.get_fontsize() for t in fig.axes[0].get_yticklabels()) >= 10


def test_the_report_fits_a_1280_px_window_and_says_what_to_do(texas, tmp_path):
    from privmetrics.compendium.book.bookcheck import find_browser

    real, holdout, _, _, schema = texas
    report = quiet(audit, real, real.copy(), schema=schema, random_runs=2, report=True,
                   metrics=["DCR", "MemInf"], holdout=holdout)  # fmt: skip
    page = report.to_html({"real": "r.csv"})
    assert "<strong>Next step.</strong> Do not publish" in page
    assert json.loads(report.to_json())["verdict"]["next step"] == report.verdict.next_step
    # the exposed rows on the page: what exposes them, not every column of both rows
    assert "real: " not in page.split("<h2>Who is exposed</h2>")[1].split("<h2>")[0]
    browser = find_browser()
    if browser is None:  # make test installs it: a missing browser is a setup fault
        pytest.fail("no browser for the report's layout check")
    from privmetrics.compendium.book.bookcheck import check_page

    path = tmp_path / "report.html"
    path.write_text(page)
    assert check_page(path, browser).layout == []


def test_without_a_holdout_a_jittered_copy_is_nearer_than_real_rows_to_each_other():
    """Issue 62, done-when: a jittered copy holds no exact copy, so copies alone never proved its
    risk without a holdout ("some risk", exit 3). Its rows lie nearer to the real rows than these
    lie to one another, far beyond chance r / (r + n - 1); fresh rows of the same population do
    not, whatever the release's size."""
    from privmetrics.audit.evidence import excess_nearness

    rows, schema = load_dataset("texas", n=2400, seed=5)
    real, fresh = rows.iloc[:600].reset_index(drop=True), rows.iloc[600:].reset_index(drop=True)
    numbers = list(schema.numerical)
    jittered = real.copy()
    rng = np.random.default_rng(0)
    jittered[numbers] = (
        real[numbers] + rng.normal(0, 0.05, (600, len(numbers))) * real[numbers].std().to_numpy()
    )
    assert quiet(excess_nearness, Pair(real, real.copy(), schema)) > 0.3
    assert quiet(excess_nearness, Pair(real, jittered, schema)) > 0.3
    for size in (300, 600, 1800):  # chance moves with the release's size: 1/3, 1/2, 3/4
        assert quiet(excess_nearness, Pair(real, fresh.iloc[:size], schema)) < 0.05, size


def test_a_holdout_of_another_size_is_met_at_equal_sizes():
    from privmetrics.audit.references import equal_rows

    holdout = pd.DataFrame({"a": range(120)})
    assert equal_rows(600, 600, None) is None
    assert equal_rows(600, 600, pd.DataFrame({"a": range(580)})) is None  # within a tenth
    assert equal_rows(600, 600, holdout) == 120
    assert equal_rows(600, 100, holdout) == 100  # the release the smaller
    assert equal_rows(600, 300, pd.DataFrame({"a": range(300)})) == 300  # Real is cut to them
