"""Synthesisers on inputs as users have them: numbers they cannot square (refused), far outliers
(a warning), dates and category dtypes (refused by a bare technique, taken by WithMissing)."""

import warnings

import pandas as pd
import pytest

from privmetrics.data.validation import InvalidInputError, OutlierWarning


@pytest.mark.parametrize("technique", ["random", "uniform", "privbayes", "pategan", "real"])
def test_a_synthesiser_refuses_numbers_it_cannot_square_and_warns_on_far_ones(texas300, technique):
    """Issue 29: with a column times 1e300 Random returned 300 of 300 non-finite values; with one
    1e12 outlier every technique's medians moved by orders of magnitude without a word."""
    from privmetrics.synthesisers import make_synthesiser

    real, _, schema = texas300
    schema = schema.with_roles()  # the roles do not matter to a synthesiser
    fast = {"pategan": {"epsilon": 10.0, "max_iterations": 5, "n_teachers": 2, "domain": "data"},
            "privbayes": {"epsilon": 1.0, "domain": "data"}}.get(technique, {})  # fmt: skip
    huge = real.assign(TOTAL_CHARGES=real.TOTAL_CHARGES * 1e300)
    with pytest.raises(InvalidInputError, match="'TOTAL_CHARGES' holds .* overflow"):
        make_synthesiser(technique, seed=0, **fast).fit(huge, schema)
    far = real.copy()
    far.loc[0, "TOTAL_CHARGES"] = 1e12
    with pytest.warns(OutlierWarning, match="TOTAL_CHARGES"):
        make_synthesiser(technique, seed=0, **fast).fit(far, schema)


@pytest.mark.parametrize("technique", ["random", "privbayes", "ctgan", "tvae"])
def test_a_bare_technique_names_the_wrapper_and_the_wrapper_takes_dates_and_categories(
    technique, make_dated
):
    dated, DATED = make_dated
    """Issue 29: Random failed on a date column with a DTypePromotionError and turned an unused
    category into NaN (89-97% of the values); CTGAN/TVAE raised SDV's "category type"."""
    from privmetrics.synthesisers import make_synthesiser
    from privmetrics.synthesisers.with_missing import WithMissing

    params = {"ctgan": {"epochs": 1}, "tvae": {"epochs": 1},
              "privbayes": {"epsilon": 1.0, "domain": "data"}}.get(technique, {})  # fmt: skip
    table = dated().assign(ward=lambda t: pd.Categorical(t.ward, categories=list("abcdz")))
    with pytest.raises(InvalidInputError, match="'admitted' holds dates .*WithMissing"):
        make_synthesiser(technique, seed=0, **params).fit(table, DATED)
    with pytest.raises(
        InvalidInputError, match=r"\['ward'\] have a pandas category dtype.*WithMissing"
    ):
        make_synthesiser(technique, seed=0, **params).fit(table.assign(admitted=1.0), DATED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = WithMissing(make_synthesiser(technique, seed=0, **params)).fit_sample(table, DATED)
    assert out.ward.notna().all() and list(out.ward.cat.categories)[:5] == list("abcdz")
    assert pd.api.types.is_datetime64_any_dtype(out.admitted) and out.admitted.notna().all()
    if technique != "random":  # Random's Laplace noise is hundreds of ranges wide by design
        assert (
            out.admitted.between(pd.Timestamp("2019-06-01"), pd.Timestamp("2023-01-01")).mean()
            > 0.5
        )


@pytest.mark.parametrize("technique", ["ctgan", "tvae"])
def test_sdv_techniques_refuse_numbers_they_cannot_square(texas300, technique):
    """Issue 29: CTGAN/TVAE raised "array must not contain infs or NaNs" on huge values."""
    from privmetrics.synthesisers import make_synthesiser

    real, _, schema = texas300
    huge = real.assign(TOTAL_CHARGES=real.TOTAL_CHARGES * 1e300)
    with pytest.raises(InvalidInputError, match="'TOTAL_CHARGES' holds .* overflow"):
        make_synthesiser(technique, seed=0, epochs=1).fit(huge, schema.with_roles())


@pytest.mark.parametrize("technique", ["random", "uniform", "privbayes", "pategan", "real"])
def test_integer_coded_categories_against_declared_text_codes_are_refused(technique):
    """Issue 41: Texas PAT_AGE cast to int against the declared codes '00'..'21' gave a PrivBayes
    release of 155 float and 145 str values, without a word (ages 1-9 read as text are not
    '01'..'09', so they fell to INVALID). Codes that read alike (RACE 1..4 against '1'..'4') came
    back as '2.0' and 'INVALID' in an int column. Both are refused, naming the column and an
    example of its values; converted to the declared codes, the same table fits."""
    from privmetrics.data.datasets import load_dataset
    from privmetrics.synthesisers import make_synthesiser

    real, schema = load_dataset("texas", n=300, seed=0)
    fast = {"pategan": {"epsilon": 10.0, "max_iterations": 2},
            "privbayes": {"epsilon": 1.0}}.get(technique, {})  # fmt: skip
    for column in ("PAT_AGE", "RACE"):
        coded = real.assign(**{column: real[column].astype(int)})
        with pytest.raises(InvalidInputError, match=rf"'{column}' holds number values \(e\.g\."):
            make_synthesiser(technique, seed=0, **fast).fit(coded, schema)
        back = coded.assign(**{column: coded[column].map("{:02d}".format if column == "PAT_AGE"
                                                         else str)})  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make_synthesiser(technique, seed=0, **fast).fit(back, schema)


@pytest.mark.parametrize("technique", ["mst", "aim"])
def test_the_marginal_synthesisers_refuse_integer_codes_too(technique):
    """The same refusal before any fit (the base class checks the declared domain)."""
    from privmetrics.data.datasets import load_dataset
    from privmetrics.synthesisers import make_synthesiser

    real, schema = load_dataset("texas", n=300, seed=0)
    coded = real.assign(PAT_AGE=real.PAT_AGE.astype(int))
    with pytest.raises(InvalidInputError, match=r"'PAT_AGE' holds number values \(e\.g\."):
        make_synthesiser(technique, seed=0).fit(coded, schema)


@pytest.mark.parametrize("technique", ["random", "uniform", "privbayes", "pategan", "real",
                                       "ctgan", "tvae", "mst", "aim"])  # fmt: skip
def test_every_synthesiser_refuses_a_one_row_table(texas300, technique):
    """Random and Uniform fitted one row and released it (plus noise): that person's record."""
    from privmetrics.synthesisers import make_synthesiser

    real, _, schema = texas300
    with pytest.raises(InvalidInputError, match="at least 2 rows"):
        make_synthesiser(technique, seed=0).fit(real.iloc[:1], schema.with_roles())
