"""Who may call the REST API and how much: API keys (hashed at rest), per-key limits, the policy.

Pure: DTOs, the limiters and the policy. The key store is `stockdesk.shared.db.api_key_store` (one
SQL class); `stockdesk.entrypoints.security` applies the policy to requests.
"""

from stockdesk.shared.access.grant import AccessGrant, current_grant
from stockdesk.shared.access.keys import ApiKeyRecord, hash_key, new_key
from stockdesk.shared.access.limits import ConcurrencyLimiter, RateLimiter
from stockdesk.shared.access.policy import AccessPolicy, AuthMode, is_loopback

__all__ = [
    "AccessGrant",
    "AccessPolicy",
    "ApiKeyRecord",
    "AuthMode",
    "ConcurrencyLimiter",
    "RateLimiter",
    "current_grant",
    "hash_key",
    "is_loopback",
    "new_key",
]
