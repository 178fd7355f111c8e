"""The cross-sectional factor library: what each factor is, how it is computed, and why its sign.

Every factor is a number per (symbol, date) computed only from data dated on or before that date
(bars by their trade date, valuations by their trade date, reports by their announcement date). A
factor whose inputs are missing stays missing: it is never filled with a guess. Before a model reads
them, factors are rank-normalised per date across the symbols that have them (`rank_normalise` in
research's application), so a factor's scale and outliers do not matter, only its order.

`prior` is the sign (and rough strength) of the published evidence per market, the weight the
signal model uses until enough labelled history exists to fit its own (`CN` A-shares, `US`
equities). 0 means the evidence is mixed or absent for that market. Strength 1 is a factor with a
long, replicated record; 0.5 a weaker or less replicated one.
"""

from __future__ import annotations

from dataclasses import dataclass

PRICE, VALUE, QUALITY, GROWTH, SIZE = "price", "value", "quality", "growth", "size"


@dataclass(frozen=True)
class Factor:
    name: str
    group: str
    formula: str
    evidence: str
    prior_cn: float
    prior_us: float

    def prior(self, market: str) -> float:
        return self.prior_cn if market == "CN" else self.prior_us


FACTORS: tuple[Factor, ...] = (
    Factor(
        "ret_5d", PRICE, "adjusted close / adjusted close 5 trading days earlier - 1",
        "short-term reversal: Lehmann (1990, QJE) and Jegadeesh (1990, JF) for US stocks; strong on "
        "A-shares (e.g. Liu, Stambaugh & Yuan 2019, JFE, and the A-share reversal literature), so the "
        "sign is negative",
        -1.0, -0.5,
    ),
    Factor(
        "ret_20d", PRICE, "adjusted close / adjusted close 20 trading days earlier - 1",
        "one-month reversal: Jegadeesh (1990, JF); on A-shares the one-month reversal is among the "
        "strongest price effects, hence negative",
        -1.0, -0.5,
    ),
    Factor(
        "mom_12_1", PRICE, "adjusted close 20 trading days ago / adjusted close 250 trading days ago - 1",
        "medium-term momentum skipping the last month: Jegadeesh & Titman (1993, JF) for US stocks "
        "(positive); absent or reversed on A-shares (Liu, Stambaugh & Yuan 2019 find no momentum in "
        "China), hence 0 for CN",
        0.0, 1.0,
    ),
    Factor(
        "vol_20d", PRICE, "standard deviation of daily log returns over 20 trading days x sqrt(250)",
        "low-volatility anomaly: Ang, Hodrick, Xing & Zhang (2006, JF); also documented on A-shares, "
        "hence negative",
        -1.0, -1.0,
    ),
    Factor(
        "vol_60d", PRICE, "standard deviation of daily log returns over 60 trading days x sqrt(250)",
        "as vol_20d over a quarter (Ang et al. 2006; Baker, Bradley & Wurgler 2011, FAJ)",
        -0.5, -0.5,
    ),
    Factor(
        "volume_change", PRICE, "log(mean volume over 20 trading days / mean volume over 120)",
        "abnormal turnover: on A-shares high recent turnover predicts low returns (Liu, Stambaugh & "
        "Yuan 2019's sentiment factor); in the US the high-volume return premium is positive "
        "(Gervais, Kaniel & Mingelgrin 2001, JF)",
        -1.0, 0.5,
    ),
    Factor(
        "size", SIZE, "log(total market value)",
        "small-firm effect: Banz (1981, JFE), Fama & French (1992, JF); strong on A-shares (Liu, "
        "Stambaugh & Yuan 2019), weak in the US since the 1980s",
        -1.0, -0.5,
    ),
    Factor(
        "earnings_yield", VALUE, "1 / PE TTM (missing when earnings are not positive)",
        "value: Basu (1977, JF); EP is the value measure that works best on A-shares (Liu, Stambaugh "
        "& Yuan 2019)",
        1.0, 0.5,
    ),
    Factor(
        "book_yield", VALUE, "1 / PB",
        "book-to-market: Fama & French (1992, JF); weaker than EP on A-shares",
        0.5, 0.5,
    ),
    Factor(
        "sales_yield", VALUE, "1 / PS TTM",
        "sales-to-price: Barbee, Mukherji & Raines (1996, FAJ)",
        0.5, 0.5,
    ),
    Factor(
        "dividend_yield", VALUE, "trailing dividend yield, %",
        "dividend yield as a value measure (Fama & French 1988, JFE); mixed in the cross-section",
        0.5, 0.0,
    ),
    Factor(
        "pe_percentile", VALUE, "PE TTM percentile within the symbol's own last 3 years, 0-100",
        "own-history valuation: no strong published cross-sectional evidence; mean reversion of "
        "valuation ratios (Campbell & Shiller 1998) suggests a weak negative sign",
        -0.5, -0.5,
    ),
    Factor(
        "pb_percentile", VALUE, "PB percentile within the symbol's own last 3 years, 0-100",
        "as pe_percentile",
        -0.5, -0.5,
    ),
    Factor(
        "roe_ttm", QUALITY, "ROE over the last twelve months, %",
        "profitability: Novy-Marx (2013, JFE), Fama & French (2015, JFE) RMW; also positive on "
        "A-shares",
        1.0, 1.0,
    ),
    Factor(
        "gross_margin", QUALITY, "gross margin of the latest report, %",
        "gross profitability: Novy-Marx (2013, JFE) (gross profit to assets; the margin is its proxy "
        "here)",
        0.5, 0.5,
    ),
    Factor(
        "cash_quality", QUALITY, "operating cash flow per share / EPS of the latest report",
        "accruals: Sloan (1996, TAR): earnings backed by cash predict higher returns",
        0.5, 0.5,
    ),
    Factor(
        "debt_to_assets", QUALITY, "total liabilities / total assets of the latest report, %",
        "leverage: weak and mixed evidence (Penman, Richardson & Tuna 2007, JAR); a small negative "
        "prior",
        -0.5, -0.5,
    ),
    Factor(
        "revenue_yoy", GROWTH, "revenue growth over the same period a year earlier, %",
        "fundamental momentum: positive surprises drift (Bernard & Thomas 1989, JAR); "
        "revenue growth weaker than earnings",
        0.5, 0.5,
    ),
    Factor(
        "profit_dedt_yoy", GROWTH,
        "growth of net profit after non-recurring items (else net profit) over a year earlier, %",
        "earnings momentum / post-earnings drift: Bernard & Thomas (1989, JAR), Chordia & Shivakumar "
        "(2006, JFE); documented on A-shares",
        1.0, 1.0,
    ),
)  # fmt: skip
FACTOR_NAMES: tuple[str, ...] = tuple(f.name for f in FACTORS)
FACTOR_BY_NAME: dict[str, Factor] = {f.name: f for f in FACTORS}
