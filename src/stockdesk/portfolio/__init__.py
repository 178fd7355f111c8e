"""Portfolio: the user's watchlists and holdings (positions with cost basis), valued point in time."""
