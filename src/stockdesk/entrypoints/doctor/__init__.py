"""`stockdesk doctor`: checks of the install and of this machine's state, each with its fix.

`CHECKS` lists them in the order shown, each required (a failure exits 1) or optional (at worst a
warning); the model weights and the llama.cpp runtime are required but skip when every LLM alias is
remote.
"""

from __future__ import annotations

from stockdesk.entrypoints.doctor.checks import (
    Check,
    CheckResult,
    DoctorContext,
    Finding,
    Status,
    run_check,
    run_checks,
)
from stockdesk.entrypoints.doctor.install_checks import (
    check_browser,
    check_espeak,
    check_llama_runtime,
    check_model_weights,
    check_postgres,
    check_ray,
    check_talib,
    check_web_assets,
)
from stockdesk.entrypoints.doctor.notify_checks import check_notifications
from stockdesk.entrypoints.doctor.store_checks import (
    check_disk,
    check_llm_aliases,
    check_market_data,
    check_sandbox,
    check_store,
)

CHECKS = [
    Check("model weights", True, check_model_weights),
    Check("llama.cpp runtime", True, check_llama_runtime),
    Check("TA-Lib", True, check_talib),
    Check("web assets", True, check_web_assets),
    Check("Ray", True, check_ray),
    Check("store", True, check_store),
    Check("market data", False, check_market_data),
    Check("LLM aliases", True, check_llm_aliases),
    Check("disk space", True, check_disk),
    Check("sandbox layers", False, check_sandbox),
    Check("notification channels", False, check_notifications),
    Check("chromium + Playwright", False, check_browser),
    Check("PostgreSQL", False, check_postgres),
    Check("espeak-ng", False, check_espeak),
]

__all__ = ["CHECKS", "Check", "CheckResult", "DoctorContext", "Finding", "Status", "run_check", "run_checks"]
