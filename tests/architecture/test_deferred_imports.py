"""Every CLI call pays for what `stockdesk.entrypoints.cli` imports (2.7 s here; 4.3 s when these
loaded with it). matplotlib, LangGraph and the openai SDK load on first use: a chart drawn, a graph
built, a provider made. A module-level import of one of them, anywhere on the CLI's import path, makes
this fail and names the library (benchmarks/cli_startup.py prints the seconds)."""

from __future__ import annotations

import subprocess
import sys

DEFERRED = ("matplotlib", "langgraph", "langsmith", "openai")


def test_the_cli_loads_no_chart_graph_or_provider_library_until_used() -> None:
    probe = "import sys, stockdesk.entrypoints.cli; print(' '.join({m.split('.')[0] for m in sys.modules}))"
    loaded = subprocess.run([sys.executable, "-c", probe], text=True, capture_output=True, check=True)
    assert [m for m in DEFERRED if m in loaded.stdout.split()] == []
    used = (
        "import sys; from stockdesk.shared import charts; charts.render_png; "
        "from stockdesk.coordinator.application import build_research_graph; "
        "from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider; "
        "OpenAICompatibleProvider(name='x', base_url='http://127.0.0.1:9', model='m', api_key=None); "
        "print(' '.join({m.split('.')[0] for m in sys.modules}))"
    )
    loaded = subprocess.run([sys.executable, "-c", used], text=True, capture_output=True, check=True)
    assert [m for m in DEFERRED if m not in loaded.stdout.split()] == []  # and they do load when used
