"""The Agreement page's computations, once per dataset and selection: the agreement report of one
coding scheme, a model coder against the human majority, and two schemes compared.

Each is keyed by the dataset's content hash and the choices that change the result (scheme,
coders, partition, level, category order, resamples), so every browser session on the same data
shares them.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from analysis import agreement as ag
from analysis.schemes import SchemeComparison, compare_schemes
from corpus.codebook import bundled
from corpus.loading.dataset import Corpus


def _table(
    corpus: Corpus, scheme: str, coders: Sequence[str], partition: str | None, order: Sequence[str] | None = None
) -> ag.LabelTable:
    labels = corpus.coded(scheme)
    df = labels[labels["coder"].isin(coders)]
    if partition:
        df = df[df["partition"] == partition]
    return ag.LabelTable(df, item="item_id", label="code", categories=list(order) if order else None)


@st.cache_data(show_spinner="Computing agreement (bootstrap over items)...", max_entries=32)
def _report(
    content_hash: str,
    scheme: str,
    coders: tuple[str, ...],
    partition: str | None,
    level: str,
    order: tuple[str, ...] | None,
    n_boot: int,
    _corpus: Corpus,
) -> ag.AgreementReport:
    table = _table(_corpus, scheme, coders, partition, order)
    return ag.report(table, level=level, n_boot=n_boot, seed=0, scale=scale_of(scheme))


def scale_of(scheme: str) -> list[str] | None:
    """The codes of the bundled codebook of ``scheme`` (AC1's Q counts them), None when the app ships
    none for it (AC1 then counts the categories observed, and says so)."""
    book = bundled().get(scheme)
    return book.code_ids if book is not None else None


def dataset_report(
    corpus: Corpus,
    scheme: str,
    coders: Sequence[str],
    partition: str | None,
    level: str = "nominal",
    order: Sequence[str] | None = None,
    n_boot: int = 1000,
) -> ag.AgreementReport:
    """The agreement report on one scheme's labels by ``coders`` (raises
    :class:`analysis.agreement.LabelTableError` when the labels do not fit the level or order)."""
    return _report(
        corpus.content_hash, scheme, tuple(coders), partition, level, tuple(order) if order else None, n_boot, corpus
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _model(
    content_hash: str, scheme: str, model: str, coders: tuple[str, ...], partition: str | None, _corpus: Corpus
) -> ag.GoldComparison:
    return ag.coder_vs_gold(
        _table(_corpus, scheme, [model, *coders], None), model, gold="majority", partition=partition
    )


def model_against_majority(
    corpus: Corpus, scheme: str, model: str, coders: Sequence[str], partition: str | None
) -> ag.GoldComparison:
    """A model coder's labels against the majority of the chosen human coders."""
    return _model(corpus.content_hash, scheme, model, tuple(coders), partition, corpus)


@st.cache_data(show_spinner=False, max_entries=16)
def _schemes(content_hash: str, scheme_a: str, scheme_b: str, _corpus: Corpus) -> SchemeComparison:
    models = tuple(_corpus.labels.loc[_corpus.labels["coder_kind"] == "model", "coder"].unique())
    return compare_schemes(_corpus.labels, scheme_a, scheme_b, exclude_coders=models)


def scheme_comparison(corpus: Corpus, scheme_a: str, scheme_b: str) -> SchemeComparison:
    """Two coding schemes on the same actions, cross-tabulated (human coders only)."""
    return _schemes(corpus.content_hash, scheme_a, scheme_b, corpus)
