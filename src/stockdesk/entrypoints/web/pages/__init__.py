"""One router per page area; each is built from WebDeps and registered in entrypoints.web.app."""
