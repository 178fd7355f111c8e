"""Provider limiters: in-process (threads) and Ray (one actor every worker asks)."""

from stockdesk.llm_platform.domain.exceptions import ProviderLimitWaitError
from stockdesk.llm_platform.domain.rate_limits import LimitWait

# How long a call waits for its provider's limits before failing over to the next alias.
DEFAULT_MAX_WAIT_SECONDS = 600.0


def wait_error(refusal: LimitWait, waited: float) -> ProviderLimitWaitError:
    """The error after waiting too long: which alias and which limit, and what to change."""
    return ProviderLimitWaitError(
        f"waited {waited:.0f} s for LLM alias '{refusal.alias}' under its {refusal.limit} limit; "
        "raise that limit in the alias's configuration or run fewer workers"
    )
