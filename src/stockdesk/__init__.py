"""stockdesk: an AI equity-research desk whose numbers come from code and whose judgement comes from an LLM."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("stockdesk")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+local"
