"""stockdesk: an AI equity-research desk; numbers come from code, judgement from an LLM."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("stockdesk")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+local"
