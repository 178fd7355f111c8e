"""SQLAlchemy persistence of LLM call audits and cached responses."""
