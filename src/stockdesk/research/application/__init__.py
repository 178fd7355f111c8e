"""Application layer: services and use cases; depends on domain ports only."""

from stockdesk.research.application.chart_data_service import ChartDataService, ChartSet

__all__ = ["ChartDataService", "ChartSet"]
