"""Who may call the REST API and how much: API keys (hashed at rest), per-key limits, the policy.

Pure: DTOs, the key store port, the limiters and the policy. `stockdesk.shared.db.api_key_store`
implements the port over SQL; `stockdesk.entrypoints.security` applies the policy to requests.
"""

from stockdesk.shared.access.grant import AccessGrant, current_grant
from stockdesk.shared.access.keys import ApiKeyRecord, IApiKeyStore, hash_key, new_key
from stockdesk.shared.access.limits import ConcurrencyLimiter, RateLimiter
from stockdesk.shared.access.policy import AccessPolicy, AuthMode, is_loopback

__all__ = [
    "AccessGrant",
    "AccessPolicy",
    "ApiKeyRecord",
    "AuthMode",
    "ConcurrencyLimiter",
    "IApiKeyStore",
    "RateLimiter",
    "current_grant",
    "hash_key",
    "is_loopback",
    "new_key",
]
