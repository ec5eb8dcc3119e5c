"""Inter-coder agreement on coded labels.

Build a :class:`LabelTable` once from a long table (one row per item and coder) and its column
names, then ask it for statistics; each returns a results object (:class:`Estimate` and its
kin: estimate, n, interval, method, the procedure of its interval, what computed it, warnings;
``summary()``, ``to_frame()``, ``to_json()``)::

    from analysis import agreement as ag

    table = ag.LabelTable(df, item="item_id", coder="coder", label="code")
    ag.fleiss(table).summary()
    ag.report(table, level="ordinal").to_json()

The modules, one job each:

- :mod:`~analysis.agreement.table`: the label table (items x coders codes, and the count table
  kept without its zeros), reading label CSVs with only empty cells missing.
- :mod:`~analysis.agreement.bootstrap`: the bootstrap over items behind every interval.
- :mod:`~analysis.agreement.fleiss`: Fleiss' kappa (one formula), per-category kappas, drift.
- :mod:`~analysis.agreement.alpha`: Krippendorff's alpha at four levels, coincidences.
- :mod:`~analysis.agreement.pairwise`: percent agreement, Cohen's kappa per pair, Gwet's AC1,
  Fleiss' kappa generalized to a varying number of coders per item.
- :mod:`~analysis.agreement.diagnostics`: skew, kappa paradox, coder bias, sparse categories,
  too few items; the most disagreed items.
- :mod:`~analysis.agreement.gold`: one coder against gold labels or the majority.
- :mod:`~analysis.agreement.report` and :mod:`~analysis.agreement.text`: the report object and
  its text tables.

A statistic that has no value on the data (every label the same category, no item coded by two
coders, ...) is :class:`Undefined` with the reason, never 0 or NaN. The results objects
(:class:`Estimate`, :class:`ChiSquare`) are :mod:`analysis.results`' and values print through
:mod:`analysis.format`; both are re-exported here.
"""

from analysis.agreement.alpha import (
    LEVELS,
    NO_PAIRS,
    PACKAGE_MAX_CELLS,
    RATIO_MAX_CATEGORIES,
    AlphaResult,
    coincidence_matrix,
    coincidences,
    krippendorff_alpha,
)
from analysis.agreement.diagnostics import (
    FEW_ITEMS,
    SPARSE_USES,
    CoderBias,
    Diagnostics,
    coder_bias,
    diagnostics,
    item_agreement,
    most_disagreed,
)
from analysis.agreement.fleiss import ALL_SAME, DEFAULT_BOOTSTRAP, FleissResult, fleiss, kappa_drift, kappa_from_sums
from analysis.agreement.gold import GoldComparison, coder_vs_gold
from analysis.agreement.pairwise import (
    PairwiseCohen,
    cohen_kappa_codes,
    confusion_matrix,
    fleiss_generalized,
    gwet_ac1,
    pairwise_cohen,
    percent_agreement,
)
from analysis.agreement.report import (
    PANEL_MIN_ITEMS,
    AgreementReport,
    Headline,
    generalized_kappa,
    panel,
    report,
)
from analysis.agreement.table import (
    MAX_MATRIX_CATEGORIES,
    LabelTable,
    LabelTableError,
    MatrixTooLarge,
    item_columns,
    item_keys,
    read_labels_csv,
)
from analysis.format import fmt, fmt_interval, fmt_p, fmt_share, fmt_short, p_clause, to_json
from analysis.results import ChiSquare, Estimate
from corpus.values import Undefined, is_defined

__all__ = [
    "LEVELS",
    "NO_PAIRS",
    "ALL_SAME",
    "FEW_ITEMS",
    "SPARSE_USES",
    "DEFAULT_BOOTSTRAP",
    "PANEL_MIN_ITEMS",
    "PACKAGE_MAX_CELLS",
    "RATIO_MAX_CATEGORIES",
    "MAX_MATRIX_CATEGORIES",
    "LabelTable",
    "LabelTableError",
    "MatrixTooLarge",
    "item_columns",
    "item_keys",
    "read_labels_csv",
    "Estimate",
    "ChiSquare",
    "FleissResult",
    "AlphaResult",
    "PairwiseCohen",
    "CoderBias",
    "Diagnostics",
    "GoldComparison",
    "Headline",
    "AgreementReport",
    "Undefined",
    "is_defined",
    "fleiss",
    "kappa_from_sums",
    "kappa_drift",
    "krippendorff_alpha",
    "coincidences",
    "coincidence_matrix",
    "percent_agreement",
    "cohen_kappa_codes",
    "pairwise_cohen",
    "gwet_ac1",
    "fleiss_generalized",
    "confusion_matrix",
    "coder_bias",
    "diagnostics",
    "item_agreement",
    "most_disagreed",
    "coder_vs_gold",
    "panel",
    "generalized_kappa",
    "report",
    "fmt",
    "fmt_short",
    "fmt_p",
    "p_clause",
    "fmt_interval",
    "fmt_share",
    "to_json",
]
