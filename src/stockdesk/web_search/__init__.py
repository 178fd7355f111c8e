"""Web search: one request shape over Bocha, Tavily, SearXNG and the local news index, with a
cache and an audit of every call. Research's search experts are its users."""
