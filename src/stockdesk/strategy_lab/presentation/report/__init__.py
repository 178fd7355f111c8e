"""A strategy run as a standalone HTML report, and the run summary's view data shared with the web page."""

from stockdesk.strategy_lab.presentation.report.render import render_run_report, write_run_report
from stockdesk.strategy_lab.presentation.report.summary_view import SummaryView, summary_view

__all__ = ["SummaryView", "render_run_report", "summary_view", "write_run_report"]
