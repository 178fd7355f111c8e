"""The ticker script worker (spec 7.2): one ticker's host/analyst turns from its debate JSON."""
