"""Allow `python -m stockdesk`."""

from stockdesk.entrypoints.cli import main

main()
