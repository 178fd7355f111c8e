"""Search providers behind IWebSearchProvider: the local news index and the web APIs."""
